import { UsageError } from '../errors';

/*
 * firebase-tools' `auth:export` CSV is not quite RFC 4180, so it is read by the exporter's own rule
 * (firebase-tools 15 `accountExporter.js`, `transUserToArray`): cells are quoted as RFC 4180 does
 * (`"…"`, a quote inside doubled), except cell 27, the custom claims, which the exporter writes as
 * `"` + the claims' JSON with every quote doubled **unless a backslash precedes it** + `"`. A claim
 * value holding a quote (`{"note":"say \"hi\""}`) thus comes out as `…""say \"hi\"""…`, where an
 * RFC 4180 reader (csv-parse) sees the cell end at `\"` and refuses the record. Here a quote right
 * after a backslash in cell 27 is part of the claims, exactly the characters the exporter left
 * alone, so the claims read back as the JSON export has them.
 *
 * Everything else is RFC 4180: records may span lines inside quotes, CRLF or LF, a byte-order mark
 * is dropped, empty lines are skipped. A quote in the middle of an unquoted cell is kept as a
 * character (the exporter writes a photo URL unquoted): such a record usually has the wrong number
 * of cells, and the caller fails it alone.
 */

/** The cell of the custom claims (`customAttributes`), the one the exporter escapes its own way. */
export const CLAIMS_CELL = 27;

/** One record: its cells and the line it starts on (1-based). */
export interface CsvRecord {
  readonly cells: string[];
  readonly line: number;
}

/**
 * The records of an `auth:export` CSV, read from its text in chunks. A quoted cell still open at
 * the end of the file (a file cut short) is a `UsageError`: the export is broken, nothing is read.
 */
export async function* exporterCsvRecords(chunks: AsyncIterable<string>, file: string): AsyncGenerator<CsvRecord> {
  let cells: string[] = [];
  let cell = '';
  let quoted = false; // inside a quoted cell
  let quoteSeen = false; // inside a quoted cell, a quote that may close it or be the first of `""`
  let afterBackslash = false; // the previous character of cell 27, inside quotes, was `\`
  let line = 1;
  let recordLine = 1;
  let first = true;
  const endCell = (): void => {
    cells.push(cell);
    cell = '';
  };
  const endRecord = (): CsvRecord | undefined => {
    if (cell.endsWith('\r')) cell = cell.slice(0, -1);
    endCell();
    const done = cells;
    cells = [];
    const record = done.length === 1 && done[0] === '' ? undefined : { cells: done, line: recordLine };
    recordLine = line;
    return record;
  };

  for await (let chunk of chunks) {
    if (first) {
      if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
      first = false;
    }
    for (const c of chunk) {
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === '"') {
            cell += '"';
            continue;
          }
          quoted = false; // the quote closed the cell: `c` is read below as outside quotes
        } else if (c === '"' && !(afterBackslash && cells.length === CLAIMS_CELL)) {
          quoteSeen = true;
          continue;
        } else {
          afterBackslash = c === '\\';
          if (c === '\n') line++;
          cell += c;
          continue;
        }
      }
      if (c === ',') endCell();
      else if (c === '\n') {
        line++;
        const record = endRecord();
        if (record) yield record;
      } else if (c === '"' && cell === '') {
        quoted = true;
        afterBackslash = false;
      } else cell += c;
    }
  }
  if (quoted && !quoteSeen) throw new UsageError(`${file} is cut short: the quoted cell that starts on line ${recordLine} never ends.`);
  const last = endRecord();
  if (last) yield last;
}
