import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { BulkUserInput } from './model';

/**
 * The ledger (SPEC §17, §17c): one line per user the service confirmed imported (or a sync
 * brought in line), with what the command sent for it: the mapped bulk user with every secret
 * replaced by a digest (`passwordHash` → `passwordHashDigest`, a TOTP `secretKey` →
 * `secretKeyDigest`, `plainTextPassword` → `plainTextPasswordDigest`), never the secret. It lives
 * next to the report and is named after the source, the service and the tenant (not the export's
 * content), so a run on a newer export of the same source finds it and compares each user with
 * what was sent. Later lines win; a removed user gets a line `{"sourceId","removed":true}`.
 * Deleting it only costs requests: the service treats an already imported user as a no-op (§15).
 */

/** What the ledger holds for one user: the id the app sees, and the user as sent (secrets digested), as canonical JSON. */
export interface LedgerEntry {
  readonly userId: string;
  readonly sent: string;
}

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

export class Ledger {
  private readonly done = new Map<string, LedgerEntry>();
  private pending: string[] = [];
  /** Users the ledger held when it was loaded: a run that found some is a re-run (a sync). */
  loaded = 0;

  constructor(readonly file: string) {}

  static pathFor(reportFile: string, key: { source: string; url: string; tenant: string }): string {
    const id = createHash('sha256')
      .update(JSON.stringify(['ledger/2', key.source, key.url, key.tenant]))
      .digest('hex')
      .slice(0, 16);
    return join(dirname(resolve(reportFile)), `migration-ledger-${id}.ndjson`);
  }

  async load(): Promise<void> {
    if (!existsSync(this.file)) return;
    for await (const line of createInterface({ input: createReadStream(this.file), crlfDelay: Infinity })) {
      try {
        const { sourceId, userId, sent, removed } = JSON.parse(line) as { sourceId: string; userId: string; sent: unknown; removed?: boolean };
        if (typeof sourceId !== 'string') continue;
        if (removed === true) this.done.delete(sourceId);
        else if (typeof userId === 'string' && sent !== null && typeof sent === 'object') this.done.set(sourceId, { userId, sent: JSON.stringify(sent) });
      } catch {
        // A line cut short by a crash: that user is simply sent again.
      }
    }
    this.loaded = this.done.size;
  }

  get(sourceId: string): LedgerEntry | undefined {
    return this.done.get(sourceId);
  }

  userIdOf(sourceId: string): string | undefined {
    return this.done.get(sourceId)?.userId;
  }

  /** The users the ledger holds, in the order they were first recorded. */
  sourceIds(): IterableIterator<string> {
    return this.done.keys();
  }

  /** Records what was sent for a user (`sent`: from `sentOf`). */
  record(sourceId: string, userId: string, sent: string): void {
    this.done.set(sourceId, { userId, sent });
    this.pending.push(`{"sourceId":${JSON.stringify(sourceId)},"userId":${JSON.stringify(userId)},"sent":${sent}}`);
  }

  /** A user removed from the service: forgotten. */
  forget(sourceId: string): void {
    this.done.delete(sourceId);
    this.pending.push(JSON.stringify({ sourceId, removed: true }));
  }

  flush(): void {
    if (this.pending.length === 0) return;
    appendFileSync(this.file, this.pending.join('\n') + '\n');
    this.pending = [];
  }
}
