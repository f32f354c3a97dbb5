import { createCipheriv, createDecipheriv } from 'node:crypto';
import { CompactSign, compactVerify, decodeJwt, errors as joseErrors } from 'jose';
import type { JsonObject } from '../../storage/model';
import type { RandomSource } from '../deps';
import type { KeyRing } from './key-ring';

/** The claims of an access token v5 that `userDataInJWT` may not hold (the core's `requiredAndProtectedPropsV5`). */
export const PROTECTED_CLAIMS = ['sub', 'exp', 'iat', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken', 'tId', 'rsub'] as const;

/** The core's 400 text for a payload holding one of them. */
export const PROTECTED_FIELD_TEXT = 'The user payload contains protected field';

export const hasProtectedClaim = (payload: JsonObject): boolean => PROTECTED_CLAIMS.some((c) => Object.hasOwn(payload, c));

/** What an access token v5 says (its user claims apart). */
export interface AccessTokenInfo {
  readonly sessionHandle: string;
  /** The primary user id. */
  readonly userId: string;
  readonly recipeUserId: string;
  readonly tenantId: string;
  readonly refreshTokenHash1: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
  /** Seconds. */
  readonly exp: number;
  readonly iat: number;
  readonly userData: JsonObject;
}

/** The `accessToken` of an answer: `expiry` and `createdTime` are `exp` and `iat` in ms (whole seconds). */
export interface TokenInfo {
  readonly token: string;
  readonly expiry: number;
  readonly createdTime: number;
}

/**
 * Signs an access token v5 exactly as the core does: header `{"alg","typ","kid","version":"5"}`,
 * the nine protected claims first (`null` where unset), then every user claim.
 */
export async function mintAccessToken(
  ring: KeyRing,
  info: Omit<AccessTokenInfo, 'exp' | 'iat'>,
  nowMs: number,
  expMs: number,
  useStaticKey: boolean,
): Promise<TokenInfo> {
  const iat = Math.floor(nowMs / 1000);
  const exp = Math.floor(expMs / 1000);
  const claims = {
    sub: info.userId,
    exp,
    iat,
    tId: info.tenantId,
    rsub: info.recipeUserId,
    sessionHandle: info.sessionHandle,
    refreshTokenHash1: info.refreshTokenHash1,
    parentRefreshTokenHash1: info.parentRefreshTokenHash1,
    antiCsrfToken: info.antiCsrfToken,
    ...info.userData,
  };
  const key = await ring.signer(useStaticKey);
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid, version: '5' })
    .sign(key.privateKey);
  return { token, expiry: exp * 1000, createdTime: iat * 1000 };
}

/** A token that does not verify, with the core's message (`TRY_REFRESH_TOKEN`). */
export class InvalidAccessToken extends Error {}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The claims every v5 token holds, each with its type. */
const CLAIM_TESTS: readonly [string, (v: unknown) => boolean][] = [
  ['sub', isString],
  ['exp', isNumber],
  ['iat', isNumber],
  ['tId', isString],
  ['rsub', isString],
  ['sessionHandle', isString],
  ['refreshTokenHash1', isString],
  ['parentRefreshTokenHash1', isNullableString],
  ['antiCsrfToken', isNullableString],
];

/** Reads the claims of a token's payload, or throws `InvalidAccessToken` with the core's text. */
function claimsOf(payload: Record<string, unknown>): AccessTokenInfo {
  for (const [claim, test] of CLAIM_TESTS) {
    if (!(claim in payload) || !test(payload[claim])) {
      throw new InvalidAccessToken(`Access token does not contain all the information. Maybe the structure has changed? ${claim}`);
    }
  }
  const userData: JsonObject = {};
  for (const [k, v] of Object.entries(payload)) if (!(PROTECTED_CLAIMS as readonly string[]).includes(k)) userData[k] = v;
  return {
    userId: payload.sub as string,
    exp: payload.exp as number,
    iat: payload.iat as number,
    tenantId: payload.tId as string,
    recipeUserId: payload.rsub as string,
    sessionHandle: payload.sessionHandle as string,
    refreshTokenHash1: payload.refreshTokenHash1 as string,
    parentRefreshTokenHash1: payload.parentRefreshTokenHash1 as string | null,
    antiCsrfToken: payload.antiCsrfToken as string | null,
    userData,
  };
}

