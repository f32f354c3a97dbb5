import { CRYPT_FORMS, formFor, judge } from './crypt-forms';

/*
 * Each form's grammar and bound at and past its edges, with SPEC §7b's reasons (the text after
 * `Password hash is in invalid <Name> format: `), none of which repeats the hash, salt or digest.
 */

const MD5_HASH = 'M55TzYaaccxVGbptZWaxX/';
const SHA256_HASH = 'LfCOPOQq9CeL9/YYe0Nm6HG72FJfTzL6X8xgs1bRoa0';
const SHA512_HASH = 'yYQtptcpPgRTmwIyyE5oKtrEp13JfYXoQqeUgg9lQHgJFxLj4Brrj5GyBiWWMLFnIzlRLU7zMx1gv0vlMN3p11';
const PHPASS = '$P$BvaY44NqvIV80p3u56stiTb1HbP3zq/';
const DRUPAL = '$S$DjWyrUFujWPOBoj7jMl0Jsa9lAmpvoflLzFy6lj/m2XBTIGD4URL';
const BCRYPT_BODY = 'fWjCDJEekKVl0scJxMgb/OAYSpA28x8mZklmb67Wqfegvb0YO1LCO';
const CRYPT64 = 'the characters ./0-9A-Za-z';

/** `text` with the character at `index` (negative: from the end) replaced. */
function withCharAt(text: string, index: number, char: string): string {
  const at = index < 0 ? text.length + index : index;
  return text.slice(0, at) + char + text.slice(at + 1);
}

/** A base64 LDAP value of `bytes` bytes after `scheme`. */
function ldap(scheme: string, bytes: number): string {
  return `${scheme}${Buffer.alloc(bytes, 0xa5).toString('base64')}`;
}

