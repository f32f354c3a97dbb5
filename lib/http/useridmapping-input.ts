import type { UserIdKind } from '../storage/ports/users';
import { BadRequestError, invalidField } from './errors';
import { optionalString, type Fields } from './input';

const USER_ID_KINDS: readonly UserIdKind[] = ['SUPERTOKENS', 'EXTERNAL', 'ANY'];

/** A required id or text of the user id mapping endpoints: trimmed, and empty is refused (the core's texts). */
export function requiredTrimmed(fields: Fields, name: string, missing: (name: string) => BadRequestError = invalidField): string {
  const value = optionalString(fields, name);
  if (value === undefined) throw missing(name);
  return nonEmpty(name, value);
}

function nonEmpty(name: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new BadRequestError(`Field name '${name}' cannot be an empty String`);
  return trimmed;
}

/** `externalUserIdInfo`: absent or `null` → `null`; a string is trimmed and must not be empty. */
export function externalUserIdInfo(fields: Fields): string | null {
  const value = optionalString(fields, 'externalUserIdInfo');
  return value === undefined ? null : nonEmpty('externalUserIdInfo', value);
}

/** `userIdType`: `SUPERTOKENS`, `EXTERNAL` or `ANY` (the default). */
export function userIdType(fields: Fields): UserIdKind {
  const value = optionalString(fields, 'userIdType');
  if (value === undefined) return 'ANY';
  if (!(USER_ID_KINDS as readonly string[]).includes(value)) {
    throw new BadRequestError("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'");
  }
  return value as UserIdKind;
}

/** `force`: absent or `null` → false; else a boolean. */
export function force(fields: Fields): boolean {
  const value = fields.force;
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalidField('force');
  return value;
}
