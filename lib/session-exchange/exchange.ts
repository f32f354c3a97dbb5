import { sameSecret, sha256hex } from '../digest';
import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Deps } from '../recipes/deps';
import { findMapping } from '../recipes/useridmapping/find-mapping';
import { toApiUser, type ApiUser } from '../recipes/users/api-user';
import type { ExchangeReplay } from '../storage/ports/sessions';
import { issuerKeys, secretKeyOf } from './issuer-keys';
import type { ExchangeIssuer } from './issuers';
import type { IssuerKey } from './public-keys';

/**
 * `POST [/<t>]/recipe/migration/session/exchange` (SPEC §19): an old provider's token, verified here
 * (issuer, window, algorithm, signature, claims), mapped to the imported user of its external id,
 * and used once. The checks run in the SPEC's order; each failure answers at once.
 */

export type ExchangeResult =
  | {
      status: 'OK';
      user: ApiUser;
      recipeUserId: string;
      externalUserId: string;
      tenantId: string;
      issuer: string;
      authTime?: number;
      signInProvider?: string;
    }
  | { status: 'INVALID_TOKEN_ERROR'; reason: string }
  | { status: 'UNKNOWN_ISSUER_ERROR' }
  | { status: 'EXCHANGE_WINDOW_CLOSED_ERROR' }
  | { status: 'UNKNOWN_USER_ERROR' }
  | { status: 'TOKEN_ALREADY_USED_ERROR' };

export const REASONS = {
  malformed: 'The token is not a well-formed JWT',
  issuer: "The token's issuer is not accepted",
  algorithm: "The token's algorithm is not accepted",
  signature: "The token's signature is invalid",
  unknownKey: "The token's key is unknown",
  expired: 'The token has expired',
  notYetValid: 'The token is not valid yet',
  audience: "The token's audience is not accepted",
  subject: 'The token has no usable subject',
  tooOld: 'The token is too old',
} as const;

/** How long the `OK` of an exchange with an `Idempotency-Key` is answered again to that key. */
export const IDEMPOTENCY_WINDOW_MS = 60_000;

const invalid = (reason: string): ExchangeResult => ({ status: 'INVALID_TOKEN_ERROR', reason });

export interface ExchangeInput {
  readonly token: string;
  /** A configured issuer's `id`, when the caller names it. */
  readonly issuer: string | undefined;
  readonly idempotencyKey: string | undefined;
}

/** Which family of key an algorithm needs (`node:crypto` key types). */
function keyFits(alg: string, k: IssuerKey): boolean {
  if (k.alg !== undefined && k.alg !== alg) return false;
  const type = k.key.asymmetricKeyType;
  if (alg.startsWith('RS') || alg.startsWith('PS')) return type === 'rsa';
  if (alg === 'ES256') return type === 'ec' && k.key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (alg === 'ES384') return type === 'ec' && k.key.asymmetricKeyDetails?.namedCurve === 'secp384r1';
  return false;
}

async function verifiesWith(token: string, alg: string, keys: readonly IssuerKey['key'][]): Promise<boolean> {
  for (const key of keys) {
    try {
      await compactVerify(token, key, { algorithms: [alg] });
      return true;
    } catch {
      // The next key, if any.
    }
  }
  return false;
}

/** Step 5: the signature. `undefined` when it verifies, else the reason. */
async function checkSignature(token: string, alg: string, kid: string | undefined, issuer: ExchangeIssuer, now: number): Promise<string | undefined> {
  if (alg === 'none') return token.endsWith('.') ? undefined : REASONS.signature;
  if (alg === 'HS256') return (await verifiesWith(token, alg, issuer.secret === undefined ? [] : [secretKeyOf(issuer.secret)])) ? undefined : REASONS.signature;
  const keys = await issuerKeys(issuer, kid, now);
  const candidates = kid === undefined ? keys : keys.filter((k) => k.kid === kid);
  if (kid !== undefined && candidates.length === 0) return REASONS.unknownKey;
  const usable = candidates.filter((k) => keyFits(alg, k)).map((k) => k.key);
  return (await verifiesWith(token, alg, usable)) ? undefined : REASONS.signature;
}

const audiencesOf = (aud: unknown): string[] =>
  typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];

function audienceAccepted(issuer: ExchangeIssuer, claims: JWTPayload): boolean {
  const audOk = audiencesOf(claims.aud).some((a) => issuer.audiences.includes(a));
  const cognito = issuer.cognito;
  if (cognito) {
    // An ID token names the app client in `aud`; an access token has no `aud`, its `client_id` does.
    const idOk = claims.token_use === 'id' && audOk;
    const accessOk = claims.token_use === 'access' && typeof claims.client_id === 'string' && issuer.audiences.includes(claims.client_id);
    return cognito.tokenUse === 'id' ? idOk : cognito.tokenUse === 'access' ? accessOk : idOk || accessOk;
  }
  return audOk;
}

/** Step 6: the claims, with the issuer's clock skew. `undefined` when they pass, else the reason. */
function checkClaims(issuer: ExchangeIssuer, claims: JWTPayload, now: number): string | undefined {
  const nowS = now / 1000;
  const skew = issuer.clockSkewSeconds;
  if (typeof claims.exp !== 'number' || nowS > claims.exp + skew) return REASONS.expired;
  // `auth_time` too, as Firebase's own verifier checks it: a sign-in in the future is no sign-in.
  const future = (t: unknown) => typeof t === 'number' && t > nowS + skew;
  if (future(claims.nbf) || future(claims.iat) || future(claims.auth_time)) return REASONS.notYetValid;
  if (!audienceAccepted(issuer, claims)) return REASONS.audience;
  const ext = claims[issuer.externalIdClaim];
  if (typeof ext !== 'string' || ext === '' || ext.length > 128) return REASONS.subject;
  if (issuer.maxTokenAgeSeconds !== undefined && (typeof claims.iat !== 'number' || nowS - claims.iat > issuer.maxTokenAgeSeconds + skew))
    return REASONS.tooOld;
  return undefined;
}

