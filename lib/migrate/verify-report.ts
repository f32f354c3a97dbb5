import { EntryFile } from './report';
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
 * `extra`. Held in memory for now; one small interface so that it can move to disk (issue 47's
 * bounded memory) without touching verify.
 */
export interface ExportIds {
  add(id: string): void;
  has(id: string): Promise<boolean>;
}

export class MemoryExportIds implements ExportIds {
  private readonly ids = new Set<string>();

  add(id: string): void {
    this.ids.add(id);
  }

  async has(id: string): Promise<boolean> {
    return this.ids.has(id);
  }
}
