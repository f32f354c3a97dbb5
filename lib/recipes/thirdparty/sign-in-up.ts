import type { UserRecord } from '../../storage/model';
import { WRITE_TRIES, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';

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

export type ThirdPartySignInUpResult = { status: 'OK'; createdNewUser: boolean; user: ApiUser; recipeUserId: string };


/**
 * Whether the email counts as verified after a sign-in: a provider's `isVerified: true` verifies
 * it; `false` never takes back a verification of the same email; a changed email is verified only
 * if the provider says so (a proof of the old address says nothing about the new one).
 */
function emailVerifiedAfter(user: UserRecord, email: string, isVerified: boolean): boolean {
  return isVerified || (user.email === email && user.emailVerified);
}

/**
 * Signs a third-party user in, or up (seed 4.4). The identity is (tenant, thirdPartyId,
 * thirdPartyUserId), guarded in the same transaction as the user, so concurrent first sign-ins of
 * one identity make exactly one user. An existing user's changed email is updated.
 */
export async function signInUp(
  deps: Pick<Deps, 'users' | 'clock' | 'random'>,
  tenantId: string,
  input: ThirdPartySignInUpInput,
): Promise<ThirdPartySignInUpResult> {
  for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
    const existingId = await deps.users.getUserIdByThirdParty(tenantId, input.thirdPartyId, input.thirdPartyUserId);
    const existing = existingId === undefined ? undefined : await deps.users.getUser(existingId);
    if (existing) {
      const emailVerified = emailVerifiedAfter(existing, input.email, input.isVerified);
      if (existing.email === input.email && existing.emailVerified === emailVerified) {
        return signedIn(existing, false);
      }
      const after: UserRecord = { ...existing, email: input.email, emailVerified };
      const result = await deps.users.updateUser(existing, after);
      if (result.status === 'OK') return signedIn({ ...after, version: existing.version + 1 }, false);
      continue;
    }
    const user: UserRecord = {
      userId: deps.random.uuid(),
      recipeId: 'thirdparty',
      tenantIds: [tenantId],
      timeJoined: deps.clock.now(),
      email: input.email,
      thirdParty: { id: input.thirdPartyId, userId: input.thirdPartyUserId },
      emailVerified: input.isVerified,
      phoneVerified: false,
      version: 1,
    };
    const result = await deps.users.createUser(user);
    if (result.status === 'OK') return signedIn(user, true);
    // IDENTITY_TAKEN: a concurrent sign-in created this identity's user first; the next round
    // reads it and signs it in.
  }
  throw new Error('Third-party sign-in lost the race for its user too often');
}

function signedIn(user: UserRecord, createdNewUser: boolean): ThirdPartySignInUpResult {
  return { status: 'OK', createdNewUser, user: toApiUser(user), recipeUserId: user.userId };
}
