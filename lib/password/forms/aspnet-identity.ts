import { accept, paddedBase64, refuse } from './fields';
import type { HashForm } from './form';
import { pbkdf2Bound, type Pbkdf2Params } from './pbkdf2';

/*
 * ASP.NET Identity's blob (dotnet/aspnetcore `PasswordHasher.cs`), base64 with padding. It is not
 * self-describing, so it is imported only with `hashingAlgorithm: aspnet_identity` and is never
 * detected; at sign-in it is the one stored form that no marker names.
 */

/** v2: `0x00 ‖ salt (16) ‖ key (32)`, PBKDF2-HMAC-SHA1, 1,000 iterations. */
const V2 = { length: 49, saltBytes: 16, iterations: 1000 };
/** v3: `0x01 ‖ PRF ‖ iterations ‖ salt length` (uint32 big-endian each) `‖ salt ‖ key`. */
const V3_HEADER_BYTES = 13;
const V3_MIN_SALT_BYTES = 16;
const V3_PRF = ['sha1', 'sha256', 'sha512'] as const;

export const aspnetIdentityForm: HashForm<Pbkdf2Params> = {
  // Any string no other form claims: the registry tries this form only when the value names it.
  marker: /^/,
  parse(encoded) {
    const blob = paddedBase64(encoded);
    if (blob === undefined || blob.length === 0) return refuse('it must be the base64 (with padding) of a v2 or v3 blob');
    if (blob[0] === 0) {
      if (blob.length !== V2.length) return refuse(`a v2 blob must be ${V2.length} bytes`);
      const salt = blob.subarray(1, 1 + V2.saltBytes);
      return accept({ digest: 'sha1', iterations: V2.iterations, salt, key: blob.subarray(1 + V2.saltBytes) });
    }
    if (blob[0] !== 1) return refuse('the blob must start with 0x00 (v2) or 0x01 (v3)');
    if (blob.length < V3_HEADER_BYTES) return refuse('a v3 blob must hold its 13-byte header');
    const prf = blob.readUInt32BE(1);
    if (prf >= V3_PRF.length) return refuse('the PRF must be 0 (SHA-1), 1 (SHA-256) or 2 (SHA-512)');
    const saltBytes = blob.readUInt32BE(9);
    if (saltBytes > blob.length - V3_HEADER_BYTES) return refuse('the salt length does not fit the blob');
    if (saltBytes < V3_MIN_SALT_BYTES) return refuse(`the salt must be at least ${V3_MIN_SALT_BYTES} bytes`);
    const salt = blob.subarray(V3_HEADER_BYTES, V3_HEADER_BYTES + saltBytes);
    return accept({ digest: V3_PRF[prf], iterations: blob.readUInt32BE(5), salt, key: blob.subarray(V3_HEADER_BYTES + saltBytes) });
  },
  bound: pbkdf2Bound,
};
