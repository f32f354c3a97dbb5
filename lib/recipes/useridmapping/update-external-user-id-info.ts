import type { UserIdKind } from '../../storage/ports/users';
import { retryOnRace, type Deps } from '../deps';
import { updateLoginMethod } from '../users/find-login';
import { findMapping, isRecipeUserId } from './find-mapping';

/**
 * `PUT /recipe/userid/external-user-id-info`: sets (or, with `null`, clears) the free text kept with
 * a mapping. As the core, `ANY` means the recipe user id when a login method has it, else the
 * external id.
 */
export function updateExternalUserIdInfo(
  deps: Pick<Deps, 'users'>,
  userId: string,
  type: UserIdKind,
  info: string | null,
): Promise<{ status: 'OK' } | { status: 'UNKNOWN_MAPPING_ERROR' }> {
  return retryOnRace<{ status: 'OK' } | { status: 'UNKNOWN_MAPPING_ERROR' }>('Updating the external user id info', async () => {
    const resolved: UserIdKind = type !== 'ANY' ? type : (await isRecipeUserId(deps, userId)) ? 'SUPERTOKENS' : 'EXTERNAL';
    const found = await findMapping(deps, userId, resolved);
    if (!found) return { status: 'UNKNOWN_MAPPING_ERROR' };
    const { externalUserIdInfo: _old, ...rest } = found.loginMethod;
    const result = await updateLoginMethod(deps, found, info === null ? rest : { ...rest, externalUserIdInfo: info });
    return result.status === 'OK' ? { status: 'OK' } : undefined;
  });
}
