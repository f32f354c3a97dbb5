import { publicIdOf, standaloneUser, withVerifiedEmail } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';
import { CHANGE_NOT_ALLOWED_REASON } from '../accountlinking/conflicts';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { changeLogin, loginOf, storeWrite, userOf } from '../users/find-login';

export interface ThirdPartySignInUpInput {
  /** Provider id, as given (case-sensitive, not trimmed). */
  readonly thirdPartyId: string;
  /** The user's id at the provider, as given. */
  readonly thirdPartyUserId: string;
  /** Normalised email the provider reports. */
  readonly email: string;
  /** Whether the provider says it verified the email. */
  readonly isVerified: boolean;
}

export type ThirdPartySignInUpResult =
  | { status: 'OK'; createdNewUser: boolean; user: ApiUser; recipeUserId: string }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

/**
 * Signs a third-party user in, or up (seed 4.4). The identity is (tenant, thirdPartyId,
 * thirdPartyUserId), guarded in the same transaction as the user, so concurrent first sign-ins of
 * one identity make exactly one user. An existing login method's changed email is updated, unless
 * it belongs to a primary user and another primary user sharing a tenant holds the new email
 * (`EMAIL_CHANGE_NOT_ALLOWED_ERROR`, the core's answer). A linked login method signs in as its
 * primary user. DynamoDB round trips (issue #15, `round-trips.test.ts`): a login method on its own
 * 1, or 2 when it changes; a primary user's 2, also when the provider newly verifies its email;
 * a primary user's changed email 3 (its claims need the whole user before the write).
 */
export async function signInUp(
  deps: Pick<Deps, 'users' | 'clock' | 'random'>,
  tenantId: string,
  input: ThirdPartySignInUpInput,
): Promise<ThirdPartySignInUpResult> {
  // Whether a write may start from the guard's snapshot: not after such a write was refused (a
  // change since), when the user is read first.
  let fromSnapshot = true;
  return retryOnRace<ThirdPartySignInUpResult>('Third-party sign-in', async () => {
    const found = await deps.users.getLoginByThirdParty(tenantId, input.thirdPartyId, input.thirdPartyUserId);
    const login = await loginOf(deps, found, fromSnapshot);
    if (login) {
      if (!changes(login.loginMethod, afterSignIn(login.loginMethod, input))) {
        const shown = await userOf(deps, login);
        return shown ? signedIn(shown.user, shown.loginMethod, false) : undefined;
      }
      const { result, user, loginMethod } = await changeLogin(deps, login, (lm) => afterSignIn(lm, input), storeWrite(deps));
      if (user) return signedIn(user, loginMethod, false);
      if (result.status === 'ACCOUNT_INFO_TAKEN') return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: CHANGE_NOT_ALLOWED_REASON.thirdPartySignIn };
      fromSnapshot = false;
      return undefined;
    }
    const user: UserRecord = {
      userId: deps.random.uuid(),
      recipeId: 'thirdparty',
      tenantIds: [tenantId],
      timeJoined: deps.clock.now(),
      email: input.email,
      thirdParty: { id: input.thirdPartyId, userId: input.thirdPartyUserId },
      verifiedEmails: input.isVerified ? [input.email] : [],
      phoneVerified: false,
      version: 1,
    };
    const result = await deps.users.createUser(user);
    if (result.status === 'OK') return signedIn(standaloneUser(user), user, true);
    // IDENTITY_TAKEN: a concurrent sign-in created this identity's user first; the next round
    // reads it and signs it in.
    return undefined;
  });
}

/**
 * The login method after a sign-in: the provider's `isVerified: true` verifies the email; `false`
 * never takes a verification back; a changed email is verified only if proven (now, or earlier
 * for this login method).
 */
function afterSignIn(lm: UserRecord, input: ThirdPartySignInUpInput): UserRecord {
  return input.isVerified ? withVerifiedEmail({ ...lm, email: input.email }, input.email) : { ...lm, email: input.email };
}

/** Whether a sign-in changes the login method (its email, or its verified emails). */
function changes(lm: UserRecord, after: UserRecord): boolean {
  return lm.email !== after.email || lm.verifiedEmails.join('\n') !== after.verifiedEmails.join('\n');
}

function signedIn(user: AuthUser, loginMethod: UserRecord, createdNewUser: boolean): ThirdPartySignInUpResult {
  return { status: 'OK', createdNewUser, user: toApiUser(user), recipeUserId: publicIdOf(loginMethod) };
}
