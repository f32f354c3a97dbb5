import { canonical } from '../canonical-json';
import type { LedgerEntry, Ledger } from './ledger';
import type { BulkLoginMethodInput, BulkUserInput, MappedUser, ReportEntry, Warning } from './model';
import { passkeyNotMigrated } from './passkeys';
import type { ReportWriter } from './report';
import { ServiceError, type ServiceClient } from './service';
import { methodKey, serviceMethodKey, type ServiceLoginMethod, type ServiceUserView } from './verify-compare';

/**
 * Sync (SPEC §17c): a user the ledger holds whose export changed since is read from the service
 * (`GET /user/id`, and its metadata and roles where the ledger or the export has some) and
 * compared three ways, field by field: the ledger (what was sent), the new export, the service.
 * A field the export did not change is never written. One it changed is written where the
 * service still holds the ledger's value (or already holds the export's: nothing to write);
 * where the service changed it too, it is left as the service has it and reported `conflict`,
 * unless `--prefer export`. Fields:
 * - a password hash (by its digest): `POST /<t>/recipe/user/passwordhash/import`; the service
 *   never shows a hash, so it is taken to hold the ledger's;
 * - a verified flag: a token made and consumed, or `POST /recipe/user/email/verify/remove`;
 * - each metadata key: one `PUT /recipe/user/metadata` (a dropped key set to `null`: removed);
 * - each role in the tenant: `PUT`/`POST …/recipe/user/role[/remove]` (a role is created when missing);
 * - a login method new in the export (a social identity, a password, a passkey's webauthn login
 *   method): added and linked to the user (`addMethod`).
 * A login method the export dropped, a passwordless one it added, and any other field the export
 * changed (a creation time, a TOTP device), is not written: listed in `differences`. So is a
 * passkey added to a webauthn login method the service already holds: the service adds a passkey
 * to a login method only by a registration ceremony, with the authenticator (SPEC §21), so it is
 * also a `passkey-not-migrated` warning. A passkey's counter and transports are the
 * authenticator's: a change of them is no difference.
 */

export interface SyncRun {
  readonly service: ServiceClient;
  readonly tenant: string;
  readonly preferExport: boolean;
  /** False in a dry run: everything is read and decided, nothing written. */
  readonly write: boolean;
  readonly concurrency: number;
  readonly report: ReportWriter;
  readonly ledger: Ledger;
  /** Stages a user again (the app removed it, and `--prefer export`). */
  readonly restage: (m: MappedUser, sent: string) => Promise<void>;
}

type Conflict = NonNullable<ReportEntry['conflicts']>[number];
type Difference = NonNullable<ReportEntry['differences']>[number];
/** A login method as the ledger keeps it: the hash as a digest. */
type KeptMethod = Omit<BulkLoginMethodInput, 'passwordHash' | 'credentials'> & {
  passwordHashDigest?: string;
  credentials?: { credentialId: string; publicKeyDigest?: string; rpId?: string }[];
};
interface Kept {
  userMetadata?: Record<string, unknown>;
  userRoles?: { role: string; tenantIds: string[] }[];
  loginMethods: KeptMethod[];
  [key: string]: unknown;
}

const same = (a: unknown, b: unknown) => canonical(a ?? null) === canonical(b ?? null);

const rolesIn = (user: Kept, tenant: string): Set<string> =>
  new Set((user.userRoles ?? []).filter((r) => !Array.isArray(r.tenantIds) || r.tenantIds.length === 0 || r.tenantIds.includes(tenant)).map((r) => r.role));

const methodsOf = (user: Kept) => new Map((Array.isArray(user.loginMethods) ? user.loginMethods : []).map((m) => [methodKey(m), m]));

/** Fields of a login method the sync writes; the rest of it changing is a difference. */
const SYNCED_METHOD_FIELDS = ['isVerified', 'passwordHashDigest', 'hashingAlgorithm', 'credentials'];