function parsePayload(bytes: Uint8Array): Record<string, unknown> {
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new InvalidAccessToken('Invalid JWT');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new InvalidAccessToken('Invalid JWT');
  return payload as Record<string, unknown>;
}

/**
 * Verifies an access token: RS256 only (jose refuses `none`, HS256 and every other `alg` before
 * any key is used), header `typ: JWT` and `version: "5"` (absent is read as "5", as the core reads
 * a JWT the session recipe did not make: `POST /recipe/jwt`'s carry none), the key by `kid` among
 * the live ones, every claim, and expiry at `nowMs`. Any failure throws `InvalidAccessToken`.
 */
export async function verifyAccessToken(ring: KeyRing, token: string, nowMs: number): Promise<AccessTokenInfo> {
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(
      token,
      async (header) => {
        const version = header.version === undefined ? '5' : header.version;
        if (header.typ !== 'JWT' || version !== '5' || typeof header.kid !== 'string') throw new InvalidAccessToken('Invalid JWT');
        const key = await ring.verifier(header.kid);
        if (!key) throw new InvalidAccessToken('Key not found');
        return key;
      },
      { algorithms: ['RS256'] },
    );
    payload = parsePayload(verified.payload);
  } catch (err) {
    if (err instanceof InvalidAccessToken) throw err;
    if (err instanceof joseErrors.JOSEError) throw new InvalidAccessToken('JWT verification failed');
    throw err;
  }
  const info = claimsOf(payload);
  if (info.exp * 1000 < nowMs) throw new InvalidAccessToken('Access token expired');
  return info;
}

/**
 * Reads a token without checking its signature (regenerate: the SDK verified it, as with the
 * core). A token that does not parse, or lacks a claim, throws `InvalidAccessToken`.
 */
export function decodeAccessTokenUnverified(token: string): AccessTokenInfo {
  let payload: Record<string, unknown>;
  try {
    payload = decodeJwt(token);
  } catch {
    throw new InvalidAccessToken('Invalid JWT');
  }
  return claimsOf(payload);
}

/** What a refresh token carries, sealed: nothing of it is readable without the table's key. */
export interface RefreshTokenContent {
  readonly sessionHandle: string;
  /** `sha256hex` of the refresh token it was issued from (none for a session's first). */
  readonly parentRefreshTokenHash1?: string;
  readonly antiCsrfToken?: string;
}

const REFRESH_SUFFIX = '.V2';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The seal's associated data: a token sealed for another purpose with the same key would not open. */
const AAD = Buffer.from('auth-core refresh token v2', 'utf8');

/**
 * Seals a refresh token: AES-256-GCM (random 96-bit IV) over the handle, the parent's hash, the
 * anti-CSRF token and 16 random bytes, base64url, then `.V2` like the core's. Unlike the core's,
 * the inner format is ours (SPEC §18: tokens of a SuperTokens core need not be accepted).
 */
export function sealRefreshToken(key: Buffer, content: RefreshTokenContent, random: RandomSource): string {
  const plain = Buffer.from(
    JSON.stringify({ h: content.sessionHandle, p: content.parentRefreshTokenHash1, a: content.antiCsrfToken, n: random.bytes(16).toString('base64url') }),
    'utf8',
  );
  const iv = random.bytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return `${sealed.toString('base64url')}${REFRESH_SUFFIX}`;
}

/** Opens a refresh token; `undefined` for anything that is not one this service sealed. */
export function openRefreshToken(key: Buffer, token: string): RefreshTokenContent | undefined {
  if (!token.endsWith(REFRESH_SUFFIX)) return undefined;
  const body = token.slice(0, -REFRESH_SUFFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined;
  const sealed = Buffer.from(body, 'base64url');
  if (sealed.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
    const c = JSON.parse(plain.toString('utf8')) as { h?: unknown; p?: unknown; a?: unknown };
    if (typeof c.h !== 'string') return undefined;
    return {
      sessionHandle: c.h,
      ...(typeof c.p === 'string' ? { parentRefreshTokenHash1: c.p } : {}),
      ...(typeof c.a === 'string' ? { antiCsrfToken: c.a } : {}),
    };
  } catch {
    return undefined;
  }
}
