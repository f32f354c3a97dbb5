import { base32Decode } from '../../lib/recipes/totp/base32';
import { totpAt } from '../../lib/recipes/totp/totp-code';

/**
 * The code an authenticator app shows for a base32 secret at `atMs` (now by default), `steps`
 * periods on: computed with the service's own RFC 6238 code, which the RFC's vectors pin
 * (`test/unit/totp-code.test.ts`).
 */
export function totpCode(secret: string, steps = 0, period = 30, atMs = Date.now()): string {
  const key = base32Decode(secret);
  if (!key) throw new Error('not a base32 secret');
  return totpAt(key, atMs + steps * period * 1000, period);
}

/** A code that is none of the secret's codes around now (a wrong code). */
export function wrongCode(secret: string, period = 30): string {
  const near = new Set([-2, -1, 0, 1, 2].map((i) => totpCode(secret, i, period)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}
