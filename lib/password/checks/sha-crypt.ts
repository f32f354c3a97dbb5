import { createHash, hash } from 'node:crypto';
import { encodeCrypt64 } from '../forms/crypt64';
import type { FormCheck } from '../forms/form';
import type { ShaCryptParams } from '../forms/sha-crypt';
import { sameSecret } from '../../digest';

/*
 * Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512" (glibc's sha256-crypt.c, sha512-crypt.c),
 * step by step. The rounds are used as parsed: the form's bound keeps them where glibc would not clamp.
 */

function rotate(group: readonly number[], by: number): number[] {
  return [...group.slice(by), ...group.slice(0, by)];
}

/** The digest's bytes, three at a time, in the order each variant encodes them. */
const GROUPS: Record<ShaCryptParams['digest'], number[][]> = {
  sha256: [...Array.from({ length: 10 }, (_, i) => rotate([i, i + 10, i + 20], (3 - (i % 3)) % 3)), [31, 30]],
  sha512: [...Array.from({ length: 21 }, (_, i) => rotate([i, i + 21, i + 42], i % 3)), [63]],
};

/** `bytes` repeated, then cut, to `length` bytes (Drepper's P and S sequences). */
function repeatTo(bytes: Buffer, length: number): Buffer {
  return Buffer.alloc(length, bytes);
}

/** The crypt64 digest of `password` with the salt and rounds. */
export function shaCryptHash(digest: ShaCryptParams['digest'], password: Buffer, salt: Buffer, rounds: number): string {
  const start = () => createHash(digest);
  const alternate = start().update(password).update(salt).update(password).digest();
  const first = start().update(password).update(salt).update(repeatTo(alternate, password.length));
  for (let bits = password.length; bits > 0; bits >>= 1) {
    first.update(bits & 1 ? alternate : password);
  }
  let current = first.digest();
  const passwordHash = start();
  for (let n = 0; n < password.length; n++) {
    passwordHash.update(password);
  }
  const p = repeatTo(passwordHash.digest(), password.length);
  const saltHash = start();
  for (let n = 0; n < 16 + current[0]; n++) {
    saltHash.update(salt);
  }
  const s = repeatTo(saltHash.digest(), salt.length);
  // Each round's input laid out in one buffer and hashed in one call: twice as fast as a new Hash a round.
  const input = Buffer.alloc(current.length + s.length + 2 * p.length);
  let length = 0;
  const append = (part: Buffer): void => {
    length += part.copy(input, length);
  };
  for (let round = 0; round < rounds; round++) {
    length = 0;
    append(round & 1 ? p : current);
    if (round % 3 !== 0) {
      append(s);
    }
    if (round % 7 !== 0) {
      append(p);
    }
    append(round & 1 ? current : p);
    current = hash(digest, input.subarray(0, length), 'buffer');
  }
  return encodeCrypt64(current, GROUPS[digest]);
}

/** Recomputes a `$5$`/`$6$` hash and compares it in constant time. */
export const checkShaCrypt: FormCheck<ShaCryptParams> = async (password, params) =>
  sameSecret(shaCryptHash(params.digest, Buffer.from(password, 'utf8'), Buffer.from(params.salt, 'utf8'), params.rounds), params.hash);
