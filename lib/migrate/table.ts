import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream';
import { parse as csvParser, type CastingContext } from 'csv-parse';
import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { DiskJoin } from './disk-join';
import { UsageError } from './errors';
import { failedUser } from './mapping';
import type { MappedUser, Source } from './model';
import { openText, PARSER_OPTIONS } from './read';

/**
 * The rows of a database table as its own tools export it (SPEC §17b): psql's CSV with a header
 * row (`\copy (select * from t) to f csv header`: an unquoted empty cell is NULL, `""` the empty
 * string), a JSON array (`json_agg`), or one JSON object per line (`row_to_json`), plain or
 * gzipped, streamed. The format is known by the first character: `[` an array, `{` lines, else CSV.
 *
 * The file must be the named table's export: its first row (its header in CSV) holds every
 * required column, else a `UsageError` names the file and the columns missing; broken JSON or a
 * quoted CSV cell that never ends is one too. Inside a well-formed file, a row that cannot be read
 * (a CSV row of another width, a JSON line that is no object) comes out as `unreadable` alone.
 */

export type TableRow =
  | { readonly at: string; readonly value: Record<string, unknown> }
  | { readonly at: string; readonly unreadable: string; readonly firstCell?: string };

export interface TableSpec {
  /** What the file should be, for the refusal: `an auth.users export`. */
  readonly what: string;
  /** Columns every row has; each entry lists the names any one of which will do (schema versions). */
  readonly required: readonly (readonly string[])[];
}

type Format = 'csv' | 'json-array' | 'json-lines';

async function formatOf(file: string): Promise<Format | undefined> {
  for await (const chunk of openText(file)) {
    const start = (chunk as Buffer)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    if (start === '') continue;
    return start[0] === '[' ? 'json-array' : start[0] === '{' ? 'json-lines' : 'csv';
  }
  return undefined;
}

function missingColumns(columns: ReadonlySet<string>, spec: TableSpec): string[] {
  return spec.required.filter((names) => !names.some((n) => columns.has(n))).map((names) => names.join(' or '));
}

function refuse(file: string, spec: TableSpec, why: string): UsageError {
  return new UsageError(`${file} is not ${spec.what}: ${why}.`);
}

/**
 * A line as `copy (…) to stdout` writes it in its text format, which escapes every backslash of
 * the JSON (`\\`, and `\n`, `\t`, … for control characters): undone when the line as it is does
 * not parse. (A line whose JSON parses both ways is taken as it is.)
 */
function uncopied(line: string): string {
  const escapes: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
  return line.replace(/\\(.)/g, (all, c: string) => escapes[c] ?? all);
}

/** A JSON row; the first one decides whether the file is the table's export at all. */
function jsonRow(file: string, spec: TableSpec, at: string, value: unknown, first: boolean): TableRow {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (first) {
    if (!isObject) throw refuse(file, spec, `${at} is not a JSON object`);
    const missing = missingColumns(new Set(Object.keys(value)), spec);
    if (missing.length > 0) throw refuse(file, spec, `${at} has no ${missing.join(', ')}`);
  }
  return isObject ? { at, value: value as Record<string, unknown> } : { at, unreadable: `${at} is not a JSON object` };
}

async function* jsonLines(file: string, spec: TableSpec): AsyncGenerator<TableRow> {
  let n = 0;
  let first = true;
  for await (const raw of createInterface({ input: openText(file), crlfDelay: Infinity })) {
    n++;
    const line = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      try {
        value = JSON.parse(uncopied(line));
      } catch {
        // Not the parser's message: it quotes the line, which may hold a hash.
        const hint = first ? ' (a pretty-printed JSON document? the export has one row per line)' : '';
        throw refuse(file, spec, `line ${n} is not JSON${hint}`);
      }
    }
    yield jsonRow(file, spec, `line ${n}`, value, first);
    first = false;
  }
}

