import { randomUUID } from 'node:crypto';
import type { Connections } from './connections';
import { decideUsers, type DuplicatesMode } from './collisions';
import { dryRunEntry, readExisting } from './dry-run';
import { withoutServiceHeldPhones } from './mfa';
import type { MappedUser, PasskeyPlanLike, ReportEntry, Source } from './model';
import { scanExport, type Progress } from './plan';
import type { Ledger } from './ledger';
import { digestOfSent, sentOf } from './ledger';
import { entryOf, type ReportWriter } from './report';
import { setUpConnections } from './sso-setup';
import { ServiceError, type ServiceClient } from './service';
import { settleGone, Syncer } from './sync';
import { eventBodyBytes } from '../http/body-size';
import { IDEMPOTENCY_KEY_HEADER } from '../http/bulkimport-input';
import { sleep } from '../pool';

/**
 * One migration run (SPEC §17): read the source twice (first to count and hash every identity,
 * then to decide and send), stage users through the bulk-import API in batches that fit its limits, and follow the
 * staged rows until the worker has imported or failed each one. Every source user ends as one
 * report entry; imported users also go into the ledger, so a re-run skips them.
 */

export interface MigrationRun {
  readonly source: Source;
  /** Absent with `--offline` (a dry run that asks the service nothing). */
  readonly service?: ServiceClient;
  readonly dryRun: boolean;
  readonly duplicates: DuplicatesMode;
  readonly concurrency: number;
  readonly report: ReportWriter;
  readonly ledger: Ledger;
  readonly signal: AbortSignal;
  readonly tenant: string;
  readonly onProgress?: (p: Progress) => void;
  readonly log: (line: string) => void;
  /** Facts for the report's head (source, options). */
  readonly about: Record<string, unknown>;
  /** Rows left `NEW` or `PROCESSING` on the service, at most: staging waits for the worker beyond it. */
  readonly window?: number;
  readonly pollMs?: number;
  /** Users per staging request (the service takes 10,000) and bytes per request as the service counts them (it takes 6 MB). */
  readonly batchUsers?: number;
  readonly batchBytes?: number;
  /** `--connections` (SPEC §22): its tenants and the source's providers are set up before the first user. */
  readonly connections?: Connections;
  /** `--overwrite-providers`: a provider the service holds under the same id is replaced. */
  readonly overwriteProviders?: boolean;
  /** `--prefer export`: where the export and the service both changed a field, the export's value is written (SPEC §17c). */
  readonly preferExport?: boolean;
  /** `--remove-gone`: users the ledger holds and the export no longer imports are removed from the service. */
  readonly removeGone?: boolean;
  /** The passkey plan (SPEC §21): the service's RP ids are asked only when a user that costs requests carries a passkey. */
  readonly passkeys?: Pick<PasskeyPlanLike, 'ask' | 'remember' | 'answer'>;
}

export interface RunResult {
  readonly summary: ReportWriter['summary'];
  readonly exitCode: 0 | 1;
  readonly interrupted: boolean;
}

/** Every this many polls, a full one lists the rows left (the others read counts)... */
const FULL_POLL_EVERY = 5;
/** ...while at most this many rows are left; with more, every `FULL_POLL_EVERY_BUSY` polls. */
const FULL_POLL_MAX_BACKLOG = 2_000;
const FULL_POLL_EVERY_BUSY = 30;

const INTERRUPTED_UNSENT = 'not sent: the run was interrupted; run the command again';
const INTERRUPTED_PENDING = 'staged, not yet confirmed when the run was interrupted; run the command again (no duplicate is created)';

/** A staged user the worker has not finished yet. */
/** A user to stage, with what the ledger is to keep of it (`sentOf` of the user as mapped from the export). */
type Outgoing = MappedUser & { readonly sent: string };

interface Pending {
  readonly mapped: Outgoing;
  readonly userId: string;
  /** Every login method's new id: the row's id is one of them. */
  readonly ids: readonly string[];
  readonly stagedAt: number;
  /** Polls in a row that did not see its row. */
  absent: number;
}

