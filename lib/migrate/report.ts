import { appendFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { Outcome, ReportEntry } from './model';

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
export class ReportWriter {
  readonly summary: Record<'total' | Outcome, number> = { total: 0, imported: 0, skipped: 0, failed: 0 };
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

  add(entry: ReportEntry): void {
    this.summary.total++;
    this.summary[entry.outcome]++;
    if (entry.outcome === 'failed' || entry.needsAction) this.needsAction++;
    if (entry.fromLedger) this.fromLedger++;
    if (entry.alreadyInService) this.alreadyInService++;
    const bump = (group: 'skipped' | 'failed' | 'warnings', code: string) => {
      const counts = (this.reasons[group] ??= {});
      counts[code] = (counts[code] ?? 0) + 1;
    };
    if (entry.outcome !== 'imported' && entry.reasonCode) bump(entry.outcome, entry.reasonCode);
    for (const w of entry.warnings ?? []) bump('warnings', w.code);
    this.entries.add(entry);
  }

  /** Writes the report: the summary and `extra` first, then every entry. */
  async finish(extra: Record<string, unknown>): Promise<void> {
    await this.entries.finish(this.summary, extra);
  }
}
