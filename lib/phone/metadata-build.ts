/**
 * The phone metadata the service bundles (`./metadata.json`): libphonenumber-js's `min` metadata
 * without the national formatting rules (index 4 of each country), which turning a number into
 * E.164 never reads. They are 50 of its 83 KB, in every function that takes a phone number.
 * `npm run phone-metadata` writes the file; a unit test checks it is what this function makes
 * from the installed libphonenumber-js, and that every country's example numbers normalise
 * exactly as with the full metadata.
 */
export function e164Metadata(min: { countries: Record<string, unknown[]>; nonGeographic?: Record<string, unknown[]> } & Record<string, unknown>): unknown {
  const strip = (table: Record<string, unknown[]> | undefined) =>
    table && Object.fromEntries(Object.entries(table).map(([key, entry]) => [key, entry.map((part, i) => (i === 4 ? 0 : part))]));
  return { ...min, countries: strip(min.countries), ...(min.nonGeographic ? { nonGeographic: strip(min.nonGeographic) } : {}) };
}
