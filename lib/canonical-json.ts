/**
 * A JSON value written with every object's keys sorted, so two values are equal when these
 * strings are, whatever order their keys were set in. Keys whose value is `undefined` are left
 * out, as `JSON.stringify` leaves them out; array order counts. Used to compare stored items
 * (`lib/storage`), a migrated user with the service (`lib/migrate`) and tenant configs.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
