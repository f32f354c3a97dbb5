import { fromBase64Url } from '../../webauthn/base64url';
import type { Expected } from '../../webauthn/ceremony';
import type { WebauthnOptionsRecord } from '../../storage/model';

/**
 * The options' rules and defaults as the core has them (SPEC §21; `OptionsValidator`, the
 * options APIs), and what a ceremony reads of stored options.
 */

export const DEFAULT_TIMEOUT_MS = 6000;
export const DEFAULT_ALGORITHMS = [-8, -7, -257] as const;

export type InvalidOptions = { status: 'INVALID_OPTIONS_ERROR'; reason: string };
export const invalidOptions = (reason: string): InvalidOptions => ({ status: 'INVALID_OPTIONS_ERROR', reason });
export const OPTIONS_NOT_FOUND = { status: 'OPTIONS_NOT_FOUND_ERROR' } as const;

/** What an options request asks for, defaults applied (`attestation`, `residentKey`, algorithms: registration only). */
export interface OptionsRequest {
  readonly relyingPartyId: string;
  readonly relyingPartyName: string;
  readonly origin: string;
  readonly timeout: number;
  readonly userVerification: string;
  readonly userPresence: boolean;
  readonly attestation: string;
  readonly residentKey: string;
  readonly supportedAlgorithmIds: readonly unknown[];
}

const ANDROID_ORIGIN = 'android:apk-key-hash:';

/** The core's origin rule: a URL whose host ends with the RP id, or an Android app's key hash. */
function originProblem(origin: string, rpId: string): string | undefined {
  if (origin.startsWith(ANDROID_ORIGIN)) {
    const hash = origin.slice(ANDROID_ORIGIN.length);
    if (hash === '') return 'Android origin must contain a valid base64 hash';
    const bytes = fromBase64Url(hash);
    if (!bytes || hash.includes('=')) return 'Android origin hash must be valid URL-safe base64 (no padding)';
    if (hash.length !== 43) return 'Android origin hash must be 43 characters (base64url SHA-256)';
    return bytes.length === 32 ? undefined : 'Android origin hash must decode to 32 bytes (SHA-256)';
  }
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return 'Origin has to be a valid url!';
  }
  return host.endsWith(rpId) ? undefined : 'Origin does not match RelyingParty Id';
}

const oneOf = (value: string, allowed: readonly string[], field: string): string | undefined =>
  allowed.includes(value) ? undefined : `Invalid value '${value.slice(0, 64)}' for ${field}. Must be one of: ${allowed.join(', ')}`;

const REQUIREMENT = ['required', 'discouraged', 'preferred'];

/** The first rule the request breaks, in the core's order, or `undefined`. */
export function optionsProblem(r: OptionsRequest): InvalidOptions | undefined {
  const problem =
    originProblem(r.origin, r.relyingPartyId) ??
    (r.timeout < 0 ? 'Timeout must be a positive value' : undefined) ??
    oneOf(r.userVerification, REQUIREMENT, 'userVerification') ??
    oneOf(r.attestation, ['none', 'indirect', 'direct', 'enterprise'], 'attestation') ??
    oneOf(r.residentKey, REQUIREMENT, 'residentKey') ??
    (r.supportedAlgorithmIds.every((alg) => Number.isSafeInteger(alg)) ? undefined : 'supportedAlgorithmIds must hold integers');
  return problem === undefined ? undefined : invalidOptions(problem);
}

/** What a ceremony on these options must match. */
export const expectedOf = (o: WebauthnOptionsRecord): Expected => ({
  challenge: o.challenge,
  origin: o.origin,
  rpId: o.rpId,
  userVerification: o.userVerification,
  userPresence: o.userPresence,
});

/** The core's check before verifying: options past `expiresAt` (SPEC §21: judged on read). */
export const expired = (o: WebauthnOptionsRecord, now: number): InvalidOptions | undefined =>
  o.expiresAt < now ? invalidOptions('Options expired') : undefined;