async function* jsonArray(file: string, spec: TableSpec): AsyncGenerator<TableRow> {
  const elements = chain([openText(file), parser(PARSER_OPTIONS), streamArray()]) as AsyncIterable<{ key: number; value: unknown }>;
  let first = true;
  try {
    for await (const { key, value } of elements) {
      yield jsonRow(file, spec, `element ${key + 1}`, value, first);
      first = false;
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw refuse(file, spec, `it is not readable JSON (${(err as Error).message})`);
  }
}

/** psql's CSV: an unquoted empty cell is NULL, a quoted one the empty string. */
const nullOrText = (value: string, context: CastingContext): string | null => (value === '' && !context.quoting ? null : value);

async function* csvRows(file: string, spec: TableSpec): AsyncGenerator<TableRow> {
  const records = csvParser({ bom: true, cast: nullOrText, relax_column_count: true, skip_empty_lines: true });
  pipeline(openText(file), records, () => undefined);
  let header: string[] | undefined;
  let n = 0;
  try {
    for await (const cells of records as AsyncIterable<(string | null)[]>) {
      n++;
      if (header === undefined) {
        header = cells.map((c) => (c ?? '').trim());
        const missing = missingColumns(new Set(header), spec);
        if (missing.length > 0) throw refuse(file, spec, `its header row has no column ${missing.join(', ')} (export it with "csv header")`);
        continue;
      }
      if (cells.length !== header.length) {
        yield { at: `row ${n}`, unreadable: `row ${n}: ${cells.length} columns, expected ${header.length}`, firstCell: cells[0] ?? undefined };
        continue;
      }
      yield { at: `row ${n}`, value: Object.fromEntries(header.map((name, i) => [name, cells[i]])) };
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as { code?: string }).code;
    throw refuse(
      file,
      spec,
      code === 'CSV_QUOTE_NOT_CLOSED' ? 'it is cut short (a quoted cell never ends)' : `it is not readable CSV (${(err as Error).message})`,
    );
  }
}

export async function* tableRows(file: string, spec: TableSpec): AsyncGenerator<TableRow> {
  const format = await formatOf(file);
  if (format === undefined) throw refuse(file, spec, 'it is empty');
  if (format === 'json-array') yield* jsonArray(file, spec);
  else if (format === 'json-lines') yield* jsonLines(file, spec);
  else yield* csvRows(file, spec);
}

/**
 * A source whose export is one table (WordPress, Clerk): each row mapped by `map` (`at` names the
 * row), a row that cannot be read failed alone (`row-unreadable`, by its first cell: SPEC §17b).
 */
export function tableSource(file: string, spec: TableSpec, map: (value: Record<string, unknown>, at: string) => MappedUser): Source {
  return {
    async *users() {
      for await (const row of tableRows(file, spec)) {
        if ('unreadable' in row) yield failedUser(row.firstCell?.trim() || `#${row.at}`, undefined, 'row-unreadable', row.unreadable);
        else yield map(row.value, row.at);
      }
    },
    notes: () => ({}),
  };
}

/** What a companion table's row gives its user: an item, nothing (a row to pass over), or why it cannot be read. */
export type JoinedRow<T> = { readonly userId: string; readonly item?: T } | { readonly unreadable: string };

/**
 * A companion table indexed by user id (Supabase's `auth.identities`, `auth.mfa_factors`): read
 * whole before the users file into a join on disk (`./disk-join.ts`: SPEC §17c, bounded memory),
 * then asked per user. It remembers which rows were asked for (a bit each), so the rows of users
 * the users file does not hold can be counted (`orphans`).
 */
export class UserJoin<T> {
  /** Rows that could not be read (their place and why; never their data). */
  readonly unreadable: { at: string; reason: string }[] = [];

  private constructor(private readonly join: DiskJoin<T>) {}

  /** Reads `file` as the `spec` table, each row through `rowOf` (`at` prefixes a refusal). */
  static async read<T>(file: string, spec: TableSpec, rowOf: (value: Record<string, unknown>, at: string) => JoinedRow<T>): Promise<UserJoin<T>> {
    const unreadable: { at: string; reason: string }[] = [];
    async function* rows(): AsyncGenerator<{ key: string; item: T }> {
      for await (const row of tableRows(file, spec)) {
        const joined: JoinedRow<T> = 'unreadable' in row ? { unreadable: row.unreadable } : rowOf(row.value, row.at);
        if ('unreadable' in joined) unreadable.push({ at: row.at, reason: joined.unreadable });
        else if (joined.item !== undefined) yield { key: joined.userId, item: joined.item };
      }
    }
    const index = new UserJoin<T>(await DiskJoin.build(rows()));
    index.unreadable.push(...unreadable);
    return index;
  }

  /** The user's rows, in file order (none: `[]`). */
  of(userId: string): readonly T[] {
    return this.join.rows(userId).map(({ ordinal, item }) => {
      this.join.mark(ordinal);
      return item;
    });
  }

  /** How many rows belong to no user of the users file. */
  orphans(): number {
    return this.join.unmarkedCount();
  }
}