/** The `OK` kept for this `Idempotency-Key` (by its hash) while its window lasts, else `undefined`. */
function replayed(kept: ExchangeReplay | undefined, keyHash: string, now: number): ExchangeResult | undefined {
  if (!kept || now >= kept.until || !sameSecret(kept.keyHash, keyHash)) return undefined;
  return JSON.parse(kept.answer) as ExchangeResult;
}

/** The issuer a token names: by the body's `issuer` id, else by its `iss` exactly. */
function issuerOf(issuers: readonly ExchangeIssuer[], named: string | undefined, iss: unknown): ExchangeIssuer | 'unknown' | 'mismatch' {
  if (typeof iss !== 'string') return 'unknown';
  if (named !== undefined) {
    const issuer = issuers.find((i) => i.id === named);
    if (!issuer) return 'unknown';
    return issuer.issuers.includes(iss) ? issuer : 'mismatch';
  }
  return issuers.find((i) => i.issuers.includes(iss)) ?? 'unknown';
}

/**
 * The exchange. Throws `KeysUnavailableError` when the issuer's keys cannot be fetched (a 503).
 * Only an `OK` consumes the token; with an `Idempotency-Key`, that `OK` is answered again to the same
 * key and token for `IDEMPOTENCY_WINDOW_MS`.
 */
export async function exchangeToken(
  deps: Pick<Deps, 'users' | 'sessions' | 'clock'>,
  issuers: readonly ExchangeIssuer[],
  tenantId: string,
  input: ExchangeInput,
): Promise<{ result: ExchangeResult; issuerId?: string }> {
  const { token } = input;
  // 1. Decoded without trusting it.
  const segments = token.split('.');
  let claims: JWTPayload;
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    if (segments.length !== 3) throw new Error('segments');
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    return { result: invalid(REASONS.malformed) };
  }
  // 2. Issuer.
  const issuer = issuerOf(issuers, input.issuer, claims.iss);
  if (issuer === 'unknown') return { result: { status: 'UNKNOWN_ISSUER_ERROR' } };
  if (issuer === 'mismatch') return { result: invalid(REASONS.issuer), issuerId: input.issuer };
  const issuerId = issuer.id;
  const now = deps.clock.now();
  // 3. The window.
  if (issuer.acceptUntil !== undefined && now > issuer.acceptUntil) return { result: { status: 'EXCHANGE_WINDOW_CLOSED_ERROR' }, issuerId };
  // 4. Algorithm.
  const alg = header.alg;
  if (typeof alg !== 'string' || !issuer.algorithms.includes(alg)) return { result: invalid(REASONS.algorithm), issuerId };
  // 5. Signature.
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  const badSignature = await checkSignature(token, alg, kid, issuer, now);
  if (badSignature) return { result: invalid(badSignature), issuerId };
  // What single use keeps is the hash of the payload segment, not of the whole token: a signature
  // has other spellings that still verify (the unused low bits of its last base64url character;
  // ECDSA's `s` and `n - s`), while any other spelling of the signed payload fails the signature.
  const tokenHash = sha256hex(segments[1] as string);
  const keyHash = input.idempotencyKey === undefined ? undefined : sha256hex(`${input.idempotencyKey}\n${tokenHash}`);
  // 9, first: a retry with the key of an `OK` gets that `OK` for 60 s, even if the token has expired
  // or its user changed since. Only with a key (one read more), and only once the token verified.
  if (keyHash !== undefined) {
    const kept = replayed(await deps.sessions.exchangeReplay(tokenHash), keyHash, now);
    if (kept) return { result: kept, issuerId };
  }
  // 6. Claims.
  const badClaims = checkClaims(issuer, claims, now);
  if (badClaims) return { result: invalid(badClaims), issuerId };
  // 7. The user.
  const externalUserId = claims[issuer.externalIdClaim] as string;
  const mapping = await findMapping(deps, externalUserId, 'EXTERNAL');
  if (!mapping || !mapping.loginMethod.tenantIds.includes(tenantId)) return { result: { status: 'UNKNOWN_USER_ERROR' }, issuerId };
  const firebase = claims.firebase as { sign_in_provider?: unknown } | undefined;
  const ok: ExchangeResult = {
    status: 'OK',
    user: toApiUser(mapping.user),
    recipeUserId: mapping.loginMethod.externalUserId,
    externalUserId,
    tenantId,
    issuer: issuerId,
    ...(typeof claims.auth_time === 'number' ? { authTime: claims.auth_time * 1000 } : {}),
    ...(typeof firebase?.sign_in_provider === 'string' ? { signInProvider: firebase.sign_in_provider } : {}),
  };
  // 8 and 9. Single use, and the replay of an `OK` to a retry that raced its first use.
  const keepUntil = ((claims.exp as number) + issuer.clockSkewSeconds) * 1000;
  const replay = keyHash === undefined ? undefined : { keyHash, until: now + IDEMPOTENCY_WINDOW_MS, answer: JSON.stringify(ok) };
  const used = await deps.sessions.consumeExchangedToken(tokenHash, Math.max(keepUntil, now + IDEMPOTENCY_WINDOW_MS), replay);
  if (used.consumed) return { result: ok, issuerId };
  const kept = keyHash === undefined ? undefined : replayed(used.replay, keyHash, now);
  return { result: kept ?? { status: 'TOKEN_ALREADY_USED_ERROR' }, issuerId };
}
