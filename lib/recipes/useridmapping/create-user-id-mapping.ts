import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { updateLoginMethod } from '../users/find-login';
import { assertNoDataUnder, findMapping, isRecipeUserId } from './find-mapping';

export interface CreateUserIdMappingInput {
  readonly superTokensUserId: string;
  readonly externalUserId: string;
  readonly externalUserIdInfo?: string;
  readonly force: boolean;
}

export type CreateUserIdMappingResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' }
  | { status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR'; doesSuperTokensUserIdExist: boolean; doesExternalUserIdExist: boolean };

/**
 * `POST /recipe/userid/map` (SPEC §12): maps a login method to the id the previous provider gave
 * it, with the core's checks in the core's order: the external id already mapped (`force` does not
 * skip this); the recipe user id unknown; unless `force`, an external id that is some login
 * method's recipe user id (one id would name two users) and a recipe user id that already has
 * metadata, roles or TOTP data (it would be stranded under an id the outside stops using); the
 * login method already mapped. The external id's guard is written in the same transaction as the
 * login method, so two requests racing for one external id make one mapping.
 */
export function createUserIdMapping(
  deps: Pick<Deps, 'users' | 'metadata' | 'roles' | 'totpUsage'>,
  input: CreateUserIdMappingInput,
): Promise<CreateUserIdMappingResult> {
  return retryOnRace<CreateUserIdMappingResult>('Mapping the user id', async () => {
    const existing = await findMapping(deps, input.externalUserId, 'EXTERNAL');
    if (existing) {
      return {
        status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
        doesSuperTokensUserIdExist: existing.loginMethod.userId === input.superTokensUserId,
        doesExternalUserIdExist: true,
      };
    }
    const user = await deps.users.getUser(input.superTokensUserId, 'SUPERTOKENS');
    const lm = user?.loginMethods.find((m) => m.userId === input.superTokensUserId);
    if (!user || !lm) return { status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' };
    if (!input.force) {
      if (await isRecipeUserId(deps, input.externalUserId)) {
        throw new InvalidInputError('Cannot create a userId mapping where the externalId is also a SuperTokens userID');
      }
      await assertNoDataUnder(deps, input.superTokensUserId);
    }
    if (lm.externalUserId !== undefined) {
      return { status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR', doesSuperTokensUserIdExist: true, doesExternalUserIdExist: false };
    }
    const { externalUserIdInfo: _old, ...rest } = lm;
    const after = {
      ...rest,
      externalUserId: input.externalUserId,
      ...(input.externalUserIdInfo !== undefined ? { externalUserIdInfo: input.externalUserIdInfo } : {}),
    };
    const result = await updateLoginMethod(deps, { user, loginMethod: lm }, after);
    // IDENTITY_TAKEN: a concurrent request mapped the external id first; STALE: the user changed.
    // The next round reads again and answers which.
    return result.status === 'OK' ? { status: 'OK' } : undefined;
  });
}