/** A passkey as sync compares it: its id, key and RP id (its counter and transports are the authenticator's). */
const passkeysOf = (m: KeptMethod) => new Map((m.credentials ?? []).map((c) => [c.credentialId, canonical([c.publicKeyDigest, c.rpId])]));
/** The body of `passwordhash/import` for a login method's email and hash. */
const hashImport = (lm: BulkLoginMethodInput) => ({
  email: lm.email,
  passwordHash: lm.passwordHash,
  ...(lm.hashingAlgorithm ? { hashingAlgorithm: lm.hashingAlgorithm } : {}),
});
const without = (o: object, keys: readonly string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/** The three-way decision of one field, and its writes, gathered for one user. */
class Decision {
  readonly changed: string[] = [];
  readonly conflicts: Conflict[] = [];
  readonly differences: Difference[] = [];
  readonly warnings: Warning[] = [];
  readonly writes: (() => Promise<void>)[] = [];

  constructor(private readonly preferExport: boolean) {}

  /** `service` undefined: the service cannot show it (a hash): taken to hold the ledger's value. */
  field(field: string, ledger: unknown, exported: unknown, service: unknown, write: () => Promise<void>, shown = true): void {
    if (same(ledger, exported)) return;
    const held = service === undefined ? ledger : service;
    if (same(held, exported)) return;
    if (same(held, ledger) || this.preferExport) {
      this.changed.push(field);
      this.writes.push(write);
    } else {
      this.conflicts.push(
        shown ? { field, ledger: ledger ?? null, export: exported ?? null, service: held ?? null } : { field, ledger: '…', export: '…', service: '…' },
      );
    }
  }
}

export class Syncer {
  private readonly inflight = new Set<Promise<void>>();

  constructor(private readonly run: SyncRun) {}

  /** Syncs one user (a few at once), reporting it and recording it in the ledger. */
  async add(m: MappedUser, known: LedgerEntry, sent: string): Promise<void> {
    while (this.inflight.size >= this.run.concurrency) await Promise.race(this.inflight);
    const p: Promise<void> = this.one(m, known, sent).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  async drain(): Promise<void> {
    await Promise.all(this.inflight);
    this.run.ledger.flush();
  }

  private async one(m: MappedUser, known: LedgerEntry, sent: string): Promise<void> {
    const base = { sourceId: m.sourceId, userId: known.userId, ...(m.warnings.length > 0 ? { warnings: m.warnings } : {}) };
    let entry: ReportEntry | 'restaged';
    try {
      entry = await this.decide(m, known, sent, base);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      entry = { ...base, outcome: 'failed', reasonCode: 'service-error', reason: `sync failed: ${err.message}; run the command again`, needsAction: true };
    }
    if (entry === 'restaged') return;
    this.run.report.add(entry);
    if (entry.outcome !== 'failed' && this.run.write) this.run.ledger.record(m.sourceId, known.userId, sent);
  }

  private async decide(
    m: MappedUser,
    known: LedgerEntry,
    sent: string,
    base: Pick<ReportEntry, 'sourceId' | 'userId' | 'warnings'>,
  ): Promise<ReportEntry | 'restaged'> {
    const { service, tenant } = this.run;
    const ledger = JSON.parse(known.sent()) as Kept;
    const exported = JSON.parse(sent) as Kept;
    const id = new URLSearchParams({ userId: known.userId });
    const found = await service.ok('GET', `/user/id?${id}`);
    if (found.status !== 'OK') {
      // The app removed the user: its newer state wins, unless --prefer export (imported again).
      if (this.run.preferExport && this.run.write) {
        await this.run.restage(m, sent);
        return 'restaged';
      }
      const conflicts = [{ field: 'user', ledger: known.userId, export: known.userId, service: null }];
      return { ...base, outcome: 'conflict', conflicts, needsAction: true };
    }
    const held = found.user as ServiceUserView;
    const readMetadata = Object.keys(ledger.userMetadata ?? {}).length + Object.keys(exported.userMetadata ?? {}).length > 0;
    const readRoles = rolesIn(ledger, tenant).size + rolesIn(exported, tenant).size > 0;
    const metadata = readMetadata ? ((await service.ok('GET', `/recipe/user/metadata?${id}`)).metadata as Record<string, unknown>) : {};
    const roles = new Set<string>(readRoles ? (await service.ok('GET', `/${tenant}/recipe/user/roles?${id}`)).roles : []);

    const d = new Decision(this.run.preferExport);
    this.methods(d, ledger, exported, m.user!, held);
    const update: Record<string, unknown> = {};
    for (const key of new Set([...Object.keys(ledger.userMetadata ?? {}), ...Object.keys(exported.userMetadata ?? {})])) {
      const value = exported.userMetadata?.[key] ?? null;
      d.field(`metadata.${key}`, ledger.userMetadata?.[key], value, metadata[key] ?? null, async () => {
        update[key] = value;
      });
    }
    const [before, after] = [rolesIn(ledger, tenant), rolesIn(exported, tenant)];
    for (const role of [...new Set([...before, ...after])].sort()) {
      d.field(`roles.${role}`, before.has(role), after.has(role), roles.has(role), () => this.role(known.userId, role, after.has(role)));
    }
    const rest = (u: Kept) => without(u, ['loginMethods', 'userMetadata', 'userRoles']);
    for (const key of new Set([...Object.keys(rest(ledger)), ...Object.keys(rest(exported))])) {
      if (!same(rest(ledger)[key], rest(exported)[key]))
        d.differences.push({ field: key, export: key === 'totpDevices' ? '…' : (rest(exported)[key] ?? null), service: null });
    }

    if (this.run.write) {
      for (const write of d.writes) await write();
      if (Object.keys(update).length > 0) await service.ok('PUT', '/recipe/user/metadata', { userId: known.userId, metadataUpdate: update });
    }
    const warnings = [...(base.warnings ?? []), ...d.warnings];
    const extra = {
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(d.changed.length > 0 ? { changed: d.changed } : {}),
      ...(d.conflicts.length > 0 ? { conflicts: d.conflicts } : {}),
      ...(d.differences.length > 0 ? { differences: d.differences } : {}),
    };
    if (d.conflicts.length > 0) return { ...base, outcome: 'conflict', ...extra, needsAction: true };
    return { ...base, outcome: d.changed.length > 0 ? 'updated' : 'imported', ...extra };
  }

  /** Each login method on all three sides: its hash and verified flag; one on some sides only is a difference. */
  private methods(d: Decision, ledger: Kept, exported: Kept, user: BulkUserInput, held: ServiceUserView): void {
    const [l, e] = [methodsOf(ledger), methodsOf(exported)];
    const s = new Map(held.loginMethods.map((lm) => [serviceMethodKey(lm), lm]));
    const raw = new Map(user.loginMethods.map((lm) => [methodKey(lm), lm]));
    const keys = (map: Map<string, unknown>) => [...map.keys()].sort();
    // A login method the export dropped is never removed: a difference.
    if ([...l.keys()].some((key) => !e.has(key))) d.differences.push({ field: 'loginMethods', export: keys(e), service: keys(s) });
    for (const key of e.keys()) {
      if (l.has(key)) continue;
      // A new login method: added and linked to the user, unless the service has it already.
      const lm = raw.get(key)!;
      if (lm.recipeId === 'passwordless') d.differences.push({ field: `loginMethods[${key}]`, export: 'added', service: s.has(key) ? 'present' : null });
      else d.field(`loginMethods[${key}]`, null, 'present', s.has(key) ? 'present' : null, () => this.addMethod(held, lm, key));
    }
    for (const [key, before] of l) {
      const after = e.get(key);
      if (!after) continue;
      const lm = s.get(key);
      if (!lm) {
        // The app removed this login method: a change the export made to it is a conflict.
        if (!same(before, after)) d.field(`loginMethods[${key}]`, 'present', 'changed', null, async () => undefined);
        continue;
      }
      if (after.passwordHashDigest !== undefined) {
        const hash = raw.get(key)!;
        d.field(`loginMethods[${key}].password`, before.passwordHashDigest, after.passwordHashDigest, undefined, () => this.password(hash), false);
      }
      if (after.email !== undefined) d.field(`loginMethods[${key}].verified`, before.isVerified, after.isVerified, lm.verified, () => this.verified(lm, after));
      if (after.recipeId === 'webauthn') this.passkeys(d, key, before, after, lm);
      const other = (x: KeptMethod) => without(x, SYNCED_METHOD_FIELDS);
      if (!same(other(before), other(after))) d.differences.push({ field: `loginMethods[${key}]`, export: other(after), service: null });
    }
  }

  /**
   * The passkeys of a webauthn login method on all three sides: one the export added that the
   * service lacks cannot be added (a warning and a difference); one it dropped is never removed,
   * and one whose key or RP id changed is never replaced (differences).
   */
  private passkeys(d: Decision, key: string, before: KeptMethod, after: KeptMethod, held: ServiceLoginMethod): void {
    const [l, e] = [passkeysOf(before), passkeysOf(after)];
    if (same([...l].sort(), [...e].sort())) return;
    const service = new Set(held.webauthn?.credentialIds ?? []);
    const added = [...e.keys()].filter((id) => !l.has(id) && !service.has(id));
    for (const id of added) {
      d.warnings.push(
        passkeyNotMigrated(
          id,
          'added since the last run to a webauthn login method the service holds, which takes a new passkey only by a registration ceremony with the authenticator',
        ),
      );
    }
    const changed = [...e].some(([id, v]) => l.has(id) && l.get(id) !== v);
    if (added.length > 0 || changed || [...l.keys()].some((id) => !e.has(id)))
      d.differences.push({ field: `loginMethods[${key}].credentials`, export: [...e.keys()].sort(), service: [...service].sort() });
  }

  /**
   * Adds a third-party, password or webauthn login method (`POST /<t>/recipe/signinup`,
   * `passwordhash/import` then its verified flag, or `POST /bulk-import/import` of its passkeys)
   * and links it to the user, made primary first
   * when it is not (§11). An identity another user of the service holds fails the user.
   */
  private async addMethod(held: ServiceUserView & { isPrimaryUser?: boolean }, lm: BulkLoginMethodInput, key: string): Promise<void> {
    const { service, tenant } = this.run;
    let recipeUserId: string;
    if (lm.recipeId === 'webauthn') {
      // A passkey's login method: imported as the bulk import imports it (its checks, WEBAUTHN_RP_ID), a user of its own, then linked.
      const { isPrimary: _isPrimary, ...method } = lm;
      const res = await service.request('POST', '/bulk-import/import', { loginMethods: [method] });
      const imported = res.json?.user?.loginMethods?.[0]?.recipeUserId;
      if (res.status !== 200 || typeof imported !== 'string') {
        const errors: unknown = res.json?.errors;
        throw new ServiceError(`importing ${key} answered ${res.status}${Array.isArray(errors) ? `: ${errors.join(' ')}` : ''}`);
      }
      recipeUserId = imported;
    } else if (lm.recipeId === 'thirdparty') {
      const email = { id: lm.email, isVerified: lm.isVerified === true };
      const res = await service.ok('POST', `/${tenant}/recipe/signinup`, { thirdPartyId: lm.thirdPartyId, thirdPartyUserId: lm.thirdPartyUserId, email });
      if (res.status !== 'OK' || res.createdNewUser !== true) throw new ServiceError(`${key} belongs to user ${res.user?.id} of the service`);
      recipeUserId = res.recipeUserId;
    } else {
      // passwordhash/import replaces the hash of a password user that has the email: look first.
      const found = await service.ok('GET', `/${tenant}/users/by-accountinfo?${new URLSearchParams({ email: String(lm.email) })}`);
      const holder = (found.users as ServiceUserView[]).find((u) => u.loginMethods.some((m) => serviceMethodKey(m) === key));
      if (holder) throw new ServiceError(`${key} belongs to user ${holder.id} of the service`);
      const res = await service.ok('POST', `/${tenant}/recipe/user/passwordhash/import`, hashImport(lm));
      if (res.status !== 'OK' || res.didUserAlreadyExist !== false) throw new ServiceError(`${key} belongs to user ${res.user?.id} of the service`);
      recipeUserId = res.user.id;
      if (lm.isVerified) await this.verified({ recipeUserId, email: lm.email } as ServiceLoginMethod, { ...lm, isVerified: true });
    }
    if (held.isPrimaryUser !== true) {
      const primary = await service.ok('POST', '/recipe/accountlinking/user/primary', { recipeUserId: held.id });
      if (primary.status !== 'OK') throw new ServiceError(`making ${held.id} primary answered ${primary.status}`);
    }
    const linked = await service.ok('POST', '/recipe/accountlinking/user/link', { recipeUserId, primaryUserId: held.id });
    if (linked.status !== 'OK') throw new ServiceError(`linking ${key} answered ${linked.status}`);
  }

  private async password(lm: BulkLoginMethodInput): Promise<void> {
    const res = await this.run.service.ok('POST', `/${this.run.tenant}/recipe/user/passwordhash/import`, hashImport(lm));
    if (res.status !== 'OK') throw new ServiceError(`passwordhash/import answered ${res.status}`);
  }

  private async verified(lm: ServiceLoginMethod, after: KeptMethod): Promise<void> {
    const { service, tenant } = this.run;
    const who = { userId: lm.recipeUserId, email: lm.email ?? after.email };
    if (!after.isVerified) {
      await service.ok('POST', '/recipe/user/email/verify/remove', who);
      return;
    }
    const made = await service.ok('POST', `/${tenant}/recipe/user/email/verify/token`, who);
    if (made.status === 'EMAIL_ALREADY_VERIFIED_ERROR') return;
    const done = await service.ok('POST', `/${tenant}/recipe/user/email/verify`, { method: 'token', token: made.token });
    if (done.status !== 'OK') throw new ServiceError(`email verification answered ${done.status}`);
  }

  private async role(userId: string, role: string, add: boolean): Promise<void> {
    const { service, tenant } = this.run;
    if (!add) {
      await service.ok('POST', `/${tenant}/recipe/user/role/remove`, { userId, role });
      return;
    }
    let res = await service.ok('PUT', `/${tenant}/recipe/user/role`, { userId, role });
    if (res.status === 'UNKNOWN_ROLE_ERROR') {
      await service.createRole(role);
      res = await service.ok('PUT', `/${tenant}/recipe/user/role`, { userId, role });
    }
    if (res.status !== 'OK') throw new ServiceError(`adding role ${role} answered ${res.status}`);
  }
}

/** What `settleGone` needs: the service only with `--remove-gone` on a real run. */
export interface GoneRun {
  readonly service?: ServiceClient;
  readonly removeGone: boolean;
  readonly report: ReportWriter;
  readonly ledger: Ledger;
}

/**
 * A user the ledger holds that the export no longer imports (gone from it, or now skipped:
 * disabled, deleted, …): `gone-from-source`, left in the service (needs action), with no request;
 * with `--remove-gone` on a real run, removed with its linked accounts (`POST /user/remove`),
 * `removed`, and forgotten by the ledger.
 */
export async function settleGone(run: GoneRun, sourceId: string, userId: string, why: string): Promise<void> {
  if (!run.removeGone || !run.service) {
    const reason = `${why}; left in the service${run.removeGone ? ' (a dry run removes nothing)' : ' (--remove-gone removes it)'}`;
    run.report.add({ sourceId, userId, outcome: 'gone-from-source', reason, needsAction: true });
    return;
  }
  try {
    const res = await run.service.ok('POST', '/user/remove', { userId, removeAllLinkedAccounts: true });
    run.report.add({
      sourceId,
      userId,
      outcome: 'removed',
      reason: `${why}; removed from the service${res.didUserExist === false ? ' (it was not there)' : ''}`,
    });
    run.ledger.forget(sourceId);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    run.report.add({
      sourceId,
      userId,
      outcome: 'failed',
      reasonCode: 'service-error',
      reason: `removing it failed: ${err.message}; run the command again`,
      needsAction: true,
    });
  }
}
