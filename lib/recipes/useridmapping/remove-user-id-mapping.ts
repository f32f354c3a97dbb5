import type { UserIdKind } from '../../storage/ports/users';
import { retryOnRace, type Deps } from '../deps';
import { updateLoginMethod } from '../users/find-login';
import { assertNoDataUnder, findMapping, isRecipeUserId } from './find-mapping';

/**
 * `POST /recipe/userid/map/remove`: forgets a mapping; the login method's id to the outside is its
 * recipe user id again. As the core: unless `force`, refused while the app keeps data (metadata,
 * roles, TOTP) under the external id, unless that id is itself a recipe user id; and nothing kept
 * under the external id is deleted or re-keyed (with `force`, the metadata, roles and TOTP data stay
 * under the external id, and a later mapping to it finds them). Email verification state lives on the login
 * method here, not under an id, so it never blocks.
 */
export function removeUserIdMapping(
  deps: Pick<Deps, 'users' | 'metadata' | 'roles' | 'totpUsage'>,
  userId: string,
  type: UserIdKind,
  force: boolean,
): Promise<{ status: 'OK'; didMappingExist: boolean }> {
  return retryOnRace('Removing the user id mapping', async () => {
    const found = await findMapping(deps, userId, type);
    if (!found) return { status: 'OK' as const, didMappingExist: false };
    const { externalUserId, externalUserIdInfo: _info, ...unmapped } = found.loginMethod;
    if (!force && !(await isRecipeUserId(deps, externalUserId))) await assertNoDataUnder(deps, externalUserId);
    const result = await updateLoginMethod(deps, found, unmapped);
    return result.status === 'OK' ? { status: 'OK' as const, didMappingExist: true } : undefined;
  });
}
