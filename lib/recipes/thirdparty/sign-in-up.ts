import { publicIdOf, standaloneUser, withLoginMethod, withVerifiedEmail } from '../../storage/auth-user';
import type { LoginMethodView, UserRecord, UserView } from '../../storage/model';
import { CHANGE_NOT_ALLOWED_REASON } from '../accountlinking/conflicts';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findLoginOfGuard, updateLoginMethod, userAfterMark } from '../users/find-login';

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
  // Whether a primary user's login method may still be written from its guard's copy: not after
  // such a write was refused (a stale copy, or a change since), when the user is read first.
  let fromCopy = true;
  return retryOnRace<ThirdPartySignInUpResult>('Third-party sign-in', async () => {
    const ref = await deps.users.getLoginByThirdParty(tenantId, input.thirdPartyId, input.thirdPartyUserId);
    // A login method on its own whose guard holds a copy of it: nothing to change, nothing more to
    // read; a change is written from the copy when it holds the version (storage format 7: the
    // guard, read consistently, is written with the login method), else from the user read.
    const copy = ref?.loginMethod;
    if (copy && !changes(copy, afterSignIn(copy, input))) return signedIn(standaloneUser(copy), copy, false);
    // A primary user's login method whose guard holds a whole copy of it (storage format 8): a
    // newly verified email is written from the copy alone, the user read beside the write (two
    // round trips in all, as for a sign-in that changes nothing). A stale copy fails the write's
    // version condition: the next rounds read the user first, and decide from it.
    const primary = fromCopy ? ref?.primaryLogin : undefined;
    if (primary && onlyVerifies(primary.loginMethod, input)) {
      const after = afterSignIn(primary.loginMethod, input);
      const read = deps.users.getUser(primary.primaryUserId, 'SUPERTOKENS').catch(() => undefined);
      const result = await deps.users.writePrimaryLoginMark({ primaryUserId: primary.primaryUserId, before: primary.loginMethod, after });
      if (result.status !== 'OK') {
        fromCopy = false;
        await read;
        return undefined;
      }
      return signedIn(await userAfterMark(deps, await read, after), after, false);
    }
    const existing = await findLoginOfGuard(deps, ref);
    if (existing) {
      const lm = existing.loginMethod;
      const after: UserRecord = afterSignIn(lm, input);
      if (!changes(lm, after)) return signedIn(existing.user, lm, false);
      const result = await updateLoginMethod(deps, existing, after);
      if (result.status === 'OK') return signedIn(withLoginMethod(existing.user, after), after, false);
      if (result.status === 'ACCOUNT_INFO_TAKEN') return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: CHANGE_NOT_ALLOWED_REASON.thirdPartySignIn };
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
function afterSignIn<T extends LoginMethodView>(lm: T, input: ThirdPartySignInUpInput): T {
  return input.isVerified ? withVerifiedEmail({ ...lm, email: input.email }, input.email) : { ...lm, email: input.email };
}

/** Whether a sign-in changes the login method's verified emails and nothing else. */
function onlyVerifies(lm: LoginMethodView, input: ThirdPartySignInUpInput): boolean {
  return lm.email === input.email && changes(lm, afterSignIn(lm, input));
}

/** Whether a sign-in changes the login method (its email, or its verified emails). */
function changes(lm: LoginMethodView, after: LoginMethodView): boolean {
  return lm.email !== after.email || lm.verifiedEmails.join('\n') !== after.verifiedEmails.join('\n');
}

function signedIn(user: UserView, loginMethod: LoginMethodView, createdNewUser: boolean): ThirdPartySignInUpResult {
  return { status: 'OK', createdNewUser, user: toApiUser(user), recipeUserId: publicIdOf(loginMethod) };
}
