import { createHash } from 'node:crypto';
import { encodeCrypt64 } from '../forms/crypt64';
import type { FormCheck } from '../forms/form';
import type { Md5CryptParams } from '../forms/md5-crypt';
import { sameSecret } from '../../digest';

/*
 * Poul-Henning Kamp's MD5-crypt (FreeBSD's crypt-md5.c, glibc's md5-crypt.c), also Apache's
 * `$apr1$` (apr_md5.c), which differs only in the magic string it hashes.
 */

/** The fixed number of rounds. */
const ROUNDS = 1000;
/** The digest's bytes, three at a time, in the order the algorithm encodes them. */
const GROUPS = [[0, 6, 12], [1, 7, 13], [2, 8, 14], [3, 9, 15], [4, 10, 5], [11]] as const;
const ZERO = Buffer.alloc(1);

function md5(...parts: Buffer[]): Buffer {
  const hash = createHash('md5');
  for (const part of parts) {
    hash.update(part);
  }
  return hash.digest();
}

/** The 22 crypt64 characters of the hash of `password` with the magic and salt. */
export function md5CryptHash(password: Buffer, magic: string, salt: Buffer): string {
  const alternate = md5(password, salt, password);
  const first = createHash('md5').update(password).update(magic).update(salt);
  for (let left = password.length; left > 0; left -= 16) {
    first.update(alternate.subarray(0, Math.min(left, 16)));
  }
  // The original hashes a byte of its zeroed buffer for each set bit of the length, else the password's first.
  for (let bits = password.length; bits > 0; bits >>= 1) {
    first.update(bits & 1 ? ZERO : password.subarray(0, 1));
  }
  let digest = first.digest();
  for (let round = 0; round < ROUNDS; round++) {
    const hash = createHash('md5');
    hash.update(round & 1 ? password : digest);
    if (round % 3 !== 0) {
      hash.update(salt);
    }
    if (round % 7 !== 0) {
      hash.update(password);
    }
    hash.update(round & 1 ? digest : password);
    digest = hash.digest();
  }
  return encodeCrypt64(digest, GROUPS);
}

/** Recomputes an MD5-crypt or `$apr1$` hash and compares it in constant time. */
export const checkMd5Crypt: FormCheck<Md5CryptParams> = async (password, params) =>
  sameSecret(md5CryptHash(Buffer.from(password, 'utf8'), params.magic, Buffer.from(params.salt, 'utf8')), params.hash);