/**
 * Follows staged rows. Each poll reads the counts of `NEW` and `PROCESSING` rows and lists the
 * `FAILED` ones (ours are reported and removed). When nothing is left `NEW` or `PROCESSING`, every
 * user staged before the poll began is imported (the counts are exact, SPEC §15). While rows are
 * left, a full poll every few seconds lists them, and a user whose row is in no list twice in a
 * row is imported: that keeps the ledger current however long the run, for a re-run after a crash.
 */
class Reconciler {
  private readonly byRow = new Map<string, Pending>();
  private readonly pending = new Set<Pending>();
  /** Rows `NEW` or `PROCESSING` at the last poll (anyone's): the backlog staging waits on. */
  backlog = 0;
  /** Set once a staging request is sent: polls begin. */
  active = false;

  constructor(
    private readonly service: ServiceClient,
    private readonly report: ReportWriter,
    private readonly ledger: Ledger,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** Users staged and very likely imported already (for the progress line only). */
  get likelyDone(): number {
    return Math.max(0, this.pending.size - this.backlog);
  }

  track(mapped: Outgoing, staged: { userId: string; loginMethods: { userId: string }[] }): void {
    const p: Pending = { mapped, userId: staged.userId, ids: staged.loginMethods.map((l) => l.userId), stagedAt: Date.now(), absent: 0 };
    this.pending.add(p);
    for (const id of p.ids) this.byRow.set(id, p);
  }

  private settle(p: Pending, entry: ReportEntry): void {
    this.pending.delete(p);
    for (const id of p.ids) this.byRow.delete(id);
    this.report.add(entry);
  }

  private imported(p: Pending): void {
    this.ledger.record(p.mapped.sourceId, p.userId, p.mapped.sent);
    this.settle(p, entryOf(p.mapped, { outcome: 'imported', userId: p.userId }));
  }

  async poll(full: boolean): Promise<void> {
    const started = Date.now();
    const count = async (status: string) => (await this.service.ok('GET', `/bulk-import/users/count?status=${status}`)).count as number;
    const [fresh, processing] = await Promise.all([count('NEW'), count('PROCESSING')]);
    this.backlog = fresh + processing;
    if (this.pending.size === 0) return;
    // Statuses only move forward (NEW → PROCESSING → FAILED or gone), read in that order: a row
    // that exists is seen in one of the lists.
    const seen = new Set<string>();
    const listing = full && this.backlog > 0;
    if (listing) for (const status of ['NEW', 'PROCESSING'] as const) for (const row of await this.service.rows(status)) seen.add(row.id);
    const failed = (await this.service.rows('FAILED')).filter((row) => this.byRow.has(row.id));
    for (const row of failed) {
      const p = this.byRow.get(row.id)!;
      const text = row.errorMessage ?? 'failed without a message';
      const code = /^(E\d{3})\b/.exec(text)?.[1] ?? 'import-failed';
      this.settle(p, entryOf(p.mapped, { outcome: 'failed', userId: p.userId, reasonCode: code, reason: text, needsAction: true }));
    }
    if (failed.length > 0) await this.service.removeRows(failed.map((r) => r.id));
    for (const p of [...this.pending]) {
      if (p.stagedAt >= started) continue;
      if (this.backlog === 0) {
        this.imported(p);
      } else if (listing) {
        // Absent from two full polls in a row, both begun after it was staged: imported. (Two,
        // because a status index is eventually consistent in DynamoDB: one read may miss a row.)
        if (p.ids.some((id) => seen.has(id))) p.absent = 0;
        else if (++p.absent >= 2) this.imported(p);
      }
    }
    this.ledger.flush();
  }

  /** The users still pending: reported as interrupted. */
  abandon(): void {
    for (const p of [...this.pending]) {
      this.settle(p, entryOf(p.mapped, { outcome: 'skipped', userId: p.userId, reasonCode: 'interrupted', reason: INTERRUPTED_PENDING, needsAction: true }));
    }
  }
}

/** Sends batches of users to `POST /bulk-import/users`, a few in flight, and hands staged users to the reconciler. */
class Stager {
  private batch: Outgoing[] = [];
  private bytes = 0;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly run: MigrationRun,
    private readonly reconciler: Reconciler,
    private readonly waitForRoom: () => Promise<void>,
  ) {}