const CASES: ReadonlyArray<[label: string, hash: string, expected: string]> = [
  // MD5-crypt
  ['$1$ with an 8-character salt', `$1$abcdefgh$${MD5_HASH}`, 'ok'],
  ['$1$ with an empty salt', `$1$$${MD5_HASH}`, 'ok'],
  ['$1$ with a 9-character salt', `$1$abcdefghi$${MD5_HASH}`, 'the salt must be at most 8 characters'],
  ['$apr1$ with a 9-character salt', `$apr1$abcdefghi$${MD5_HASH}`, 'the salt must be at most 8 characters'],
  ['$1$ with a salt outside crypt64', `$1$ab_d$${MD5_HASH}`, `the salt may only contain ${CRYPT64}`],
  ['$1$ without the $ after the salt', `$1$abcdefgh${MD5_HASH}`, 'expected $1$<salt>$<hash>'],
  ['$apr1$ alone', '$apr1$', 'expected $apr1$<salt>$<hash>'],
  ['$1$ with a 21-character hash', `$1$abcdefgh$${MD5_HASH.slice(1)}`, 'the hash must be 22 characters'],
  ['$1$ with a 23-character hash', `$1$abcdefgh$${MD5_HASH}.`, 'the hash must be 22 characters'],
  ['$1$ with a hash outside crypt64', `$1$abcdefgh$${withCharAt(MD5_HASH, 3, '+')}`, `the hash may only contain ${CRYPT64}`],
  ['$1$ ending in 1 (2 bits used)', `$1$abcdefgh$${withCharAt(MD5_HASH, -1, '1')}`, 'ok'],
  ['$1$ ending in 2 (an unused bit set)', `$1$abcdefgh$${withCharAt(MD5_HASH, -1, '2')}`, 'the last character of the hash has unused bits set'],
  // SHA-crypt
  ['$5$ with rounds=1000', `$5$rounds=1000$AbCdEfGh$${SHA256_HASH}`, 'ok'],
  ['$5$ with rounds=999 (glibc would clamp)', `$5$rounds=999$AbCdEfGh$${SHA256_HASH}`, 'rounds must be between 1000 and 1000000'],
  ['$6$ with rounds=0', `$6$rounds=0$AbCdEfGh$${SHA512_HASH}`, 'rounds must be between 1000 and 1000000'],
  ['$6$ with rounds=1000000', `$6$rounds=1000000$AbCdEfGh$${SHA512_HASH}`, 'ok'],
  ['$6$ with rounds=1000001', `$6$rounds=1000001$AbCdEfGh$${SHA512_HASH}`, 'rounds must be between 1000 and 1000000'],
  ['$5$ with 30-digit rounds', `$5$rounds=${'9'.repeat(30)}$AbCdEfGh$${SHA256_HASH}`, 'rounds must be between 1000 and 1000000'],
  ['$5$ with rounds=05000', `$5$rounds=05000$AbCdEfGh$${SHA256_HASH}`, 'rounds must be a decimal number without sign or leading zero'],
  ['$5$ with rounds=+5000', `$5$rounds=+5000$AbCdEfGh$${SHA256_HASH}`, 'rounds must be a decimal number without sign or leading zero'],
  ['$5$ with rounds=5e3', `$5$rounds=5e3$AbCdEfGh$${SHA256_HASH}`, 'rounds must be a decimal number without sign or leading zero'],
  ['$5$ with empty rounds=', `$5$rounds=$AbCdEfGh$${SHA256_HASH}`, 'rounds must be a decimal number without sign or leading zero'],
  ['$5$ with rounds but no salt part', `$5$rounds=5000$${SHA256_HASH}`, 'expected $5$[rounds=<n>$]<salt>$<hash>'],
  ['$6$ with a 16-character salt', `$6$0123456789abcdef$${SHA512_HASH}`, 'ok'],
  ['$6$ with an empty salt', `$6$$${SHA512_HASH}`, 'ok'],
  ['$6$ with a 17-character salt', `$6$0123456789abcdefg$${SHA512_HASH}`, 'the salt must be at most 16 characters'],
  ['$5$ with a tab in the salt', `$5$ab\tcd$${SHA256_HASH}`, 'the salt may only contain printable ASCII characters'],
  ['$5$ with a non-ASCII salt', `$5$sälz$${SHA256_HASH}`, 'the salt may only contain printable ASCII characters'],
  ['$5$ with a 42-character hash', `$5$salt$${SHA256_HASH.slice(1)}`, 'the hash must be 43 characters'],
  ['$6$ with an 87-character hash', `$6$salt$${SHA512_HASH}a`, 'the hash must be 86 characters'],
  ['$5$ ending in D (4 bits used)', `$5$salt$${withCharAt(SHA256_HASH, -1, 'D')}`, 'ok'],
  ['$5$ ending in E (an unused bit set)', `$5$salt$${withCharAt(SHA256_HASH, -1, 'E')}`, 'the last character of the hash has unused bits set'],
  ['$6$ ending in 2 (an unused bit set)', `$6$salt$${withCharAt(SHA512_HASH, -1, '2')}`, 'the last character of the hash has unused bits set'],
  // phpass
  ['$P$ with 33 characters', PHPASS.slice(0, -1), 'the hash must be 34 characters'],
  ['$H$ with 35 characters', `$H$${PHPASS.slice(3)}.`, 'the hash must be 34 characters'],
  ['$P$ with count 7', withCharAt(PHPASS, 3, '5'), 'ok'],
  ['$P$ with count 6', withCharAt(PHPASS, 3, '4'), 'the log2 count must be between 7 and 20'],
  ['$P$ with count 20', withCharAt(PHPASS, 3, 'I'), 'ok'],
  ['$H$ with count 21', withCharAt(`$H$${PHPASS.slice(3)}`, 3, 'J'), 'the log2 count must be between 7 and 20'],
  ['$P$ with count 30 (phpass maximum)', withCharAt(PHPASS, 3, 'S'), 'the log2 count must be between 7 and 20'],
  ['$P$ with a count outside crypt64', withCharAt(PHPASS, 3, '$'), `the log2 count must be one of ${CRYPT64}`],
  ['$P$ with a $ in the salt', withCharAt(PHPASS, 6, '$'), `the salt may only contain ${CRYPT64}`],
  ['$P$ with a digest outside crypt64', withCharAt(PHPASS, 20, '-'), `the digest may only contain ${CRYPT64}`],
  ['$P$ ending in 2 (an unused bit set)', withCharAt(PHPASS, -1, '2'), 'the last character of the digest has unused bits set'],
  // Drupal
  ['$S$ with 54 characters', DRUPAL.slice(0, -1), 'the hash must be 55 characters'],
  ['$S$ with 56 characters', `${DRUPAL}.`, 'the hash must be 55 characters'],
  ['$S$ with count 7', withCharAt(DRUPAL, 3, '5'), 'ok'],
  ['$S$ with count 6', withCharAt(DRUPAL, 3, '4'), 'the log2 count must be between 7 and 20'],
  ['$S$ with count 20', withCharAt(DRUPAL, 3, 'I'), 'ok'],
  ['$S$ with count 21', withCharAt(DRUPAL, 3, 'J'), 'the log2 count must be between 7 and 20'],
  ['$S$ ending in z (all 6 bits used: 43 of 86 characters)', withCharAt(DRUPAL, -1, 'z'), 'ok'],
  ['$S$ with a digest outside crypt64', withCharAt(DRUPAL, 30, '+'), `the digest may only contain ${CRYPT64}`],
  // WordPress
  ['$wp$ with bcrypt cost 04', `$wp$2y$04$${BCRYPT_BODY}`, 'ok'],
  ['$wp$ with bcrypt cost 16', `$wp$2b$16$${BCRYPT_BODY}`, 'ok'],
  ['$wp$ with bcrypt cost 17', `$wp$2a$17$${BCRYPT_BODY}`, 'the bcrypt cost must be between 4 and 16'],
  ['$wp$ with bcrypt cost 31', `$wp$2y$31$${BCRYPT_BODY}`, 'the bcrypt cost must be between 4 and 16'],
  ['$wp$ with bcrypt cost 03', `$wp$2y$03$${BCRYPT_BODY}`, 'the cost must be between 04 and 31'],
  ['$wp$ with bcrypt cost 5', `$wp$2y$5$${BCRYPT_BODY}`, "the cost must be two digits followed by '$'"],
  ['$wp$ with $2x$', `$wp$2x$10$${BCRYPT_BODY}`, 'expected $wp followed by a bcrypt hash'],
  ['$wp$ with an argon2 hash', '$wp$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaA', 'expected $wp followed by a bcrypt hash'],
  ['$wp$ with 52 bcrypt characters', `$wp$2y$10$${BCRYPT_BODY.slice(1)}`, 'the salt and hash must be 53 characters (22 salt + 31 hash), not 52'],
  ['$wp$ with a non-canonical salt end', `$wp$2y$10$${withCharAt(BCRYPT_BODY, 21, 'P')}`, 'the last character of the salt or of the hash has unused bits set'],
  // LDAP
  ['{SSHA} of exactly a digest', ldap('{SSHA}', 20), '{SSHA} must hold a 20-byte SHA-1 digest followed by a salt'],
  ['{ssha} of exactly a digest', ldap('{ssha}', 20), '{SSHA} must hold a 20-byte SHA-1 digest followed by a salt'],
  ['{SSHA} with a 1-byte salt', ldap('{SSHA}', 21), 'ok'],
  ['{SSHA256} of exactly a digest', ldap('{SSHA256}', 32), '{SSHA256} must hold a 32-byte SHA-256 digest followed by a salt'],
  ['{SSHA256} with a 1-byte salt', ldap('{SSHA256}', 33), 'ok'],
  ['{SSHA512} of exactly a digest', ldap('{SSHA512}', 64), '{SSHA512} must hold a 64-byte SHA-512 digest followed by a salt'],
  ['{SSHA512} with a 1-byte salt', ldap('{sSha512}', 65), 'ok'],
  ['{SMD5} of exactly a digest', ldap('{SMD5}', 16), '{SMD5} must hold a 16-byte MD5 digest followed by a salt'],
  ['{SMD5} with a 1-byte salt', ldap('{SMD5}', 17), 'ok'],
  ['{SMD5} empty', '{SMD5}', '{SMD5} must hold a 16-byte MD5 digest followed by a salt'],
  ['{SHA} of 20 bytes', ldap('{SHA}', 20), 'ok'],
  ['{SHA} of 21 bytes', ldap('{SHA}', 21), '{SHA} must hold exactly a 20-byte SHA-1 digest'],
  ['{MD5} of 15 bytes', ldap('{md5}', 15), '{MD5} must hold exactly a 16-byte MD5 digest'],
  ['{MD5} without its padding', '{MD5}ndTkYSaMgDT1yFZOFVxnpg', 'the value after {MD5} must be base64 with padding'],
  ['{MD5} with unused bits set', '{MD5}ndTkYSaMgDT1yFZOFVxnph==', 'the value after {MD5} must be base64 with padding'],
  ['{SSHA} in the URL-safe alphabet', '{SSHA}7ZHFw90vjpE09R3tyoGcSv7LXLeKeRM_', 'the value after {SSHA} must be base64 with padding'],
  ['{SSHA} with a space', '{SSHA}7ZHFw90vjpE09R3tyoGc Sv7LXLeKeRMs', 'the value after {SSHA} must be base64 with padding'],
  ['{CRYPT} of a DES crypt', '{CRYPT}abJnggxhB/yWI', '{CRYPT} must be followed by a $1$, $5$ or $6$ hash (DES crypt is not accepted)'],
  ['{CRYPT} of an $apr1$', `{CRYPT}$apr1$abcdefgh$${MD5_HASH}`, '{CRYPT} must be followed by a $1$, $5$ or $6$ hash (DES crypt is not accepted)'],
  ['{CRYPT} of a bcrypt', `{crypt}$2y$10$${BCRYPT_BODY}`, '{CRYPT} must be followed by a $1$, $5$ or $6$ hash (DES crypt is not accepted)'],
  ['{CRYPT} of a $1$ with a 9-character salt', `{CRYPT}$1$abcdefghi$${MD5_HASH}`, 'the salt must be at most 8 characters'],
  ['{CRYPT} of a $6$ with rounds=999', `{CRYPT}$6$rounds=999$AbCdEfGh$${SHA512_HASH}`, 'rounds must be between 1000 and 1000000'],
  ['{CRYPT} of a $5$ with rounds=1000000', `{CRYPT}$5$rounds=1000000$AbCdEfGh$${SHA256_HASH}`, 'ok'],
];

