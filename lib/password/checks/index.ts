import { aspnetIdentityForm } from '../forms/aspnet-identity';
import { djangoBcryptSha256Form, passlibBcryptSha256Form } from '../forms/bcrypt-sha256';
import { drupalForm } from '../forms/drupal';
import type { FormCheck, HashForm } from '../forms/form';
import { ldapCryptForm, ldapMd5Form, ldapShaForm, ldapSmd5Form, ldapSsha256Form, ldapSsha512Form, ldapSshaForm } from '../forms/ldap';
import { apr1Form, md5CryptForm } from '../forms/md5-crypt';
import { phpassHForm, phpassPForm } from '../forms/phpass';
import { sha256CryptForm, sha512CryptForm } from '../forms/sha-crypt';
import { wordpressBcryptForm } from '../forms/wordpress';
import { djangoPbkdf2Form, passlibPbkdf2Form, werkzeugPbkdf2Form } from '../forms/pbkdf2';
import { djangoScryptForm, phcScryptForm, werkzeugScryptForm } from '../forms/scrypt';
import { checkBcryptSha256 } from './bcrypt-sha256';
import { checkDrupal } from './drupal';
import { checkLdapCrypt, checkLdapDigest } from './ldap';
import { checkMd5Crypt } from './md5-crypt';
import { checkPhpass } from './phpass';
import { checkShaCrypt } from './sha-crypt';
import { checkWordpressBcrypt } from './wordpress';
import { checkPbkdf2 } from './pbkdf2';
import { checkScrypt } from './scrypt';

/*
 * The check of every form in `../families.ts`, for sign-in only (the import functions bundle the
 * forms, never this). A unit test fails when a form of the table has no check here.
 */

type Entry = readonly [HashForm<unknown>, FormCheck<unknown>];

/** The forms that one check verifies: their parameters are the check's. */
function checkedBy<P>(check: FormCheck<P>, ...forms: HashForm<P>[]): Entry[] {
  return forms.map((form) => [form as HashForm<unknown>, check as FormCheck<unknown>] as const);
}

export const FORM_CHECKS: ReadonlyMap<HashForm<unknown>, FormCheck<unknown>> = new Map([
  ...checkedBy(checkPbkdf2, djangoPbkdf2Form, passlibPbkdf2Form, werkzeugPbkdf2Form, aspnetIdentityForm),
  ...checkedBy(checkScrypt, phcScryptForm, djangoScryptForm, werkzeugScryptForm),
  ...checkedBy(checkBcryptSha256, djangoBcryptSha256Form, passlibBcryptSha256Form),
  ...checkedBy(checkMd5Crypt, md5CryptForm, apr1Form),
  ...checkedBy(checkShaCrypt, sha256CryptForm, sha512CryptForm),
  ...checkedBy(checkPhpass, phpassPForm, phpassHForm),
  ...checkedBy(checkDrupal, drupalForm),
  ...checkedBy(checkWordpressBcrypt, wordpressBcryptForm),
  ...checkedBy(checkLdapDigest, ldapSshaForm, ldapSsha256Form, ldapSsha512Form, ldapSmd5Form, ldapShaForm, ldapMd5Form),
  ...checkedBy(checkLdapCrypt, ldapCryptForm),
]);

/**
 * The forms whose check digests the password again at every round, so that its cost is the rounds
 * times the password's length: a password longer than `CRYPT_MAX_PASSWORD_BYTES` is never checked
 * against them (`../verify.ts`). Every other check reads the password once (PBKDF2's HMAC key, a
 * digest, bcrypt's first 72 bytes, scrypt's and Argon2's first step).
 */
export const PASSWORD_EVERY_ROUND: ReadonlySet<HashForm<unknown>> = new Set<HashForm<unknown>>([
  md5CryptForm,
  apr1Form,
  sha256CryptForm,
  sha512CryptForm,
  phpassPForm,
  phpassHForm,
  drupalForm,
  ldapCryptForm,
]);
