import { accountInfoOf, loginMethodOf, sameAccountInfo, sameUserState, tenantsOf, withLoginMethod } from '../../storage/auth-user';
import type { AccountInfo, AuthUser } from '../../storage/model';
import { refOf } from '../../storage/ports/users';
import { retryOnRace, type Deps } from '../deps';

type Kind = AccountInfo['kind'];

/** The core's status when the tenant already has a login method of the same recipe with this account info. */
const DUPLICATE = {
  email: 'EMAIL_ALREADY_EXISTS_ERROR',
  phone: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
  thirdParty: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR',
} as const;

/** How the core's `AnotherPrimaryUserWith…AlreadyExistsException` names each kind in its reason. */
const IN_REASON: Record<Kind, string> = { email: 'email', phone: 'phone number', thirdParty: 'third party info' };

export type AssociateUserResult =
  | { status: 'OK'; wasAlreadyAssociated: boolean }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: (typeof DUPLICATE)[Kind] }
  | { status: 'ASSOCIATION_NOT_ALLOWED_ERROR'; reason: string };

type Refusal = Exclude<AssociateUserResult, { status: 'OK' } | { status: 'UNKNOWN_USER_ID_ERROR' }>;

/** The user holding an identity (a guard) in the tenant, where the core's check looks at any user: phone numbers and third-party identities. */
async function identityHolder(deps: Pick<Deps, 'users'>, tenantId: string, info: AccountInfo): Promise<string | undefined> {
  if (info.kind === 'phone') return (await deps.users.getLoginByPhone(tenantId, info.phoneNumber))?.userId;
  if (info.kind === 'thirdParty') {
    const found = await deps.users.getLoginByThirdParty(tenantId, info.thirdPartyId, info.thirdPartyUserId);
    return found && refOf(found).userId;
  }
  return undefined;
}

/**
 * What the core refuses before adding a primary user's login method to a tenant
 * (`Multitenancy.addUserIdToTenant`): for each email, then phone number, then third-party identity
 * of any of the user's login methods, another user in the tenant holding it (for an email, only a
 * primary user; for the others, any: the core's check) is `…_ALREADY_EXISTS_ERROR` when one of its
 * login methods in the tenant has it in the same recipe as one of this user's, else
 * `ASSOCIATION_NOT_ALLOWED_ERROR` naming that user's SuperTokens id (the core's reason). The
 * primary users' claims and the identities' guards in the tenant are read in one round trip; a user
 * they name only where one does.
 */
async function primaryUserRefusal(deps: Pick<Deps, 'users'>, user: AuthUser, tenantId: string): Promise<Refusal | undefined> {
  const infos: AccountInfo[] = [];
  for (const info of user.loginMethods.flatMap(accountInfoOf)) if (!infos.some((known) => sameAccountInfo(known, info))) infos.push(info);
  const order: Kind[] = ['email', 'phone', 'thirdParty'];
  infos.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const [claimants, holders] = await Promise.all([
    deps.users.getPrimaryHolders(infos.map((info) => ({ tenantId, info }))),
    Promise.all(infos.map((info) => identityHolder(deps, tenantId, info))),
  ]);
  const has = (lm: AuthUser['loginMethods'][number], info: AccountInfo) => accountInfoOf(lm).some((i) => sameAccountInfo(i, info));
  for (const [i, info] of infos.entries()) {
    for (const otherId of new Set([claimants[i], holders[i]])) {
      if (otherId === undefined || otherId === user.id) continue;
      const other = await deps.users.getUser(otherId, 'SUPERTOKENS');
      if (!other || !tenantsOf(other).includes(tenantId) || (info.kind === 'email' && !other.isPrimary)) continue;
      const sameRecipe = other.loginMethods.some(
        (theirs) =>
          theirs.tenantIds.includes(tenantId) && has(theirs, info) && user.loginMethods.some((ours) => ours.recipeId === theirs.recipeId && has(ours, info)),
      );
      if (sameRecipe) return { status: DUPLICATE[info.kind] };
      return { status: 'ASSOCIATION_NOT_ALLOWED_ERROR', reason: `Another primary user with ${IN_REASON[info.kind]} already exists: ${other.id}` };
    }
  }
  return undefined;
}

/**
 * `POST [/<t>]/recipe/multitenancy/tenant/user` (SPEC §22, the core's `AssociateUserToTenantAPI`):
 * adds the login method a recipe user id or external id names (not its linked siblings) to the
 * tenant, so it signs in there. A primary user is first checked as the core checks it
 * (`primaryUserRefusal`). The login method's items in the new tenant follow from it as every
 * user's do (`itemsOfUser`: its guards, entries and list place, the primary user's claims), and
 * are written in one transaction, each guard and claim only if free: of two login methods with one
 * email racing into a tenant, exactly one gets in, the other answers `EMAIL_ALREADY_EXISTS_ERROR`.
 */
export function associateUserToTenant(deps: Pick<Deps, 'users'>, tenantId: string, id: string): Promise<AssociateUserResult> {
  return retryOnRace<AssociateUserResult>('Associating the user with the tenant', async () => {
    const user = await deps.users.getUser(id);
    const lm = user && loginMethodOf(user, id);
    if (!user || !lm) return { status: 'UNKNOWN_USER_ID_ERROR' };
    if (user.isPrimary) {
      const refusal = await primaryUserRefusal(deps, user, tenantId);
      // Read after the user: it stands only if the user did not change meanwhile.
      if (refusal) return sameUserState(user, await deps.users.getUser(id)) ? refusal : undefined;
    }
    if (lm.tenantIds.includes(tenantId)) return { status: 'OK', wasAlreadyAssociated: true };
    const result = await deps.users.writeUsers([user], [withLoginMethod(user, { ...lm, tenantIds: [...lm.tenantIds, tenantId] })]);
    if (result.status === 'OK') return { status: 'OK', wasAlreadyAssociated: false };
    // Its identity in the tenant is another login method's (of its recipe: guards are per recipe).
    // Its external id and passkeys are guarded once per app, so the new tenant cannot take them.
    if (result.status === 'IDENTITY_TAKEN' && result.identity in DUPLICATE) return { status: DUPLICATE[result.identity as keyof typeof DUPLICATE] };
    // Changed since it was read, or a claim taken since the check: the next round tells which.
    return undefined;
  });
}
