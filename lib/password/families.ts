import { aspnetIdentityForm } from './forms/aspnet-identity';
import { djangoBcryptSha256Form, passlibBcryptSha256Form } from './forms/bcrypt-sha256';
import { drupalForm } from './forms/drupal';
import type { HashForm } from './forms/form';
import { ldapCryptForm, ldapMd5Form, ldapShaForm, ldapSmd5Form, ldapSsha256Form, ldapSsha512Form, ldapSshaForm } from './forms/ldap';
import { apr1Form, md5CryptForm } from './forms/md5-crypt';
import { djangoPbkdf2Form, passlibPbkdf2Form, werkzeugPbkdf2Form } from './forms/pbkdf2';
import { phpassHForm, phpassPForm } from './forms/phpass';
import { djangoScryptForm, phcScryptForm, werkzeugScryptForm } from './forms/scrypt';
import { sha256CryptForm, sha512CryptForm } from './forms/sha-crypt';
import { wordpressBcryptForm } from './forms/wordpress';

/** A family of SPEC §7b: what `hashingAlgorithm` names, and the forms it accepts. */
export interface HashFamily {
  /** The `hashingAlgorithm` value, lower-case (any case is accepted). */
  readonly value: string;
  /** The name in 400 texts: `Password hash is in invalid <name> format: …`. */
  readonly name: string;
  /** Its forms. A form listed by several families is detected as the first one's. */
  readonly forms: readonly HashForm<unknown>[];
  /** The reason given when a hash named as this family is none of its forms nor any other family's. */
  readonly expected: string;
  /** `false`: never detected, imported only when named (its form is not self-describing). */
  readonly detected?: false;
}

/*
 * SPEC §7b's table, in its order: detection takes the first row listing a form whose marker matches
 * (`pbkdf2:` is PBKDF2's, `scrypt:` scrypt's; Werkzeug's row only names them together). Adding a
 * family is one row here and its checks in `./checks/index.ts`.
 */
export const FAMILIES: readonly HashFamily[] = [
  {
    value: 'pbkdf2',
    name: 'PBKDF2',
    forms: [djangoPbkdf2Form, passlibPbkdf2Form, werkzeugPbkdf2Form],
    expected: 'expected pbkdf2_<digest>$…, $pbkdf2-<digest>$… or pbkdf2:<digest>:<iterations>$…',
  },
  {
    value: 'aspnet_identity',
    name: 'ASP.NET Identity',
    forms: [aspnetIdentityForm],
    expected: 'it must be the base64 (with padding) of a v2 or v3 blob',
    detected: false,
  },
  {
    value: 'md5_crypt',
    name: 'MD5-crypt',
    forms: [md5CryptForm, apr1Form],
    expected: 'expected $1$<salt>$<hash> or $apr1$<salt>$<hash>',
  },
  {
    value: 'sha_crypt',
    name: 'SHA-crypt',
    forms: [sha256CryptForm, sha512CryptForm],
    expected: 'expected $5$[rounds=<n>$]<salt>$<hash> or $6$[rounds=<n>$]<salt>$<hash>',
  },
  {
    value: 'phpass',
    name: 'phpass',
    forms: [phpassPForm, phpassHForm],
    expected: 'expected $P$ or $H$, a count character, 8 salt characters and 22 hash characters',
  },
  // WordPress and Drupal also verify phpass's forms; detection gives those to phpass (the row above).
  {
    value: 'wordpress',
    name: 'WordPress',
    forms: [wordpressBcryptForm, phpassPForm],
    expected: 'expected $wp followed by a bcrypt hash, or a phpass $P$ hash',
  },
  {
    value: 'drupal',
    name: 'Drupal',
    forms: [drupalForm, phpassPForm, phpassHForm],
    expected: 'expected $S$, a count character, 8 salt characters and 43 hash characters, or a phpass $P$ or $H$ hash',
  },
  {
    value: 'ldap',
    name: 'LDAP',
    forms: [ldapSshaForm, ldapSsha256Form, ldapSsha512Form, ldapSmd5Form, ldapShaForm, ldapMd5Form, ldapCryptForm],
    expected: 'expected {SSHA}, {SSHA256}, {SSHA512}, {SMD5}, {SHA}, {MD5} or {CRYPT} followed by the hash',
  },
  {
    value: 'scrypt',
    name: 'scrypt',
    forms: [phcScryptForm, djangoScryptForm, werkzeugScryptForm],
    expected: 'expected $scrypt$ln=…, scrypt$<N>$… or scrypt:<N>:<r>:<p>$…',
  },
  {
    value: 'bcrypt_sha256',
    name: 'BCrypt-SHA256',
    forms: [djangoBcryptSha256Form, passlibBcryptSha256Form],
    expected: 'expected bcrypt_sha256$<bcrypt hash> or $bcrypt-sha256$…',
  },
  {
    value: 'werkzeug',
    name: 'Werkzeug',
    forms: [werkzeugPbkdf2Form, werkzeugScryptForm],
    expected: 'expected pbkdf2:<digest>:<iterations>$<salt>$<hex> or scrypt:<N>:<r>:<p>$<salt>$<hex>',
  },
];

/** The family a `hashingAlgorithm` value names (any case), or `undefined`. */
export function familyNamed(value: string): HashFamily | undefined {
  const lower = value.toLowerCase();
  return FAMILIES.find((family) => family.value === lower);
}

/** A stored or imported hash's family and form: the first detected row whose form's marker matches. */
export interface FoundForm {
  readonly family: HashFamily;
  readonly form: HashForm<unknown>;
}

/** The detected family and form of a hash (SPEC §7b's markers), or `undefined`. */
export function detectForm(hash: string): FoundForm | undefined {
  for (const family of FAMILIES) {
    if (family.detected === false) continue;
    const form = family.forms.find((candidate) => candidate.marker.test(hash));
    if (form) return { family, form };
  }
  return undefined;
}

/**
 * The form of a stored hash: the detected one, or the one form of a family never detected that
 * parses it (an ASP.NET Identity blob, which import stored as given).
 */
export function storedFormOf(hash: string): FoundForm | undefined {
  const detected = detectForm(hash);
  if (detected) return detected;
  for (const family of FAMILIES) {
    if (family.detected !== false) continue;
    const form = family.forms.find((candidate) => candidate.parse(hash).ok);
    if (form) return { family, form };
  }
  return undefined;
}
