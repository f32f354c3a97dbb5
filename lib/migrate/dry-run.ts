import { identityKeys } from './collisions';
import type { BulkUserInput, MappedUser, ReportEntry } from './model';
import { entryOf } from './report';
import type { ServiceClient, ServiceUser } from './service';

/**
 * The dry run's look at the service (SPEC §17 `--dry-run`): the users it already holds, read into
 * memory when there are few enough, and each user's predicted outcome against them.
 */

/** A dry run compares with what the service holds when it holds at most this many users (they are read into memory). */
const DRY_RUN_MAX_SERVICE_USERS = 200_000;

/** What the service already holds, for the dry run: user ids and identities. */
export interface Existing {
  readonly ids: Set<string>;
  readonly keys: Map<string, string>;
}

export async function readExisting(service: ServiceClient, tenant: string, log: (line: string) => void): Promise<Existing | undefined> {
  const count = await service.userCount(tenant);
  if (count > DRY_RUN_MAX_SERVICE_USERS) {
    log(`dry run: the service holds ${count} users in tenant ${tenant}; users already there are not looked up (more than ${DRY_RUN_MAX_SERVICE_USERS}).`);
    return undefined;
  }
  const existing: Existing = { ids: new Set(), keys: new Map() };
  for await (const user of service.users(tenant)) {
    existing.ids.add(user.id);
    for (const key of identityKeys(asBulkUser(user))) existing.keys.set(key, user.id);
  }
  return existing;
}

function asBulkUser(user: ServiceUser): BulkUserInput {
  return {
    loginMethods: user.loginMethods.map((lm, i) => ({
      recipeId: lm.recipeId,
      tenantIds: [...lm.tenantIds],
      isVerified: false,
      isPrimary: user.isPrimaryUser === true && i === 0,
      email: lm.email,
      phoneNumber: lm.phoneNumber,
      thirdPartyId: lm.thirdParty?.id,
      thirdPartyUserId: lm.thirdParty?.userId,
    })),
  };
}

export function dryRunEntry(m: MappedUser, existing: Existing | undefined): ReportEntry {
  const externalId = m.user!.externalUserId;
  if (existing && externalId !== undefined && existing.ids.has(externalId)) {
    return entryOf(m, { outcome: 'imported', userId: externalId, alreadyInService: true });
  }
  for (const key of identityKeys(m.user!)) {
    const holder = existing?.keys.get(key);
    if (holder !== undefined) {
      const [tenant, what] = key.split('\u0000');
      return entryOf(m, {
        outcome: 'failed',
        reasonCode: 'conflict',
        reason: `${what} already belongs to user ${holder} of the service in tenant ${tenant}`,
        needsAction: true,
      });
    }
  }
  return entryOf(m, { outcome: 'imported', ...(externalId !== undefined ? { userId: externalId } : {}) });
}
