import { TENANT_FACTOR_LISTS, type TenantFactorsChange } from '../storage/model';
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

/** At most this many factors in a list, each at most this long (SPEC §18b). */
export const MAX_FACTORS = 20;
export const MAX_FACTOR_LENGTH = 64;

/** A factor name as the core allows it (`BaseCreateOrUpdate.areFactorNamesValid`). */
const FACTOR_NAME = /^[0-9a-zA-Z_.()-]+$/;

/** The tenant v1 API's flags and the core's text refusing each on the v2 API. */
const V1_FLAGS: readonly (readonly [string, string])[] = [
  ['emailPasswordEnabled', 'emailPasswordEnabled is not a valid input for this API'],
  ['thirdPartyEnabled', 'thirdParty is not a valid input for this API'],
  ['passwordlessEnabled', 'passwordless is not a valid input for this API'],
];

/**
 * The factor lists a tenant `PUT` sets (SPEC §18b): each absent (unchanged), `null` (cleared) or
 * an array of 1 to 64-character names, at most 20. A `coreConfig` with any setting is refused:
 * core settings are the deployment's, not a tenant's.
 */
export function tenantFactorsChange(body: Fields): TenantFactorsChange {
  // The v1 flags, refused by the v2 API with the core's texts (its `applyV2TenantUpdates_5_1`).
  for (const [flag, text] of V1_FLAGS) if (flag in body) throw new BadRequestError(text);
  const coreConfig = body.coreConfig;
  if (coreConfig !== undefined && coreConfig !== null) {
    if (typeof coreConfig !== 'object' || Array.isArray(coreConfig)) throw new BadRequestError("Field name 'coreConfig' is invalid in JSON input");
    if (Object.keys(coreConfig).length > 0) throw new BadRequestError('coreConfig is not supported; configure the deployment instead');
  }
  const change: Record<string, readonly string[] | null> = {};
  for (const name of TENANT_FACTOR_LISTS) {
    const value = body[name];
    if (value === undefined) continue;
    const valid =
      value === null ||
      (Array.isArray(value) && value.length <= MAX_FACTORS && value.every((f) => typeof f === 'string' && f.length > 0 && f.length <= MAX_FACTOR_LENGTH));
    if (!valid) {
      throw new BadRequestError(
        `Field name '${name}' is invalid: give null or an array of at most ${MAX_FACTORS} factor names of 1 to ${MAX_FACTOR_LENGTH} characters`,
      );
    }
    if (Array.isArray(value)) {
      // The core's checks and texts, after its parse: no name twice, and only these characters.
      if (new Set(value).size !== value.length) throw new BadRequestError(`${name} input should not contain duplicate values`);
      if (!value.every((f: string) => FACTOR_NAME.test(f))) throw new BadRequestError(`${name} should contain only 0-9,a-z,A-Z,_,.,- characters`);
    }
    change[name] = value as readonly string[] | null;
  }
  return change;
}

/**
 * The `recipeUserId` of a user–tenant association (SPEC §22): §1's text when missing or not a
 * string; trimmed; empty, the core's text (which names `userId`).
 */
export function associatedUserId(body: Fields): string {
  const id = requiredString(body, 'recipeUserId').trim();
  if (id === '') throw new BadRequestError("Field name 'userId' cannot be an empty String");
  return id;
}
