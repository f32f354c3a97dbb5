import type { RecipeId } from '../../storage/model';
import type { FoundLogin } from '../../storage/ports/users';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from './api-user';
import { findLogin } from './find-login';

/** How `GET /recipe/user` names the user it wants. */
export type RecipeUserLookup =
  | { readonly by: 'userId'; readonly userId: string }
  | { readonly by: 'email'; readonly email: string }
  | { readonly by: 'phoneNumber'; readonly phoneNumber: string }
  | { readonly by: 'thirdParty'; readonly thirdPartyId: string; readonly thirdPartyUserId: string };

export type GetRecipeUserResult =
  | { status: 'OK'; user: ApiUser }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'UNKNOWN_EMAIL_ERROR' }
  | { status: 'UNKNOWN_PHONE_NUMBER_ERROR' }
  | { status: 'UNKNOWN_THIRD_PARTY_USER_ERROR' };

const NOT_FOUND: Record<RecipeUserLookup['by'], Exclude<GetRecipeUserResult, { status: 'OK' }>> = {
  userId: { status: 'UNKNOWN_USER_ID_ERROR' },
  email: { status: 'UNKNOWN_EMAIL_ERROR' },
  phoneNumber: { status: 'UNKNOWN_PHONE_NUMBER_ERROR' },
  thirdParty: { status: 'UNKNOWN_THIRD_PARTY_USER_ERROR' },
};

/**
 * Reads a login method of one recipe by its id, email, phone or third-party identity (within the
 * tenant), and answers its user (the primary user when it is linked).
 */
export async function getRecipeUser(deps: Pick<Deps, 'users'>, tenantId: string, recipeId: RecipeId, lookup: RecipeUserLookup): Promise<GetRecipeUserResult> {
  let ref: string | FoundLogin | undefined;
  switch (lookup.by) {
    case 'userId':
      ref = lookup.userId;
      break;
    case 'email':
      ref = recipeId === 'thirdparty' ? undefined : await deps.users.getLoginByEmail(tenantId, recipeId, lookup.email);
      break;
    case 'phoneNumber':
      ref = await deps.users.getLoginByPhone(tenantId, lookup.phoneNumber);
      break;
    case 'thirdParty':
      ref = await deps.users.getLoginByThirdParty(tenantId, lookup.thirdPartyId, lookup.thirdPartyUserId);
      break;
  }
  const login = await findLogin(deps, ref);
  const lm = login?.loginMethod;
  if (!login || !lm || lm.recipeId !== recipeId || (lookup.by !== 'userId' && !lm.tenantIds.includes(tenantId))) {
    return NOT_FOUND[lookup.by];
  }
  return { status: 'OK', user: toApiUser(login.user) };
}
