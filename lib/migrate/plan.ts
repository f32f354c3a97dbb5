import { CollisionIndex } from './collisions';
import { InterruptedBeforeWriting } from './errors';
import type { MappedUser, Source } from './model';

/**
 * The first read of an export (SPEC §17), shared by the import (`run.ts`) and verify
 * (`verify.ts`): every user mapped, its identities into the collision index, and the counts both
 * need. Nothing is written and the service is not asked. The second read is `decideUsers`
 * (`collisions.ts`), which gives every user its verdict the same way for both.
 */

/** Where a run is, for the progress bar or line. */
export interface Progress {
  readonly phase: 'scan' | 'import' | 'wait' | 'verify' | 'extra';
  readonly done: number;
  readonly total: number;
}

export interface Scan {
  readonly index: CollisionIndex;
  /** Source users read. */
  readonly total: number;
  /** Roles the mapped users name, when the source creates missing ones (Auth0's `app_metadata.roles`). */
  readonly roles: ReadonlySet<string>;
  /** Users with an SMS second factor carried as a phone login method (SPEC §20). */
  readonly smsUsers: number;
  /** Users carrying a passkey (a webauthn login method, SPEC §21): the service's RP ids are asked only when there are some. */
  readonly passkeyUsers: number;
}

/**
 * `needs`: whether a user will cost requests (the import's re-run: not one the ledger answers);
 * only those count towards `roles`, `smsUsers` and `passkeyUsers`. Absent: every user.
 */
export async function scanExport(source: Source, signal: AbortSignal, onProgress?: (p: Progress) => void, needs?: (m: MappedUser) => boolean): Promise<Scan> {
  const index = new CollisionIndex();
  const roles = new Set<string>();
  let total = 0;
  let smsUsers = 0;
  let passkeyUsers = 0;
  for await (const m of source.users()) {
    if (signal.aborted) throw new InterruptedBeforeWriting();
    total++;
    index.add(m);
    if (!needs || needs(m)) {
      if (m.smsFactors && m.smsFactors.phones.length > 0) smsUsers++;
      if (Array.isArray(m.user?.loginMethods) && m.user.loginMethods.some((lm) => lm?.recipeId === 'webauthn')) passkeyUsers++;
      if (source.createsRoles) for (const r of m.user?.userRoles ?? []) roles.add(r.role);
    }
    if (total % 10_000 === 0) onProgress?.({ phase: 'scan', done: total, total: 0 });
  }
  return { index, total, roles, smsUsers, passkeyUsers };
}
