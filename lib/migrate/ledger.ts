import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, openSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DiskJoin, type JoinedItem, type JoinSizes } from './disk-join';
import type { BulkUserInput, RpIdAnswer } from './model';
import { readLines } from './spill';

/**
 * The ledger (SPEC §17, §17c): one line per user the service confirmed imported (or a sync
 * brought in line), with what the command sent for it: the mapped bulk user with every secret
 * replaced by a digest (`passwordHash` → `passwordHashDigest`, a TOTP `secretKey` →
 * `secretKeyDigest`, `plainTextPassword` → `plainTextPasswordDigest`), never the secret. It lives
 * next to the report and is named after the source, the service and the tenant (not the export's
 * content), so a run on a newer export of the same source finds it and compares each user with
 * what was sent. Later lines win; a removed user gets a line `{"sourceId","removed":true}`, and
 * the service's answer about passkey RP ids a line `{"passkeyRpIds":{…}}` (so a re-run maps
 * passkeys as the run that asked did, without asking: SPEC §21, `./passkeys.ts`).
 * Deleting it only costs requests: the service treats an already imported user as a no-op (§15).
 *
 * Loaded, it stays on disk (SPEC §17c, bounded memory): an on-disk join (`./disk-join`) by source
 * id holds, per line, the user's id, a digest of what was sent and where the line is in the file;
 * what was sent is read back from the file only for a user whose export changed. Memory is a key
 * per 8 KB block of the join and a bit per line (the users met in the export: the others are gone
 * from the source).
 */

/** What the ledger holds for one user: the id the app sees, a digest of what was sent, and what was sent (canonical JSON, read from the file). */
export interface LedgerEntry {
  readonly userId: string;
  readonly digest: string;
  sent(): string;
}

/** A line of the ledger in the join: the user's id, the digest of what was sent, the line's offset and length in bytes; `null`: removed. */
type Row = readonly [userId: string, digest: string, offset: number, bytes: number] | null;

/** The keys whose values are secrets: only their digest is kept. */
const SECRET_KEYS = new Set(['passwordHash', 'plainTextPassword', 'secretKey', 'publicKey']);

