import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * COSE public keys (RFC 9052/9053) as WebAuthn authenticators give them, turned into node:crypto
 * keys through JWK: the three algorithms the recipe verifies (SPEC §21) and no other. Shared with
 * passkey import, which checks a key the same way before storing it.
 */

/** ES256 (EC2 P-256), EdDSA (OKP Ed25519), RS256 (RSA PKCS#1 v1.5 with SHA-256). */
export const COSE_ALGORITHMS = [-7, -8, -257] as const;
export type CoseAlgorithm = (typeof COSE_ALGORITHMS)[number];

/** A verified-usable public key and its algorithm. */
export interface CoseKey {
  readonly alg: CoseAlgorithm;
  readonly key: KeyObject;
}

/** Fewer RSA bits than this are refused: 2048 is the smallest modulus any authenticator uses. */
export const MIN_RSA_BITS = 2048;

/** Each algorithm's key type (COSE label 1), curve (label −1, RSA: none) and JWK spelling. */
const KINDS: Record<CoseAlgorithm, { kty: number; crv?: number; jwk: (m: Map<unknown, unknown>) => Record<string, string> | string }> = {
  '-7': {
    kty: 2,
    crv: 1,
    jwk: (m) => (bytes(m, -2, 32) && bytes(m, -3, 32) ? { kty: 'EC', crv: 'P-256', x: b64(m, -2), y: b64(m, -3) } : 'x and y must be 32 bytes'),
  },
  '-8': { kty: 1, crv: 6, jwk: (m) => (bytes(m, -2, 32) ? { kty: 'OKP', crv: 'Ed25519', x: b64(m, -2) } : 'x must be 32 bytes') },
  '-257': {
    kty: 3,
    jwk: (m) => {
      const n = m.get(-1);
      if (!Buffer.isBuffer(n) || !Buffer.isBuffer(m.get(-2))) return 'n and e must be byte strings';
      const bits = n.length * 8 - (n.length > 0 ? Math.clz32(n[0]) - 24 : 0);
      return bits < MIN_RSA_BITS ? `n has ${bits} bits, fewer than ${MIN_RSA_BITS}` : { kty: 'RSA', n: b64(m, -1), e: b64(m, -2) };
    },
  },
};

const bytes = (m: Map<unknown, unknown>, label: number, length: number): boolean => {
  const v = m.get(label);
  return Buffer.isBuffer(v) && v.length === length;
};
const b64 = (m: Map<unknown, unknown>, label: number): string => (m.get(label) as Buffer).toString('base64url');

/** The key of a decoded COSE_Key, or a phrase saying what is wrong with it. */
export function coseKeyOf(value: unknown): CoseKey | string {
  if (!(value instanceof Map)) return 'not a COSE key map';
  const alg = value.get(3) as CoseAlgorithm;
  const kind = KINDS[alg];
  if (!COSE_ALGORITHMS.includes(alg) || !kind) return `alg ${String(alg)} is not one the recipe verifies`;
  if (value.get(1) !== kind.kty) return `kty ${String(value.get(1))} does not fit alg ${alg}`;
  if (kind.crv !== undefined && value.get(-1) !== kind.crv) return `crv ${String(value.get(-1))} does not fit alg ${alg}`;
  const jwk = kind.jwk(value);
  if (typeof jwk === 'string') return jwk;
  try {
    return { alg, key: createPublicKey({ key: jwk, format: 'jwk' }) };
  } catch {
    return 'the key does not load (a point off its curve, or a malformed modulus)';
  }
}

/** Whether `signature` over `data` verifies with the key (ES256 DER, EdDSA, RS256); a malformed signature is `false`. */
export function verifySignature(cose: CoseKey, data: Buffer, signature: Buffer): boolean {
  try {
    return verify(cose.alg === -8 ? null : 'sha256', data, cose.key, signature);
  } catch {
    return false;
  }
}
