import type { PasswordLimits } from '../limits';
import { accept, paddedBase64, refuse } from './fields';
import type { FormParse, HashForm } from './form';
import { type Md5CryptParams, md5CryptForm } from './md5-crypt';
import { type ShaCryptParams, sha256CryptForm, sha512CryptForm } from './sha-crypt';

/** A parsed `{SSHA}`, `{SSHA256}`, `{SSHA512}`, `{SMD5}`, `{SHA}` or `{MD5}` value. */
export interface LdapDigestParams {
  /** The digest the scheme names. */
  algorithm: 'sha1' | 'sha256' | 'sha512' | 'md5';
  /** The stored digest of `password ‖ salt`. */
  digest: Buffer;
  /** The bytes after the digest: 1+ for the salted schemes, none for `{SHA}` and `{MD5}`. */
  salt: Buffer;
}

/** A parsed `{CRYPT}` value: the crypt(3) hash after the scheme. */
export type LdapCryptParams = { crypt: 'md5'; params: Md5CryptParams } | { crypt: 'sha'; params: ShaCryptParams };

/** The scheme's text, case-insensitive (`{ssha}` is `{SSHA}`), anchored at the start. */
function schemeMarker(scheme: string): RegExp {
  return new RegExp(`^\\{${scheme}\\}`, 'i');
}

const DIGEST_NAMES: Record<LdapDigestParams['algorithm'], [name: string, bytes: number]> = {
  sha1: ['SHA-1', 20],
  sha256: ['SHA-256', 32],
  sha512: ['SHA-512', 64],
  md5: ['MD5', 16],
};

function ldapDigestForm(scheme: string, algorithm: LdapDigestParams['algorithm'], salted: boolean): HashForm<LdapDigestParams> {
  const marker = schemeMarker(scheme);
  const [digestName, digestBytes] = DIGEST_NAMES[algorithm];
  const shape = salted
    ? `{${scheme}} must hold a ${digestBytes}-byte ${digestName} digest followed by a salt`
    : `{${scheme}} must hold exactly a ${digestBytes}-byte ${digestName} digest`;
  return {
    marker,

    parse(encoded: string): FormParse<LdapDigestParams> {
      if (!marker.test(encoded)) {
        return refuse(`expected {${scheme}} followed by base64`);
      }
      const value = encoded.slice(scheme.length + 2);
      const bytes = paddedBase64(value);
      if (bytes === undefined) {
        return refuse(`the value after {${scheme}} must be base64 with padding`);
      }
      if (salted ? bytes.length <= digestBytes : bytes.length !== digestBytes) {
        return refuse(shape);
      }
      return accept({ algorithm, digest: bytes.subarray(0, digestBytes), salt: bytes.subarray(digestBytes) });
    },

    // A digest or two per sign-in; the 512-character passwordHash bound covers the salt.
    bound: () => undefined,
  };
}

/** `{SSHA}`: base64(SHA-1(password ‖ salt) ‖ salt), OpenLDAP's default. */
export const ldapSshaForm = ldapDigestForm('SSHA', 'sha1', true);
/** `{SSHA256}`: the same with SHA-256. */
export const ldapSsha256Form = ldapDigestForm('SSHA256', 'sha256', true);
/** `{SSHA512}`: the same with SHA-512. */
export const ldapSsha512Form = ldapDigestForm('SSHA512', 'sha512', true);
/** `{SMD5}`: the same with MD5. */
export const ldapSmd5Form = ldapDigestForm('SMD5', 'md5', true);
/** `{SHA}`: base64(SHA-1(password)), unsalted. */
export const ldapShaForm = ldapDigestForm('SHA', 'sha1', false);
/** `{MD5}`: base64(MD5(password)), unsalted. */
export const ldapMd5Form = ldapDigestForm('MD5', 'md5', false);

const CRYPT_MARKER = schemeMarker('CRYPT');
const CRYPT_PREFIX_LENGTH = '{CRYPT}'.length;

/** `{CRYPT}` then a `$1$`, `$5$` or `$6$` hash, parsed and bounded as that form; DES crypt is refused. */
export const ldapCryptForm: HashForm<LdapCryptParams> = {
  marker: CRYPT_MARKER,

  parse(encoded: string): FormParse<LdapCryptParams> {
    const inner = encoded.slice(CRYPT_PREFIX_LENGTH);
    if (CRYPT_MARKER.test(encoded)) {
      for (const form of [sha256CryptForm, sha512CryptForm]) {
        if (form.marker.test(inner)) {
          const parsed = form.parse(inner);
          return parsed.ok ? accept({ crypt: 'sha', params: parsed.params }) : parsed;
        }
      }
      if (md5CryptForm.marker.test(inner)) {
        const parsed = md5CryptForm.parse(inner);
        return parsed.ok ? accept({ crypt: 'md5', params: parsed.params }) : parsed;
      }
    }
    return refuse('{CRYPT} must be followed by a $1$, $5$ or $6$ hash (DES crypt is not accepted)');
  },

  bound(params: LdapCryptParams, limits: PasswordLimits): string | undefined {
    // `$5$` and `$6$` share SHA-crypt's rounds bound; MD5-crypt has none.
    return params.crypt === 'sha' ? sha256CryptForm.bound(params.params, limits) : undefined;
  },
};
