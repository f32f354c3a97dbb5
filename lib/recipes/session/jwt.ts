import { CompactSign } from 'jose';
import type { JsonObject } from '../../storage/model';
import { keyRingOf, type PublicJwk } from './key-ring';
import type { SessionDeps } from './sessions';

/** The public keys, and how long an answer may be cached: until the next key is due. */
export async function jsonWebKeys(deps: SessionDeps): Promise<{ keys: PublicJwk[]; maxAgeSeconds: number }> {
  return keyRingOf(deps).jwks();
}

export interface CreateJwtInput {
  readonly algorithm: string;
  readonly jwksDomain: string;
  readonly payload: JsonObject;
  /** Seconds, > 0. */
  readonly validity: number;
  readonly useStaticSigningKey: boolean;
}

/**
 * `POST /recipe/jwt`: signs any payload with RS256 (the only algorithm, as in the core), adding
 * `iat`, `exp` and, unless the payload has one, `iss` = `jwksDomain`. Header without `version`.
 */
export async function createJwt(deps: SessionDeps, input: CreateJwtInput) {
  if (input.algorithm.toUpperCase() !== 'RS256') return { status: 'UNSUPPORTED_ALGORITHM_ERROR' as const };
  const iat = Math.floor(deps.clock.now() / 1000);
  const claims = { ...input.payload, iat, exp: iat + Math.floor(input.validity), ...(Object.hasOwn(input.payload, 'iss') ? {} : { iss: input.jwksDomain }) };
  const key = await keyRingOf(deps).signer(input.useStaticSigningKey);
  const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid })
    .sign(key.privateKey);
  return { status: 'OK' as const, jwt };
}
