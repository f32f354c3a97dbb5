import fc from 'fast-check';
import { CLAIMS_CELL, exporterCsvRecords, type CsvRecord } from '../../lib/migrate/sources/firebase-csv';
import { UsageError } from '../../lib/migrate/errors';

/**
 * The Firebase CSV reader against the exporter's own writing rules, copied from firebase-tools 15
 * `lib/accountExporter.js`: `escapeCsv` for the display names, and cell 27's
 * `"${customAttributes.replace(/(?<!\\)"/g, '""')}"`, which leaves a quote after a backslash as it is.
 */
const escapeCsv = (s: string): string => (/[,"\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const exporterClaims = (json: string): string => `"${json.replace(/(?<!\\)"/g, '""')}"`;

/** A record as the exporter writes it: 52 cells, the trailing comma, `\n`. */
function exporterLine(cells: readonly string[]): string {
  return `${cells.map((c, i) => (i === CLAIMS_CELL ? (c === '' ? '' : exporterClaims(c)) : escapeCsv(c))).join(',')},\n`;
}

async function read(text: string, chunkSize = text.length || 1): Promise<CsvRecord[]> {
  async function* chunks() {
    for (let i = 0; i < text.length; i += chunkSize) yield text.slice(i, i + chunkSize);
  }
  const out: CsvRecord[] = [];
  for await (const r of exporterCsvRecords(chunks(), 'users.csv')) out.push(r);
  return out;
}

const record = (claims: string, name = ''): string[] => {
  const cells = Array.from({ length: 52 }, () => '');
  cells[0] = 'uid-1';
  cells[5] = name;
  cells[CLAIMS_CELL] = claims;
  return cells;
};

describe("the Firebase CSV, read by the exporter's own rule", () => {
  it('reads claims holding an escaped quote as the JSON export has them, where RFC 4180 readers fail', async () => {
    const claims = JSON.stringify({ note: 'say "hi"', tier: 2 });
    const line = exporterLine(record(claims));
    expect(line).toContain('""say \\"hi\\"""'); // as the fixture's e02 row
    const [got] = await read(line);
    expect(JSON.parse(got.cells[CLAIMS_CELL])).toEqual({ note: 'say "hi"', tier: 2 });
    expect(got.cells).toHaveLength(53);
  });

  it('a claim ending in a backslash, an empty string and a quote right after a backslash pair', async () => {
    for (const claims of [{ path: 'C:\\' }, { empty: '', next: 'x' }, { both: '\\"', x: '\\\\"' }, { a: '"', b: '""' }]) {
      const [got] = await read(exporterLine(record(JSON.stringify(claims))));
      expect(JSON.parse(got.cells[CLAIMS_CELL])).toEqual(claims);
    }
  });

  it('keeps RFC 4180 everywhere else: a quoted display name with quotes, commas and a line break', async () => {
    const name = 'Anne "Annie" O\'Neil, PhD\nLondon office \\"x\\"';
    const text = exporterLine(record('', name)) + exporterLine(record(JSON.stringify({ a: 1 })));
    const got = await read(text);
    expect(got.map((r) => [r.line, r.cells[5], r.cells.length])).toEqual([
      [1, name, 53],
      [3, '', 53],
    ]);
  });

  it('drops a byte-order mark, reads CRLF, skips empty lines, and needs no newline at the end', async () => {
    const got = await read(`\uFEFFa,"b\r\nc",d\r\n\r\n\ne,f`);
    expect(got).toEqual([
      { cells: ['a', 'b\r\nc', 'd'], line: 1 },
      { cells: ['e', 'f'], line: 5 },
    ]);
  });

  it('keeps a quote in the middle of an unquoted cell as a character, so the record has its own width', async () => {
    const [got] = await read('u1,https://x.example/a"b,c\n');
    expect(got.cells).toEqual(['u1', 'https://x.example/a"b', 'c']);
  });

  it('a quoted cell never closed is a file cut short: a usage error naming its line', async () => {
    await expect(read('a,b\nc,"d,e\nf\n')).rejects.toThrow(new UsageError('users.csv is cut short: the quoted cell that starts on line 2 never ends.'));
  });

  it('reads back any claims and display names the exporter writes, whatever the chunking', async () => {
    const json = fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constantFrom('\\', '"', '\\"', '\\\\"', '""')));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(json, fc.string()), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 64 }), async (rows, chunkSize) => {
        const cells = rows.map(([claims, name]) => record(JSON.stringify(claims), name));
        const got = await read(cells.map(exporterLine).join(''), chunkSize);
        expect(got.map((r) => r.cells)).toEqual(cells.map((c) => [...c, '']));
      }),
      { numRuns: 300 },
    );
  });
});
