import { pbkdf2, timingSafeEqual } from 'node:crypto';
import type { FormCheck } from '../forms/form';
import type { Pbkdf2Params } from '../forms/pbkdf2';

/** PBKDF2-HMAC-<digest> over the stored key's length, compared in constant time (every PBKDF2 form, and ASP.NET Identity's blob). */
export const checkPbkdf2: FormCheck<Pbkdf2Params> = (password, { digest, iterations, salt, key }) =>
  new Promise((resolve, reject) => {
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, key.length, digest, (error, derived) =>
      error ? reject(error) : resolve(timingSafeEqual(derived, key)),
    );
  });