describe('bounds and grammar', () => {
  it.each(CASES)('%s', (_label, hash, expected) => {
    const reason = judge(hash);
    expect(reason).toBe(expected);
    // The identifier (`$1$`, `{SSHA}`, `rounds=…`) may be named; no salt or digest may.
    const secrets = hash.replace(/^(\{[A-Za-z0-9]+\}|\$[a-z0-9]+\$)/, '').split('$');
    for (const part of secrets.filter((segment) => segment.length >= 6 && !segment.startsWith('rounds='))) {
      expect(reason).not.toContain(part);
    }
  });
});

describe('markers', () => {
  it.each(['$1$', '$apr1$', '$5$', '$6$', '$P$', '$H$', '$S$', '$wp$', '{SSHA}', '{ssha256}', '{SSHA512}', '{Smd5}', '{sha}', '{MD5}', '{CRYPT}'])(
    'claim %j alone, which no form parses',
    (prefix) => {
      const { form } = formFor(prefix);
      expect(form.parse(prefix)).toEqual({ ok: false, reason: expect.any(String) });
    },
  );

  it.each(['$2y$10$x', '$argon2id$', '$pbkdf2-sha256$', 'U$S$DjWyrUFujWPOBoj7j', '$y$j9T$', '$md5-crypt$', ' $1$', '{SSHA', 'SSHA}', '$wp2y$', '{CRYPT-MD5}'])(
    'leave %j to other families',
    (hash) => {
      expect(CRYPT_FORMS.filter(({ form }) => form.marker.test(hash))).toEqual([]);
    },
  );
});
