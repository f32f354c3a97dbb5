import { BadRequestError } from './errors';
import { requiredString, type Fields } from './input';
import { parseTenantId } from './tenant-path';

/** Reads and normalises the `tenantId` field of a tenant-management body. */
export function requiredTenantId(body: Fields): string {
  const tenantId = parseTenantId(requiredString(body, 'tenantId'));
  if (tenantId === undefined) {
    throw new BadRequestError("Field name 'tenantId' is invalid: use lower-case letters, digits and '-', not a reserved word or 'appid-' prefix");
  }
  return tenantId;
}
