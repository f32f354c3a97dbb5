import { bulkLaneOf } from '../../storage/keys';
import type { RoleRecord } from '../../storage/model';
import type { Deps } from '../deps';

/** A promise kept under `key`, made once; a rejected one is dropped, so the next call tries again. */
function once<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let found = cache.get(key);
  if (!found) {
    found = make();
    cache.set(key, found);
    found.catch(() => cache.delete(key));
  }
  return found;
}

/**
 * The roles one worker invocation gives (SPEC §15: `userRoles` of bulk users), read once per
 * invocation and checked on their lanes' copies (`BulkWorkerStore.ensureRoleLane`). A role given
 * to every user of a migration is then read about once per invocation rather than once per user,
 * and no import transaction touches the role's own item: it would be one key written by every
 * import at once (a partition takes 1,000 write units per second, and transactions on one item
 * cancel each other).
 */
export class LaneRoles {
  private readonly current = new Map<string, Promise<RoleRecord | undefined>>();
  private readonly ready = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: Pick<Deps, 'roleReader' | 'bulkWorker'>) {}

  /**
   * The current incarnation of `role`, with its copy in the lane of row `rowId` made; `undefined`
   * when the role does not exist (E034).
   */
  async forRow(role: string, rowId: string): Promise<RoleRecord | undefined> {
    const lane = bulkLaneOf(rowId) ?? 0;
    const readyKey = `${lane}\u0000${role}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const record = await once(this.current, role, () => this.deps.roleReader.getRole(role));
      if (!record) return undefined;
      if (await once(this.ready, readyKey, () => this.deps.bulkWorker.ensureRoleLane(record, lane))) return record;
      // The role changed since it was read (removed, or removed and made again): read it again.
      this.current.delete(role);
      this.ready.delete(readyKey);
    }
    return undefined;
  }

  /** Forgets every role read: an import found one changed under it. */
  forget(): void {
    this.current.clear();
    this.ready.clear();
  }
}
