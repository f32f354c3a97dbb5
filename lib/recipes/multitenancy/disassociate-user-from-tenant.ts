import { loginMethodOf, publicIdOf, withLoginMethod } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import { sessionIdOf } from '../session/revoke-of-users';
import { retryOnRace, type Deps } from '../deps';

export type DisassociateUserResult = { status: 'OK'; wasAssociated: boolean } | { status: 'UNKNOWN_USER_ID_ERROR' };

/**
 * `POST [/<t>]/recipe/multitenancy/tenant/user/remove` (SPEC §22, the core's
 * `DisassociateUserFromTenant`): the login method a recipe user id or external id names leaves the
 * tenant (its items there go in one transaction, derived as every user's are); left in no tenant,
 * it stays a user (`tenantIds: []`, found by its ids only) until associated again or removed. Then,
 * as the core (`AuthRecipe.deleteNonAuthRecipeUser`), its role assignments and sessions in the
 * tenant go, under the id the app knows it by (its external id where mapped); `wasAssociated` is
 * also true when only those were there. They go after the user's write: a retry of a call that
 * stopped in between finds the login method out of the tenant and removes them then.
 */
export async function disassociateUserFromTenant(
  deps: Pick<Deps, 'users' | 'roles' | 'sessions'>,
  tenantId: string,
  id: string,
): Promise<DisassociateUserResult> {
  let named: UserRecord | undefined;
  const answer = await retryOnRace<DisassociateUserResult>('Taking the login method out of the tenant', async () => {
    const user = await deps.users.getUser(id);
    const lm = user && loginMethodOf(user, id);
    if (!user || !lm) return { status: 'UNKNOWN_USER_ID_ERROR' };
    named = lm;
    if (!lm.tenantIds.includes(tenantId)) return { status: 'OK', wasAssociated: false };
    const after = withLoginMethod(user, { ...lm, tenantIds: lm.tenantIds.filter((t) => t !== tenantId) });
    return (await deps.users.writeUsers([user], [after])).status === 'OK' ? { status: 'OK', wasAssociated: true } : undefined;
  });
  if (answer.status !== 'OK' || !named) return answer;
  const lm = named;
  const [hadRoles, sessions] = await Promise.all([
    deps.roles.removeUserRolesInTenant(tenantId, publicIdOf(lm)),
    deps.sessions.sessionsOfUsers([sessionIdOf(lm)], tenantId, Number.NEGATIVE_INFINITY),
  ]);
  const removed = await deps.sessions.removeSessions(sessions.map((s) => s.handle));
  return { status: 'OK', wasAssociated: answer.wasAssociated || hadRoles || removed.length > 0 };
}
