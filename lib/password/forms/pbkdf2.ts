import { PBKDF2_MAX_KEY_BYTES, PBKDF2_MIN_KEY_BYTES, type PasswordLimits } from '../limits';
import { accept, adaptedBase64, base64, decimal, type Digest, digestNamed, paddedBase64, refuse, werkzeugFields } from './fields';
import type { FormParse, HashForm } from './form';

/** A parsed PBKDF2 hash of any form: `PBKDF2-HMAC-<digest>(password, salt, iterations, key.length) = key`. */
export interface Pbkdf2Params {
  digest: Digest;
  iterations: number;
  salt: Buffer;
  key: Buffer;
}

const DIGESTS = 'sha1, sha256 or sha512';

/** SPEC §7b's PBKDF2 bounds, shared by ASP.NET Identity's blob. */
export function pbkdf2Bound({ iterations, key }: Pbkdf2Params, { pbkdf2MaxIterations }: PasswordLimits): string | undefined {
  if (iterations < 1 || iterations > pbkdf2MaxIterations) return `iterations must be between 1 and ${pbkdf2MaxIterations}`;
  if (key.length < PBKDF2_MIN_KEY_BYTES || key.length > PBKDF2_MAX_KEY_BYTES) {
    return `the key must be between ${PBKDF2_MIN_KEY_BYTES} and ${PBKDF2_MAX_KEY_BYTES} bytes`;
  }
  return undefined;
}

/** The fields every form shares once split: iterations, then a salt and a key already decoded. */
function pbkdf2(digest: Digest, iterationsText: string, salt: Buffer | undefined, key: Buffer | undefined): FormParse<Pbkdf2Params> {
  const iterations = decimal(iterationsText);
  if (iterations === undefined) return refuse('the iterations must be a decimal number');
  if (salt === undefined || salt.length === 0) return refuse('the salt is missing or not in its encoding');
  if (key === undefined || key.length === 0) return refuse('the key is missing or not in its encoding');
  return accept({ digest, iterations, salt, key });
}

const DJANGO_ALGORITHM: Readonly<Record<string, Digest>> = { pbkdf2_sha256: 'sha256', pbkdf2_sha1: 'sha1' };

/** Django `pbkdf2_sha256$<iterations>$<salt text>$<padded base64 key>` and `pbkdf2_sha1$…`. */
export const djangoPbkdf2Form: HashForm<Pbkdf2Params> = {
  marker: /^pbkdf2_/,
  parse(encoded) {
    const parts = encoded.split('$');
    if (parts.length !== 4) return refuse('expected pbkdf2_<digest>$<iterations>$<salt>$<key>');
    const [algorithm, iterations, salt, key] = parts;
    if (!Object.hasOwn(DJANGO_ALGORITHM, algorithm)) return refuse('the algorithm must be pbkdf2_sha256 or pbkdf2_sha1');
    return pbkdf2(DJANGO_ALGORITHM[algorithm], iterations, Buffer.from(salt, 'utf8'), paddedBase64(key));
  },
  bound: pbkdf2Bound,
};

const PHC_PARAMS = /^i=([^,]*),l=(.*)$/;

/**
 * passlib `$pbkdf2$<rounds>$<ab64 salt>$<ab64 key>` (SHA-1), `$pbkdf2-sha256$…`, `$pbkdf2-sha512$…`,
 * and PHC/Kratos `$pbkdf2-<digest>$i=<iterations>,l=<key length>$<base64 salt>$<base64 key>`.
 */
export const passlibPbkdf2Form: HashForm<Pbkdf2Params> = {
  marker: /^\$pbkdf2/,
  parse(encoded) {
    const parts = encoded.split('$');
    if (parts.length !== 5) return refuse('expected $pbkdf2-<digest>$<rounds>$<salt>$<key>');
    const [, ident, params, salt, key] = parts;
    const digest = ident === 'pbkdf2' ? 'sha1' : ident.startsWith('pbkdf2-') ? digestNamed(ident.slice(7)) : undefined;
    if (digest === undefined) return refuse(`the digest must be ${DIGESTS}`);
    const phc = PHC_PARAMS.exec(params);
    if (!phc) {
      if (params.includes('=')) return refuse('the PHC parameters must be i=<iterations>,l=<key length>');
      return pbkdf2(digest, params, adaptedBase64(salt), adaptedBase64(key));
    }
    const length = decimal(phc[2]);
    if (length === undefined) return refuse('l must be a decimal number');
    const parsed = pbkdf2(digest, phc[1], base64(salt), base64(key));
    if (parsed.ok && parsed.params.key.length !== length) return refuse('l is not the length of the key');
    return parsed;
  },
  bound: pbkdf2Bound,
};

const WERKZEUG_METHOD = /^pbkdf2:([^:]*):(.*)$/;

/** Werkzeug `pbkdf2:<digest>:<iterations>$<salt text>$<hex key>`. */
export const werkzeugPbkdf2Form: HashForm<Pbkdf2Params> = {
  marker: /^pbkdf2:/,
  parse(encoded) {
    const fields = werkzeugFields(encoded, WERKZEUG_METHOD, 'expected pbkdf2:<digest>:<iterations>$<salt>$<hex>');
    if (!fields.ok) return fields;
    const { method, salt, key } = fields.params;
    const digest = digestNamed(method[1]);
    if (digest === undefined) return refuse(`the digest must be ${DIGESTS}`);
    return pbkdf2(digest, method[2], salt, key);
  },
  bound: pbkdf2Bound,
};
