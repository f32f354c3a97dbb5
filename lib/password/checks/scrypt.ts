import { scrypt, timingSafeEqual } from 'node:crypto';
import type { FormCheck } from '../forms/form';
import type { ScryptParams } from '../forms/scrypt';

/** Headroom over scrypt's 128·r·(N + p + 2) bytes for OpenSSL's bookkeeping. */
const MAXMEM_MARGIN_BYTES = 1024 * 1024;

/**
 * scrypt over the stored key's length, compared in constant time (every scrypt form). `maxmem` is
 * what these parameters need, which the bound keeps within 256 MiB (Node's default, 32 MiB, would
 * refuse Django's and Werkzeug's defaults).
 */
export const checkScrypt: FormCheck<ScryptParams> = (password, { N, r, p, salt, key }) =>
  new Promise((resolve, reject) => {
    const maxmem = 128 * r * (N + p + 2) + MAXMEM_MARGIN_BYTES;
    scrypt(Buffer.from(password, 'utf8'), salt, key.length, { N, r, p, maxmem }, (error, derived) =>
      error ? reject(error) : resolve(timingSafeEqual(derived, key)),
    );
  });
