import type { AuthUser, UserRecord } from '../../storage/model';
import type { UserIdKind } from '../../storage/ports/users';
import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';

/** A login method with an external user id, and its user. */
export interface Mapping {
  readonly user: AuthUser;
  readonly loginMethod: UserRecord & { readonly externalUserId: string };
}

const mapped = (lm: UserRecord | undefined): lm is UserRecord & { externalUserId: string } => lm?.externalUserId !== undefined;

/**
 * The mapping a user id names (SPEC §12), as the core finds it: `SUPERTOKENS`, the mapping of the
 * login method with that recipe user id; `EXTERNAL`, the login method mapped to that external id;
 * `ANY`, either, the SuperTokens id first (of an id that is both, that mapping wins).
 */
export async function findMapping(deps: Pick<Deps, 'users'>, userId: string, type: UserIdKind): Promise<Mapping | undefined> {
  if (type !== 'EXTERNAL') {
    const user = await deps.users.getUser(userId, 'SUPERTOKENS');
    const lm = user?.loginMethods.find((m) => m.userId === userId);
    if (user && mapped(lm)) return { user, loginMethod: lm };
    if (type === 'SUPERTOKENS') return undefined;
  }
  const user = await deps.users.getUser(userId, 'EXTERNAL');
  const lm = user?.loginMethods.find((m) => m.externalUserId === userId);
  return user && mapped(lm) ? { user, loginMethod: lm } : undefined;
}

/** Whether a login method has this recipe user id (what the core calls a SuperTokens user id). */
export async function isRecipeUserId(deps: Pick<Deps, 'users'>, id: string): Promise<boolean> {
  const user = await deps.users.getUser(id, 'SUPERTOKENS');
  return user?.loginMethods.some((lm) => lm.userId === id) ?? false;
}

/**
 * The core's 400 when a user id has data the app keeps under it (metadata, roles, TOTP devices or
 * attempts), so mapping it (or removing its mapping) would strand that data under an id the
 * outside no longer uses. The core's order of checks.
 */
export async function assertNoDataUnder(deps: Pick<Deps, 'metadata' | 'roles' | 'totpUsage'>, userId: string): Promise<void> {
  if (await deps.metadata.getMetadata(userId)) throw new InvalidInputError('UserId is already in use in UserMetadata recipe');
  if ((await deps.roles.countAssignments(userId)) > 0) throw new InvalidInputError('UserId is already in use in UserRoles recipe');
  if (await deps.totpUsage.hasData(userId)) throw new InvalidInputError('UserId is already in use in TOTP recipe');
}
