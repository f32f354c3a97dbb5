import { DEFAULT_PASSWORD_LIMITS } from '../../../lib/password/limits';
import { checkDrupal } from '../../../lib/password/checks/drupal';
import { checkLdapCrypt, checkLdapDigest } from '../../../lib/password/checks/ldap';
import { checkMd5Crypt } from '../../../lib/password/checks/md5-crypt';
import { checkPhpass } from '../../../lib/password/checks/phpass';
import { checkShaCrypt } from '../../../lib/password/checks/sha-crypt';
import { checkWordpressBcrypt } from '../../../lib/password/checks/wordpress';
import { drupalForm } from '../../../lib/password/forms/drupal';
import type { FormCheck, HashForm } from '../../../lib/password/forms/form';
import { ldapCryptForm, ldapMd5Form, ldapShaForm, ldapSmd5Form, ldapSsha256Form, ldapSsha512Form, ldapSshaForm } from '../../../lib/password/forms/ldap';
import { apr1Form, md5CryptForm } from '../../../lib/password/forms/md5-crypt';
import { phpassHForm, phpassPForm } from '../../../lib/password/forms/phpass';
import { sha256CryptForm, sha512CryptForm } from '../../../lib/password/forms/sha-crypt';
import { wordpressBcryptForm } from '../../../lib/password/forms/wordpress';

/** A form with its check, its parameters hidden so forms of every family fit one table. */
export interface FormUnderTest {
  /** The form's prefix as SPEC §7b writes it. */
  label: string;
  form: HashForm<unknown>;
  /** Parses `hash` (which must parse) and runs the form's check. */
  verify(password: string, hash: string): Promise<boolean>;
}

function entry<P>(label: string, form: HashForm<P>, check: FormCheck<P>): FormUnderTest {
  return {
    label,
    form: form as HashForm<unknown>,
    async verify(password, hash) {
      const parsed = form.parse(hash);
      if (!parsed.ok) {
        throw new Error(`${label} did not parse: ${parsed.reason}`);
      }
      return check(password, parsed.params);
    },
  };
}

/** Every form of this branch, with its check: the pairs the registry lists. */
export const CRYPT_FORMS: readonly FormUnderTest[] = [
  entry('$1$', md5CryptForm, checkMd5Crypt),
  entry('$apr1$', apr1Form, checkMd5Crypt),
  entry('$5$', sha256CryptForm, checkShaCrypt),
  entry('$6$', sha512CryptForm, checkShaCrypt),
  entry('$P$', phpassPForm, checkPhpass),
  entry('$H$', phpassHForm, checkPhpass),
  entry('$S$', drupalForm, checkDrupal),
  entry('$wp$', wordpressBcryptForm, checkWordpressBcrypt),
  entry('{SSHA}', ldapSshaForm, checkLdapDigest),
  entry('{SSHA256}', ldapSsha256Form, checkLdapDigest),
  entry('{SSHA512}', ldapSsha512Form, checkLdapDigest),
  entry('{SMD5}', ldapSmd5Form, checkLdapDigest),
  entry('{SHA}', ldapShaForm, checkLdapDigest),
  entry('{MD5}', ldapMd5Form, checkLdapDigest),
  entry('{CRYPT}', ldapCryptForm, checkLdapCrypt),
];

/** SPEC §7b's `accepts` column for these families: `hashingAlgorithm` → the labels of its forms. */
export const FAMILY_FORMS: Readonly<Record<string, readonly string[]>> = {
  md5_crypt: ['$1$', '$apr1$'],
  sha_crypt: ['$5$', '$6$'],
  phpass: ['$P$', '$H$'],
  wordpress: ['$wp$', '$P$'],
  drupal: ['$S$', '$P$', '$H$'],
  ldap: ['{SSHA}', '{SSHA256}', '{SSHA512}', '{SMD5}', '{SHA}', '{MD5}', '{CRYPT}'],
};

/** The one form whose marker `hash` matches (throws when none or several do). */
export function formFor(hash: string): FormUnderTest {
  const matching = CRYPT_FORMS.filter((candidate) => candidate.form.marker.test(hash));
  if (matching.length !== 1) {
    throw new Error(`${matching.length} forms match`);
  }
  return matching[0];
}

/** The form with this label. */
export function formLabelled(label: string): FormUnderTest {
  const found = CRYPT_FORMS.find((candidate) => candidate.label === label);
  if (found === undefined) {
    throw new Error(`no form ${label}`);
  }
  return found;
}

/** What the form says of `hash`: `ok`, or the parse's or the bound's reason. */
export function judge(hash: string): string {
  const { form } = formFor(hash);
  const parsed = form.parse(hash);
  if (!parsed.ok) {
    return parsed.reason;
  }
  return form.bound(parsed.params, DEFAULT_PASSWORD_LIMITS) ?? 'ok';
}

/** A password that differs from `password` (appends a character, or replaces the empty one). */
export function wrongPassword(password: string): string {
  return password === '' ? 'x' : `${password}x`;
}
