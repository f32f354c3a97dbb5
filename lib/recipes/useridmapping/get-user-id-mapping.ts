import type { UserIdKind } from '../../storage/ports/users';
import type { Deps } from '../deps';
import { findMapping } from './find-mapping';

export type GetUserIdMappingResult =
  | { status: 'OK'; superTokensUserId: string; externalUserId: string; externalUserIdInfo?: string }
  | { status: 'UNKNOWN_MAPPING_ERROR' };

/** `GET /recipe/userid/map`: the mapping a user id names (see `findMapping`), `externalUserIdInfo` only when set. */
export async function getUserIdMapping(deps: Pick<Deps, 'users'>, userId: string, type: UserIdKind): Promise<GetUserIdMappingResult> {
  const found = await findMapping(deps, userId, type);
  if (!found) return { status: 'UNKNOWN_MAPPING_ERROR' };
  const { userId: superTokensUserId, externalUserId, externalUserIdInfo } = found.loginMethod;
  return { status: 'OK', superTokensUserId, externalUserId, ...(externalUserIdInfo !== undefined ? { externalUserIdInfo } : {}) };
}
