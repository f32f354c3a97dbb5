import { canonical } from '../canonical-json';
import { emailOf, phoneOf } from './mapping';
import type { BulkLoginMethodInput, BulkUserInput } from './model';

/**
 * What `migrate verify` compares (SPEC §17c): one mapped user (the bulk user the import sends)
 * against what the service holds for it, field by field. Pure: the reads are `verify.ts`'s.
 *
 * - Login methods are matched by recipe and identity (`emailpassword:ada@x.example`,
 *   `passwordless:+14155550100`, `thirdparty:google:1234`, `webauthn:ada@x.example`); a method
 *   on one side only is a `loginMethods` difference listing both sides' methods, whatever its
 *   recipe. A method on both sides is compared by its verified flag, tenants, `timeJoined`, the
 *   email or phone its identity does not already name, and (webauthn) its carried passkeys: each
 *   credential id must be the service's (`loginMethods[webauthn:…].credentials`); a passkey the
 *   app added beside them is no difference.
 * - Metadata, roles and TOTP devices are compared where the mapping has them: every mapped
 *   metadata key with an equal value, every mapped role, every mapped device (name, period, skew,
 *   verified). What the app added beside them (another key, role or device) is no difference.
 * - A password hash is never compared or shown: the service never answers with one.
 */

/** A login method as `GET /user/id` shows it (SPEC §4); `recipeId` may be a recipe this command does not know. */
export interface ServiceLoginMethod {
  readonly recipeId: string;
  readonly tenantIds: readonly string[];
  readonly verified: boolean;
  readonly timeJoined: number;
  readonly recipeUserId?: string;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
  /** A webauthn login method's passkeys (SPEC §21). */
  readonly webauthn?: { readonly credentialIds: readonly string[] };
}

/** A user as `GET /user/id` shows it: the fields verify reads. */
export interface ServiceUserView {
  readonly id: string;
  readonly timeJoined: number;
  readonly loginMethods: readonly ServiceLoginMethod[];
}

/** A TOTP device as `GET /recipe/totp/device/list` shows it: never its secret. */
export interface ServiceDevice {
  readonly name: string;
  readonly period: number;
  readonly skew: number;
  readonly verified: boolean;
}

/** What the service holds for a user: the user, and the reads the mapping called for. */
export interface ServiceSide {
  readonly user: ServiceUserView;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly roles?: readonly string[];
  readonly devices?: readonly ServiceDevice[];
}

/** One differing field, named by path; `null` where a side has nothing (a metadata key, a method). */
export interface Difference {
  readonly field: string;
  readonly export: unknown;
  readonly service: unknown;
}

/** Which reads beyond `GET /user/id` a mapped user calls for. */
export function readsFor(user: BulkUserInput, tenant: string): { metadata: boolean; roles: boolean; devices: boolean } {
  return {
    metadata: Object.keys(user.userMetadata ?? {}).length > 0,
    roles: rolesIn(user, tenant).length > 0,
    devices: (user.totpDevices ?? []).length > 0,
  };
}

/** The roles a mapped user has in the tenant verify reads. */
function rolesIn(user: BulkUserInput, tenant: string): string[] {
  const roles = (user.userRoles ?? []).filter((r) => !Array.isArray(r.tenantIds) || r.tenantIds.length === 0 || r.tenantIds.includes(tenant));
  return [...new Set(roles.map((r) => r.role))].sort();
}

/** A login method of either side, as the differences name it (a mapped one is one as it is). */
interface Method {
  readonly recipeId: string;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdPartyId?: string;
  readonly thirdPartyUserId?: string;
  readonly fallback?: string;
}

/** A login method's name: its recipe and identity, what the service keeps unique for the recipe. */
export function methodKey(m: Method): string {
  const email = emailOf(m.email) ?? m.email;
  const phone = phoneOf(m.phoneNumber) ?? m.phoneNumber;
  if (m.recipeId === 'thirdparty') return `thirdparty:${m.thirdPartyId}:${m.thirdPartyUserId}`;
  if (m.recipeId === 'emailpassword') return `emailpassword:${email}`;
  return `${m.recipeId}:${email ?? phone ?? m.fallback ?? '?'}`;
}

/** A service login method's name (`GET /user/id`, `GET /users`); a method with neither email nor phone is named by its id. */
export const serviceMethodKey = (lm: Omit<ServiceLoginMethod, 'verified' | 'timeJoined' | 'tenantIds'>): string =>
  methodKey({
    recipeId: lm.recipeId,
    email: lm.email,
    phoneNumber: lm.phoneNumber,
    thirdPartyId: lm.thirdParty?.id,
    thirdPartyUserId: lm.thirdParty?.userId,
    fallback: lm.recipeUserId,
  });

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const sorted = (values: Iterable<string>) => [...values].sort();

/** The service's name for an imported device that had none (SPEC §20). */
const DEFAULT_DEVICE_NAME = /^TOTP Device \d+$/;

