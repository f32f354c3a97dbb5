import { accountInfoOf, publicUserIdOf } from '../../storage/auth-user';
import type { AccountInfo, UserRecord } from '../../storage/model';
import type { Deps } from '../deps';

/** The core's `description` for account info another primary user already holds, by kind. */
const DESCRIPTION: Record<AccountInfo['kind'], string> = {
  email: "This user's email is already associated with another user ID",
  phone: "This user's phone number is already associated with another user ID",
  thirdParty: "This user's third party login is already associated with another user ID",
};

/**
 * The core's `reason`s when a change of a primary user's login method would give it another
 * primary user's email or phone number (`…_CHANGE_NOT_ALLOWED_ERROR`), by operation.
 */
export const CHANGE_NOT_ALLOWED_REASON = {
  updateEmail: 'New email is associated with another primary user ID',
  updatePhoneNumber: 'New phone number is associated with another primary user ID',
  thirdPartySignIn: 'Email already associated with another primary user.',
} as const;

/** Another primary user holding a piece of the account info, and the core's description of it. */
export interface AccountInfoConflict {
  readonly primaryUserId: string;
  readonly description: string;
}

/**
 * The first piece of account info of `loginMethods` that a primary user other than `ownerId` holds
 * in one of `tenantIds` (SPEC §11), in the core's order: login method by login method, tenant by
 * tenant, email, then phone number, then third-party identity. One consistent batch read of the
 * claims primary users hold.
 */
export async function findAccountInfoConflict(
  deps: Pick<Deps, 'users'>,
  ownerId: string | undefined,
  tenantIds: readonly string[],
  loginMethods: readonly UserRecord[],
): Promise<AccountInfoConflict | undefined> {
  const claims = loginMethods.flatMap((lm) => tenantIds.flatMap((tenantId) => accountInfoOf(lm).map((info) => ({ tenantId, info }))));
  const holders = await deps.users.getPrimaryHolders(claims);
  const at = holders.findIndex((holder) => holder !== undefined && holder !== ownerId);
  if (at < 0) return undefined;
  // The core names the other primary user by the id the outside sees (its external id once mapped).
  const holderId = holders[at] as string;
  const holder = await deps.users.getUser(holderId, 'SUPERTOKENS');
  return { primaryUserId: holder ? publicUserIdOf(holder) : holderId, description: DESCRIPTION[claims[at].info.kind] };
}
