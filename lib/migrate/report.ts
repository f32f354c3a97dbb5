import { appendFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { MappedUser, Outcome, ReportEntry } from './model';

/**
 * A report's users, appended to a scratch NDJSON file as their outcomes become known, and the
 * JSON document written from it at the end (`{"summary":…, …, "users":[…]}`), so a run over
 * millions of users never holds its report in memory. The import's report and verify's use it.
 */
export class EntryFile {
  private readonly scratch: string;
  private buffered: string[] = [];

  constructor(readonly file: string) {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    this.scratch = `${resolve(file)}.users.ndjson.partial`;
    rmSync(this.scratch, { force: true });
  }

  add(entry: object): void {
    this.buffered.push(JSON.stringify(entry));
    if (this.buffered.length >= 1000) this.flush();
  }

  private flush(): void {
    if (this.buffered.length === 0) return;
    appendFileSync(this.scratch, this.buffered.join('\n') + '\n');
    this.buffered = [];
  }

  /** Writes the report: the summary and `extra` first, then every entry, streamed from the scratch file. */
  async finish(summary: object, extra: Record<string, unknown>): Promise<void> {
    this.flush();
    const out = createWriteStream(this.file);
    const write = async (chunk: string) => {
      if (!out.write(chunk)) await once(out, 'drain');
    };
    await write(`{\n"summary": ${JSON.stringify(summary)},\n`);
    for (const [key, value] of Object.entries(extra)) await write(`${JSON.stringify(key)}: ${JSON.stringify(value)},\n`);
    await write('"users": [');
    let first = true;
    if (existsSync(this.scratch)) {
      for await (const line of createInterface({ input: createReadStream(this.scratch), crlfDelay: Infinity })) {
        if (line === '') continue;
        await write(`${first ? '\n' : ',\n'}${line}`);
        first = false;
      }
    }
    await write('\n]\n}\n');
    out.end();
    await once(out, 'finish');
    rmSync(this.scratch, { force: true });
  }
}

/**
 * The report (SPEC §17): `{"summary":{…},"users":[…]}` plus what the run found (collisions,
 * shared emails, notes of the source). Nothing in it is secret: the entries carry ids, outcomes
 * and reasons.
 */
/** The summary's counts: §17's four, and on a re-run (a ledger was found) §17c's five more. */
export interface Summary {
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  updated?: number;
  unchanged?: number;
  conflict?: number;
  goneFromSource?: number;
  removed?: number;
}

const SUMMARY_KEY: Record<Outcome, keyof Summary> = {
  imported: 'imported',
  skipped: 'skipped',
  failed: 'failed',
  updated: 'updated',
  conflict: 'conflict',
  'gone-from-source': 'goneFromSource',
  removed: 'removed',
};

export class ReportWriter {
  readonly summary: Summary = { total: 0, imported: 0, skipped: 0, failed: 0 };
  /** Users whose outcome needs the operator (every failure, and skips that say so). */
  needsAction = 0;
  /** Users imported by an earlier run (the ledger: no request sent), and, in a dry run, already in the service. */
  fromLedger = 0;
  alreadyInService = 0;
  /** Counts by reason code of the skipped and failed users, and of the warnings: the terminal's summary. */
  readonly reasons: Partial<Record<'skipped' | 'failed' | 'warnings', Record<string, number>>> = {};
  private readonly entries: EntryFile;

  constructor(readonly file: string) {
    this.entries = new EntryFile(file);
  }

  /** A re-run on a ledger: the summary counts §17c's outcomes too (users the ledger answers as `unchanged`). */
  syncing(): void {
    Object.assign(this.summary, { updated: 0, unchanged: 0, conflict: 0, goneFromSource: 0, removed: 0 });
  }

  /** The first lines of §17c's outcomes that need a look (conflicts, users gone from the source), for the terminal. */
  readonly lines: string[] = [];

  add(entry: ReportEntry): void {
    if (this.lines.length < 20) this.lines.push(...syncLines(entry).slice(0, 20 - this.lines.length));
    this.summary.total++;
    const key = SUMMARY_KEY[entry.outcome];
    this.summary[key] = (this.summary[key] ?? 0) + 1;
    if (entry.outcome === 'failed' || entry.needsAction) this.needsAction++;
    if (entry.fromLedger) this.fromLedger++;
    if (entry.fromLedger && this.summary.unchanged !== undefined) this.summary.unchanged++;
    if (entry.alreadyInService) this.alreadyInService++;
    const bump = (group: 'skipped' | 'failed' | 'warnings', code: string) => {
      const counts = (this.reasons[group] ??= {});
      counts[code] = (counts[code] ?? 0) + 1;
    };
    if ((entry.outcome === 'skipped' || entry.outcome === 'failed') && entry.reasonCode) bump(entry.outcome, entry.reasonCode);
    for (const w of entry.warnings ?? []) bump('warnings', w.code);
    this.entries.add(entry);
  }

  /** Writes the report: the summary and `extra` first, then every entry. */
  async finish(extra: Record<string, unknown>): Promise<void> {
    await this.entries.finish(this.summary, extra);
  }
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

/** The terminal's lines for an entry of a re-run: one per conflict; one for a user gone from the source or removed. */
function syncLines(entry: ReportEntry): string[] {
  const head = `${entry.outcome.padEnd(16)}  ${entry.sourceId}  `;
  if (entry.outcome === 'conflict')
    return (entry.conflicts ?? []).map(
      (c) => `${head}${c.field}: ledger ${shown(c.ledger)}, export ${shown(c.export)}, service ${shown(c.service)} (kept as the service has it)`,
    );
  if (entry.outcome === 'gone-from-source' || entry.outcome === 'removed') return [`${head}${entry.reason ?? ''}`];
  return [];
}

/** A report entry for a mapped user: its source id, the fields given, and its warnings. */
export function entryOf(m: MappedUser, fields: Omit<ReportEntry, 'sourceId' | 'warnings'>): ReportEntry {
  return { sourceId: m.sourceId, ...fields, ...(m.warnings.length > 0 ? { warnings: m.warnings } : {}) };
}