function compareMethod(key: string, mapped: BulkLoginMethodInput, held: ServiceLoginMethod, out: Difference[]): void {
  const field = (name: string, exported: unknown, service: unknown) => {
    if (!same(exported, service)) out.push({ field: `loginMethods[${key}].${name}`, export: exported, service });
  };
  field('verified', mapped.isVerified === true, held.verified);
  const tenants = (ids: readonly string[] | undefined) => sorted(new Set((ids ?? []).map((t) => String(t).trim().toLowerCase())));
  field('tenantIds', tenants(mapped.tenantIds), tenants(held.tenantIds));
  if (typeof mapped.timeJoinedInMSSinceEpoch === 'number') field('timeJoined', mapped.timeJoinedInMSSinceEpoch, held.timeJoined);
  // The email or phone the key does not hold: a third party's email, a second identity of a passwordless method.
  const keyed = key.slice(key.indexOf(':') + 1);
  const email = emailOf(mapped.email) ?? mapped.email ?? null;
  const phone = phoneOf(mapped.phoneNumber) ?? mapped.phoneNumber ?? null;
  if (email !== keyed) field('email', email, held.email ?? null);
  if (phone !== keyed) field('phoneNumber', phone, held.phoneNumber ?? null);
  // Every carried passkey under the login method (by credential id: the service never shows a key);
  // one the app added beside them is no difference.
  if (mapped.recipeId === 'webauthn') {
    const have = new Set(held.webauthn?.credentialIds ?? []);
    const carried = sorted(new Set((mapped.credentials ?? []).map((c) => c.credentialId)));
    if (carried.some((id) => !have.has(id))) out.push({ field: `loginMethods[${key}].credentials`, export: carried, service: sorted(have) });
  }
}

function compareDevices(mapped: NonNullable<BulkUserInput['totpDevices']>, held: readonly ServiceDevice[], out: Difference[]): void {
  const named = new Map(held.map((d) => [d.name, d]));
  const unclaimed = held.filter((d) => DEFAULT_DEVICE_NAME.test(d.name) && !mapped.some((m) => m.deviceName === d.name));
  let lost = false;
  for (const device of mapped) {
    const match = device.deviceName !== undefined ? named.get(device.deviceName) : unclaimed.shift();
    if (!match) {
      lost = true;
      continue;
    }
    const field = (name: string, exported: unknown, service: unknown) => {
      if (!same(exported, service)) out.push({ field: `totpDevices[${match.name}].${name}`, export: exported, service });
    };
    field('period', device.period, match.period);
    field('skew', device.skew, match.skew);
    field('verified', true, match.verified);
  }
  if (lost) {
    out.push({ field: 'totpDevices', export: sorted(mapped.map((d) => d.deviceName ?? '(unnamed)')), service: sorted(held.map((d) => d.name)) });
  }
}

/**
 * The differences between a mapped user and what the service holds for it, in a stable order
 * (none: the user is a `match`). `externalId` is the id the user was looked up by, when it has one.
 */
export function compareUser(user: BulkUserInput, externalId: string | undefined, held: ServiceSide, tenant: string): Difference[] {
  const out: Difference[] = [];
  if (externalId !== undefined && held.user.id !== externalId) out.push({ field: 'userId', export: externalId, service: held.user.id });
  const methods = Array.isArray(user.loginMethods) ? user.loginMethods : [];
  const times = methods.map((m) => m.timeJoinedInMSSinceEpoch).filter((t): t is number => typeof t === 'number');
  if (times.length > 0 && Math.min(...times) !== held.user.timeJoined)
    out.push({ field: 'timeJoined', export: Math.min(...times), service: held.user.timeJoined });

  const mapped = new Map(methods.map((m) => [methodKey(m), m]));
  const service = new Map(held.user.loginMethods.map((m) => [serviceMethodKey(m), m]));
  const both = sorted([...mapped.keys()].filter((k) => service.has(k)));
  if (both.length !== mapped.size || both.length !== service.size) {
    out.push({ field: 'loginMethods', export: sorted(mapped.keys()), service: sorted(service.keys()) });
  }
  for (const key of both) compareMethod(key, mapped.get(key)!, service.get(key)!, out);

  for (const [key, value] of Object.entries(user.userMetadata ?? {})) {
    const have = held.metadata?.[key] ?? null;
    if (!same(value, have)) out.push({ field: `metadata.${key}`, export: value, service: have });
  }
  const roles = rolesIn(user, tenant);
  if (roles.length > 0) {
    const have = new Set(held.roles ?? []);
    if (roles.some((r) => !have.has(r))) out.push({ field: 'roles', export: roles, service: sorted(have) });
  }
  if ((user.totpDevices ?? []).length > 0) compareDevices(user.totpDevices!, held.devices ?? [], out);
  return out;
}