  private get maxUsers() {
    return this.run.batchUsers ?? 1000;
  }

  private get maxBytes() {
    return this.run.batchBytes ?? 4_000_000;
  }

  async add(m: Outgoing): Promise<void> {
    // Counted as the service counts a bulk body: as Lambda's event carries it (escaped, in bytes).
    const size = eventBodyBytes({ body: JSON.stringify(m.user) }) + 1;
    if (this.batch.length > 0 && (this.batch.length >= this.maxUsers || this.bytes + size > this.maxBytes)) await this.send();
    this.batch.push(m);
    this.bytes += size;
  }

  async send(): Promise<void> {
    const users = this.batch;
    this.batch = [];
    this.bytes = 0;
    if (users.length === 0) return;
    // The checks a re-run deferred (exit 2 before anything is written), then polls may begin.
    await this.run.service!.ready();
    this.reconciler.active = true;
    while (this.inflight.size >= this.run.concurrency) await Promise.race(this.inflight);
    await this.waitForRoom();
    if (this.run.signal.aborted) {
      for (const m of users) this.run.report.add(entryOf(m, { outcome: 'skipped', reasonCode: 'interrupted', reason: INTERRUPTED_UNSENT, needsAction: true }));
      return;
    }
    const p: Promise<void> = this.stage(users).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  async drain(): Promise<void> {
    await this.send();
    await Promise.all(this.inflight);
  }

  private fail(users: readonly MappedUser[], code: string, reason: string): void {
    for (const m of users) this.run.report.add(entryOf(m, { outcome: 'failed', reasonCode: code, reason, needsAction: true }));
  }

  private async stage(users: readonly Outgoing[]): Promise<void> {
    const service = this.run.service!;
    let res;
    try {
      // One key for every try of this request: a try answered 503, or whose answer was lost after
      // the service staged its users, is sent again without staging them twice.
      res = await service.request('POST', '/bulk-import/users', { users: users.map((m) => m.user) }, { [IDEMPOTENCY_KEY_HEADER]: randomUUID() });
    } catch (err) {
      this.fail(users, 'service-error', `staging failed: ${(err as Error).message}; run the command again`);
      return;
    }
    if (res.status === 200 && Array.isArray(res.json?.users) && res.json.users.length === users.length) {
      users.forEach((m, i) => this.reconciler.track(m, res.json.users[i]));
      return;
    }
    if (res.status === 413 && users.length > 1) {
      const half = users.length >> 1;
      await this.stage(users.slice(0, half));
      await this.stage(users.slice(half));
      return;
    }
    if (res.status === 400 && Array.isArray(res.json?.users)) {
      // Nothing of the request was staged: report the invalid users, send the others again.
      const invalid = new Map<number, string[]>(res.json.users.map((u: { index: number; errors: string[] }) => [u.index, u.errors]));
      if (![...invalid.keys()].some((i) => i >= 0 && i < users.length)) {
        this.fail(users, 'service-error', `staging answered 400 naming no user of the request: ${res.text.slice(0, 200)}`);
        return;
      }
      users.forEach((m, i) => {
        const errors = invalid.get(i);
        if (errors) this.run.report.add(entryOf(m, { outcome: 'failed', reasonCode: 'invalid', reason: errors.join(' '), needsAction: true }));
      });
      const valid = users.filter((_, i) => !invalid.has(i));
      if (valid.length > 0) await this.stage(valid);
      return;
    }
    this.fail(users, 'service-error', `staging answered ${res.status}: ${res.text.slice(0, 200)}`);
  }
}

export async function runMigration(run: MigrationRun): Promise<RunResult> {
  const { source, service, report, ledger, signal, log } = run;
  const progress = (phase: Progress['phase'], total: number) => run.onProgress?.({ phase, done: report.summary.total + (reconciler?.likelyDone ?? 0), total });

  // Pass 1: map everything, find collisions, count; nothing is written. Users the ledger answers
  // (what was sent is what the export maps) cost no request and count for nothing here.
  await ledger.load();
  if (ledger.loaded > 0) report.syncing();
  // Passkeys are mapped as the run that last asked the service was told (an unchanged user maps
  // as it was sent), and the service is asked again only if a passkey is to be sent.
  if (ledger.passkeyRpIds) run.passkeys?.remember(ledger.passkeyRpIds);
  const answered = (m: MappedUser) => m.user !== undefined && ledger.holds(m.sourceId, sentOf(m.user));
  const { index, total, roles, smsUsers, passkeyUsers } = await scanExport(source, signal, run.onProgress, ledger.loaded > 0 ? (m) => !answered(m) : undefined);
  // Before any write (exit 2 when the service does not take the export's RP id): the second read maps with its answer.
  if (service && passkeyUsers > 0 && run.passkeys) {
    await run.passkeys.ask();
    const answer = run.passkeys.answer();
    if (answer && !run.dryRun) ledger.recordPasskeyRpIds(answer);
  }

  const known = service && roles.size > 0 ? await service.roles() : new Set<string>();
  const missingRoles = [...roles].filter((r) => !known.has(r));
  const rolesHead: Record<string, unknown> = {};
  if (run.dryRun || !service) {
    if (missingRoles.length > 0) rolesHead.rolesToCreate = missingRoles;
  } else if (missingRoles.length > 0) {
    for (const role of missingRoles) await service.createRole(role);
    log(`created role(s): ${missingRoles.join(', ')}`);
    rolesHead.rolesCreated = missingRoles;
  }
  const ssoHead = run.connections
    ? await setUpConnections({
        service,
        connections: run.connections,
        plans: (await source.providers?.()) ?? [],
        dryRun: run.dryRun,
        overwrite: run.overwriteProviders === true,
        log,
      })
    : {};
  const existing = run.dryRun && service ? await readExisting(service, run.tenant, log) : undefined;
  const askPhones = service !== undefined && !run.dryRun && smsUsers > 0 && (await service.userCount(run.tenant)) > 0;
  // A failed look-up keeps the factor: the service itself refuses a phone that is taken (E007, E027).
  const serviceHolders = (phone: string) => service!.phoneHolders(run.tenant, phone).catch(() => []);
  const existingHolders = async (phone: string) => {
    const holder = existing?.keys.get(`${run.tenant}\u0000passwordless phone ${phone}`);
    return holder === undefined ? [] : [holder];
  };

  // Pass 2: decide each user (those that may collide last), stage the importable ones.
  const reconciler = service && !run.dryRun ? new Reconciler(service, report, ledger) : undefined;
  const window = run.window ?? 20_000;
  const pollMs = run.pollMs ?? 1000;
  let polling = true;
  let fatal: unknown;
  // The poller's wait between polls, cut short once the run is done: a run ends when its last
  // user is settled, not up to a poll interval later (a re-run the ledger answers took 1 s more).
  let wake = (): void => undefined;
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const poller = (async () => {
    for (let n = 1; polling && reconciler && fatal === undefined; n++) {
      await nap(pollMs);
      if (!polling) break;
      // Nothing staged yet: nothing to follow (a re-run the ledger answers sends no request).
      if (!reconciler.active) continue;
      try {
        // A full poll lists every row left: often while few are left, rarely while many are
        // (listing 20,000 rows slows the very worker it waits for).
        await reconciler.poll(n % (reconciler.backlog <= FULL_POLL_MAX_BACKLOG ? FULL_POLL_EVERY : FULL_POLL_EVERY_BUSY) === 0);
      } catch (err) {
        if (err instanceof ServiceError) log(`following the staged rows: ${err.message}; trying again`);
        else fatal = err;
      }
      progress('wait', total);
    }
  })();
  // Staging waits while the service has more than `window` rows left to import.
  const waitForRoom = async () => {
    while (reconciler && reconciler.backlog >= window && !signal.aborted && fatal === undefined) await sleep(pollMs / 4);
  };
  const stager = reconciler ? new Stager(run, reconciler, waitForRoom) : undefined;
  // A user the ledger holds whose export changed: compared three ways and brought in line (SPEC §17c).
  const syncer = service
    ? new Syncer({
        service,
        tenant: run.tenant,
        preferExport: run.preferExport === true,
        write: stager !== undefined,
        concurrency: run.concurrency,
        report,
        ledger,
        restage: (m, sent) => stager!.add({ ...m, sent }),
      })
    : undefined;

  const goneRun = { service: stager ? service : undefined, removeGone: run.removeGone === true, report, ledger };
  try {
    let seen = 0;
    for await (const { mapped: m, verdict } of decideUsers(source.users(), index, run.duplicates)) {
      seen++;
      const sent = verdict ? '' : sentOf(m.user!);
      // What the ledger last recorded for the user, who is marked met in the export: on a re-run,
      // the ledger's users not met are gone from the source (a first run has none to mark).
      const known = ledger.met(m.sourceId);
      if (verdict?.outcome === 'skipped' && known && !signal.aborted) {
        await settleGone(goneRun, m.sourceId, known.userId, `the export now skips it: ${verdict.reason}`);
      } else if (verdict) {
        const { outcome, code, reason, needsAction } = verdict;
        report.add(entryOf(m, { outcome, reasonCode: code, reason, ...(needsAction ? { needsAction } : {}) }));
      } else if (known?.digest === digestOfSent(sent)) {
        report.add(entryOf(m, { outcome: 'imported', userId: known.userId, fromLedger: true }));
      } else if (known && syncer && !signal.aborted) {
        await syncer.add(m, known, sent);
      } else if (known && !service) {
        report.add(entryOf(m, { outcome: 'imported', userId: known.userId, reason: 'changed since the last run; not compared (--offline)' }));
      } else if (!stager) {
        report.add(dryRunEntry(await withoutServiceHeldPhones(m, existingHolders), existing));
      } else if (signal.aborted) {
        report.add(entryOf(m, { outcome: 'skipped', reasonCode: 'interrupted', reason: INTERRUPTED_UNSENT, needsAction: true }));
      } else {
        await stager.add({ ...(askPhones ? await withoutServiceHeldPhones(m, serviceHolders) : m), sent });
      }
      if (seen % 100 === 0) progress('import', total);
    }
    await syncer?.drain();
    if (stager) {
      await stager.drain();
      while (reconciler!.size > 0 && !signal.aborted && fatal === undefined) await sleep(pollMs / 4);
    }
    // The ledger's users the export no longer has (once the whole export was read).
    // (Read from the ledger's file: `forget` only appends to it.)
    for (const { sourceId, userId } of ledger.loaded > 0 && !signal.aborted ? ledger.notMet() : []) {
      await settleGone(goneRun, sourceId, userId, 'not in the export');
    }
    ledger.close();
  } finally {
    polling = false;
    wake();
    await poller;
  }
  if (fatal !== undefined) throw fatal;
  if (reconciler && reconciler.size > 0) {
    // Interrupted: one last look, then whatever is left is reported for the next run.
    // Two full polls: a row must be missing from two lists in a row to count as imported.
    await reconciler.poll(true).catch(() => undefined);
    await sleep(pollMs);
    await reconciler.poll(true).catch(() => undefined);
    reconciler.abandon();
  }
  progress('wait', total);

  await report.finish({
    ...run.about,
    ...(run.dryRun ? { dryRun: true } : {}),
    ...(signal.aborted ? { interrupted: true } : {}),
    ledger: ledger.file,
    collisions: index.collisions().map(({ tenant, key, sourceIds }) => ({ tenant, key, sourceIds })),
    sharedEmails: index.sharedEmails(),
    ...rolesHead,
    ...ssoHead,
    ...source.notes(),
  });
  return { summary: report.summary, exitCode: report.needsAction > 0 ? 1 : 0, interrupted: signal.aborted };
}
