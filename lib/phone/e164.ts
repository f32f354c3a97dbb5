import { parsePhoneNumberWithError, type MetadataJson } from 'libphonenumber-js/core';
import metadata from './metadata.json';

/**
 * A phone number in international format as E.164 (`+1 650-555-1234` → `+16505551234`), with
 * libphonenumber-js's `min` metadata minus the formatting rules E.164 never reads
 * (`./metadata-build.ts`). Throws when it is not a phone number.
 */
export function toE164(international: string): string {
  return parsePhoneNumberWithError(international, { extract: false }, metadata as unknown as MetadataJson).format('E.164');
}
