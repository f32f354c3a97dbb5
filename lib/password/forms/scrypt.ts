import { type PasswordLimits, SCRYPT_MAX_KEY_BYTES, SCRYPT_MIN_KEY_BYTES } from '../limits';
import { accept, base64, decimal, paddedBase64, refuse, werkzeugFields } from './fields';
import type { FormParse, HashForm } from './form';

/** A parsed scrypt hash of any form: `scrypt(password, salt, N, r, p, key.length) = key`. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

/** scrypt's own bound N < 2^(128·r/8), which OpenSSL enforces. */
const N_BITS_PER_R = 16;

/** SPEC §7b's scrypt bounds: memory and work per sign-in. */
export function scryptBound({ N, r, p, key }: ScryptParams, limits: PasswordLimits): string | undefined {
  const { scryptMaxN, scryptMaxR, scryptMaxP, scryptMaxMemoryBytes, scryptMaxWork } = limits;
  if (N < 2 || N > scryptMaxN || !Number.isInteger(Math.log2(N))) return `N must be a power of two between 2 and ${scryptMaxN}`;
  if (r < 1 || r > scryptMaxR) return `r must be between 1 and ${scryptMaxR}`;
  if (p < 1 || p > scryptMaxP) return `p must be between 1 and ${scryptMaxP}`;
  if (128 * N * r > scryptMaxMemoryBytes) return `128*N*r must be at most ${scryptMaxMemoryBytes} bytes`;
  if (N * r * p > scryptMaxWork) return `N*r*p must be at most ${scryptMaxWork}`;
  if (Math.log2(N) >= N_BITS_PER_R * r) return 'N must be below 2^(16*r)';
  if (key.length < SCRYPT_MIN_KEY_BYTES || key.length > SCRYPT_MAX_KEY_BYTES) {
    return `the key must be between ${SCRYPT_MIN_KEY_BYTES} and ${SCRYPT_MAX_KEY_BYTES} bytes`;
  }
  return undefined;
}

/** The fields every form shares once split. */
function scrypt(texts: { N: number | undefined; r: string; p: string }, salt: Buffer | undefined, key: Buffer | undefined): FormParse<ScryptParams> {
  const r = decimal(texts.r);
  const p = decimal(texts.p);
  if (texts.N === undefined || r === undefined || p === undefined) return refuse('N, r and p must be decimal numbers');
  if (salt === undefined || salt.length === 0) return refuse('the salt is missing or not in its encoding');
  if (key === undefined || key.length === 0) return refuse('the key is missing or not in its encoding');
  return accept({ N: texts.N, r, p, salt, key });
}

const PHC_PARAMS = /^ln=([^,]*),r=([^,]*),p=(.*)$/;
/** Past any bound, and 2^ln still a finite number. */
const MAX_LN_SHOWN = 62;

/** PHC/passlib/Kratos `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<base64 salt>$<base64 key>`. */
export const phcScryptForm: HashForm<ScryptParams> = {
  marker: /^\$scrypt\$/,
  parse(encoded) {
    const parts = encoded.split('$');
    const params = parts.length === 5 ? PHC_PARAMS.exec(parts[2]) : null;
    if (!params) return refuse('expected $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>');
    const ln = decimal(params[1]);
    const N = ln === undefined ? undefined : 2 ** Math.min(ln, MAX_LN_SHOWN);
    return scrypt({ N, r: params[2], p: params[3] }, base64(parts[3]), base64(parts[4]));
  },
  bound: scryptBound,
};

/** Django `scrypt$<N>$<salt text>$<r>$<p>$<padded base64 key>`. */
export const djangoScryptForm: HashForm<ScryptParams> = {
  marker: /^scrypt\$/,
  parse(encoded) {
    const parts = encoded.split('$');
    if (parts.length !== 6) return refuse('expected scrypt$<N>$<salt>$<r>$<p>$<key>');
    const [, N, salt, r, p, key] = parts;
    return scrypt({ N: decimal(N), r, p }, Buffer.from(salt, 'utf8'), paddedBase64(key));
  },
  bound: scryptBound,
};

const WERKZEUG_METHOD = /^scrypt:([^:]*):([^:]*):(.*)$/;

/** Werkzeug `scrypt:<N>:<r>:<p>$<salt text>$<hex key>`. */
export const werkzeugScryptForm: HashForm<ScryptParams> = {
  marker: /^scrypt:/,
  parse(encoded) {
    const fields = werkzeugFields(encoded, WERKZEUG_METHOD, 'expected scrypt:<N>:<r>:<p>$<salt>$<hex>');
    if (!fields.ok) return fields;
    const { method, salt, key } = fields.params;
    return scrypt({ N: decimal(method[1]), r: method[2], p: method[3] }, salt, key);
  },
  bound: scryptBound,
};