/** A secret's digest: enough to see it changed, nothing to sign in with. */
const digest = (secret: string) => `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value as Record<string, unknown>).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (SECRET_KEYS.has(key) && typeof v === 'string') out[`${key}Digest`] = digest(v);
    else out[key] = withoutSecrets(v);
  }
  return out;
}

/** A mapped user as the ledger keeps it: secrets digested, keys sorted (two equal users give the same text). */
export const sentOf = (user: BulkUserInput): string => JSON.stringify(withoutSecrets(user));

/** The digest of what was sent (128 bits): two users sent alike have the same. */
export const digestOfSent = (sent: string): string => createHash('sha256').update(sent, 'utf8').digest('base64').slice(0, 22);

/** Blocks of the ledger's join: one key of memory per 8 KB of rows (about 60 users). */
const LEDGER_BLOCK_BYTES = 8 << 10;

export class Ledger {
  private join: DiskJoin<Row> | undefined;
  private fd: number | undefined;
  private pending: string[] = [];
  /** Lines of users the ledger held when it was loaded: a run that found some is a re-run (a sync). */
  loaded = 0;
  /** The service's answer about passkey RP ids, as the last run that asked it was told. */
  passkeyRpIds?: RpIdAnswer;

  constructor(readonly file: string) {}

  static pathFor(reportFile: string, key: { source: string; url: string; tenant: string }): string {
    const id = createHash('sha256')
      .update(JSON.stringify(['ledger/2', key.source, key.url, key.tenant]))
      .digest('hex')
      .slice(0, 16);
    return join(dirname(resolve(reportFile)), `migration-ledger-${id}.ndjson`);
  }

  /** Reads the file into its on-disk join (`sizes`: smaller runs and blocks, for tests). */
  async load(sizes: JoinSizes = {}): Promise<void> {
    if (!existsSync(this.file)) return;
    const fd = openSync(this.file, 'r');
    this.fd = fd;
    let users = 0;
    const remember = (answer: RpIdAnswer) => {
      this.passkeyRpIds = answer;
    };
    async function* rows(): AsyncGenerator<{ key: string; item: Row }> {
      let offset = 0;
      for (const line of readLines(fd)) {
        const bytes = Buffer.byteLength(line, 'utf8');
        try {
          const { sourceId, userId, sent, removed, passkeyRpIds } = JSON.parse(line) as {
            sourceId: unknown;
            userId: unknown;
            sent: unknown;
            removed?: boolean;
            passkeyRpIds?: unknown;
          };
          const answer = rpIdAnswerOf(passkeyRpIds);
          if (answer) remember(answer);
          if (typeof sourceId === 'string' && removed === true) yield { key: sourceId, item: null };
          else if (typeof sourceId === 'string' && typeof userId === 'string' && sent !== null && typeof sent === 'object') {
            users++;
            yield { key: sourceId, item: [userId, digestOfSent(JSON.stringify(sent)), offset, bytes] };
          }
        } catch {
          // A line cut short by a crash: that user is simply sent again.
        }
        offset += bytes + 1;
      }
    }
    this.join = await DiskJoin.build(rows(), { blockBytes: LEDGER_BLOCK_BYTES, ...sizes });
    this.loaded = users;
  }

  /** What was last recorded for a user before this run (`undefined`: never, or removed). */
  get(sourceId: string): LedgerEntry | undefined {
    return this.entryOf(this.join?.rows(sourceId) ?? []);
  }

  /** Whether the ledger holds `sent` (from `sentOf`) as what was last sent for this user. */
  holds(sourceId: string, sent: string): boolean {
    return this.get(sourceId)?.digest === digestOfSent(sent);
  }

  /** A user met in the export (not gone from the source), marked so; answers `get`'s entry from the same look-up. */
  met(sourceId: string): LedgerEntry | undefined {
    const rows = this.join?.rows(sourceId) ?? [];
    for (const { ordinal } of rows) this.join!.mark(ordinal);
    return this.entryOf(rows);
  }

  /** The users the ledger held that were not `met`, and their ids in the app, in source id order. */
  *notMet(): Generator<{ sourceId: string; userId: string }> {
    for (const { key, items } of this.join?.unmarkedKeys() ?? []) {
      const last = items[items.length - 1];
      if (last) yield { sourceId: key, userId: last[0] };
    }
  }

  /** A user's entry from its rows: the last one (`undefined`: none, or a removal). */
  private entryOf(rows: readonly JoinedItem<Row>[]): LedgerEntry | undefined {
    const last = rows[rows.length - 1]?.item;
    if (!last) return undefined;
    const [userId, digest, offset, bytes] = last;
    return { userId, digest, sent: () => this.sentAt(offset, bytes) };
  }

  private sentAt(offset: number, bytes: number): string {
    const buf = Buffer.allocUnsafe(bytes);
    readSync(this.fd!, buf, 0, bytes, offset);
    return JSON.stringify((JSON.parse(buf.toString('utf8')) as { sent: unknown }).sent);
  }

  /** Records what was sent for a user (`sent`: from `sentOf`). */
  record(sourceId: string, userId: string, sent: string): void {
    this.pending.push(`{"sourceId":${JSON.stringify(sourceId)},"userId":${JSON.stringify(userId)},"sent":${sent}}`);
    if (this.pending.length >= 1000) this.flush();
  }

  /** The service's answer about passkey RP ids, asked by this run: kept for the next. */
  recordPasskeyRpIds(answer: RpIdAnswer): void {
    this.passkeyRpIds = answer;
    this.pending.push(JSON.stringify({ passkeyRpIds: answer }));
  }

  /**
   * Only the passkey RP-id answer of a ledger (`migrate verify`, which cannot ask the service: a
   * POST), read line by line without keeping the users; undefined without a ledger or an answer.
   */
  static async readPasskeyRpIds(file: string): Promise<RpIdAnswer | undefined> {
    if (!existsSync(file)) return undefined;
    let answer: RpIdAnswer | undefined;
    const fd = openSync(file, 'r');
    try {
      for (const line of readLines(fd)) {
        if (!line.startsWith('{"passkeyRpIds"')) continue;
        try {
          answer = rpIdAnswerOf((JSON.parse(line) as { passkeyRpIds?: unknown }).passkeyRpIds) ?? answer;
        } catch {
          // A line cut short by a crash.
        }
      }
    } finally {
      closeSync(fd);
    }
    return answer;
  }

  /** A user removed from the service: forgotten. */
  forget(sourceId: string): void {
    this.pending.push(JSON.stringify({ sourceId, removed: true }));
  }

  flush(): void {
    if (this.pending.length === 0) return;
    appendFileSync(this.file, this.pending.join('\n') + '\n');
    this.pending = [];
  }

  /** Writes what is pending and lets the file go. */
  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A ledger line's `passkeyRpIds`, when it has the shape `RpIdAnswer`. */
function rpIdAnswerOf(value: unknown): RpIdAnswer | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { accepted, serviceRpIds } = value as Record<string, unknown>;
  if (accepted === null || typeof accepted !== 'object' || !Array.isArray(serviceRpIds)) return undefined;
  if (!Object.values(accepted).every((v) => typeof v === 'boolean') || !serviceRpIds.every((r) => typeof r === 'string')) return undefined;
  return { accepted: accepted as Record<string, boolean>, serviceRpIds: serviceRpIds as string[] };
}
