import { closeSync, openSync } from 'node:fs';
import { DiskJoin, type JoinSizes } from './disk-join';
import { EntryFile } from './report';
import { ChunkWriter, createScratch, readLines, scratchFolder } from './spill';
import type { Difference } from './verify-compare';

/**
 * Verify's report (SPEC §17c): `{"summary":{"total","match","different","missing",
 * "absentAsPlanned","unexpected","extra"}, …, "users":[…]}`, one entry per source user (and per
 * `extra` service user), streamed to disk as the import's report is; and the terminal's lines for
 * the first users that need a look. Nothing secret goes in: ids, outcomes, reasons, and the
 * differing fields' values, which never include a hash (never compared) or a TOTP secret (never read).
 */

export type VerifyOutcome = 'match' | 'different' | 'missing' | 'absent-as-planned' | 'unexpected' | 'extra';

export interface VerifyEntry {
  /** The source's id; absent for `extra` (a service user the export does not have). */
  readonly sourceId?: string;
  readonly outcome: VerifyOutcome;
  /** The id the app sees for the service's user, when there is one. */
  readonly userId?: string;
  readonly differences?: readonly Difference[];
  /** Why the import does not import it (`absent-as-planned`, `unexpected`): its reason code and text. */
  readonly reasonCode?: string;
  readonly reason?: string;
  /** `extra`: the service user's login methods, as the differences name them. */
  readonly loginMethods?: readonly string[];
}

export interface VerifySummary {
  total: number;
  match: number;
  different: number;
  missing: number;
  absentAsPlanned: number;
  unexpected: number;
  extra: number;
}

const SUMMARY_KEY: Record<VerifyOutcome, Exclude<keyof VerifySummary, 'total'>> = {
  match: 'match',
  different: 'different',
  missing: 'missing',
  'absent-as-planned': 'absentAsPlanned',
  unexpected: 'unexpected',
  extra: 'extra',
};

/** How many users the terminal shows (SPEC §17c); the report has them all. */
export const TERMINAL_LINES = 20;

/** A value as the terminal shows it: JSON, cut at 80 characters; nothing as `(none)`. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** One line a person reads on the terminal for an entry that needs a look. */
export function lineOf(entry: VerifyEntry): string {
  const who = (entry.sourceId ?? entry.userId ?? '').padEnd(28);
  switch (entry.outcome) {
    case 'different':
      return `different   ${who}  ${(entry.differences ?? []).map((d) => `${d.field}: export ${shown(d.export)}, service ${shown(d.service)}`).join('; ')}`;
    case 'missing':
      return `missing     ${who}  not in the service`;
    case 'unexpected':
      return `unexpected  ${who}  in the service as ${entry.userId}, but the import skips it: ${entry.reasonCode ?? 'not imported'}`;
    case 'extra':
      return `extra       ${who}  in the service, not in the export (${(entry.loginMethods ?? []).join(', ')})`;
    default:
      return `${entry.outcome.padEnd(11)} ${who}`;
  }
}

export class VerifyReport {
  readonly summary: VerifySummary = { total: 0, match: 0, different: 0, missing: 0, absentAsPlanned: 0, unexpected: 0, extra: 0 };
  /** The terminal lines of the first users that are neither `match` nor `absent-as-planned`. */
  readonly lines: string[] = [];
  private readonly entries: EntryFile;

  constructor(readonly file: string) {
    this.entries = new EntryFile(file);
  }

  add(entry: VerifyEntry): void {
    // `total` counts the export's users; `extra` ones are the service's.
    if (entry.outcome !== 'extra') this.summary.total++;
    this.summary[SUMMARY_KEY[entry.outcome]]++;
    if (!this.fine(entry) && this.lines.length < TERMINAL_LINES) this.lines.push(lineOf(entry));
    this.entries.add(entry);
  }

  private fine(entry: VerifyEntry): boolean {
    return entry.outcome === 'match' || entry.outcome === 'absent-as-planned';
  }

  /** Users that need a look: every outcome but `match` and `absent-as-planned`. */
  get toLookAt(): number {
    const s = this.summary;
    return s.different + s.missing + s.unexpected + s.extra;
  }

  async finish(extra: Record<string, unknown>): Promise<void> {
    await this.entries.finish(this.summary, extra);
  }
}

/**
 * The ids of the export's users, for `--extra`: every service user whose id is not among them is
 * `extra`. On disk (SPEC §17c, bounded memory): appended to a scratch file while the export is
 * read, then sorted into an on-disk join (`./disk-join`) at the first look-up, which keeps one id
 * per 8 KB block in memory.
 */
export interface ExportIds {
  add(id: string): void;
  has(id: string): Promise<boolean>;
}

export class DiskExportIds implements ExportIds {
  private readonly scratch = scratchFolder('verify-ids');
  private readonly out = new ChunkWriter(createScratch(this.scratch.file('ids')));
  private join: Promise<DiskJoin<0>> | undefined;

  /** `sizes`: smaller runs and blocks, for tests. */
  constructor(private readonly sizes: JoinSizes = {}) {}

  add(id: string): void {
    if (this.join) throw new Error('an id was added after the first look-up');
    this.out.line(JSON.stringify(id));
  }

  async has(id: string): Promise<boolean> {
    this.join ??= this.build();
    return (await this.join).rows(id).length > 0;
  }

  private async build(): Promise<DiskJoin<0>> {
    this.out.close();
    const fd = openSync(this.scratch.file('ids'), 'r');
    try {
      return await DiskJoin.build(
        (async function* () {
          for (const line of readLines(fd)) if (line !== '') yield { key: JSON.parse(line) as string, item: 0 as const };
        })(),
        { blockBytes: 8 << 10, ...this.sizes },
      );
    } finally {
      closeSync(fd);
      this.scratch.remove();
    }
  }
}
