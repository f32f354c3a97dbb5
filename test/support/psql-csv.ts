/**
 * Tables as psql's `\copy (select * from t) to f csv header` writes them (Supabase's `auth.users`
 * and `auth.identities`): used by the Supabase source's tests and the bench's Supabase export.
 */

/** jsonb as psql prints it: `{"a": 1, "b": [1, 2]}`. */
export const jsonb = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(jsonb).join(', ')}]`
    : v !== null && typeof v === 'object'
      ? `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}: ${jsonb(x)}`)
          .join(', ')}}`
      : JSON.stringify(v);

/** A cell as `\copy … csv header` writes it: NULL empty, `t`/`f`, `2023-01-02 03:04:05.678901+00`, quoted when it must be. */
export const psqlCell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  const s = typeof v === 'object' ? jsonb(v) : String(v).replace(/^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)\+00:00$/, '$1 $2+00');
  return s === '' || /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One row (a missing column is NULL), without its line end. */
export const psqlRow = (columns: readonly string[], row: Record<string, unknown>): string => columns.map((c) => psqlCell(row[c])).join(',');

/** A whole table, its header the first row's columns. */
export const psqlCsv = (rows: Record<string, unknown>[]): string => {
  const columns = Object.keys(rows[0]);
  return [columns.join(','), ...rows.map((r) => psqlRow(columns, r))].join('\n') + '\n';
};
