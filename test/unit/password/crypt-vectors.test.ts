import { CRYPT_VECTORS } from '../../fixtures/hash-family-vectors';
import { FAMILY_FORMS, formFor, formLabelled, judge, wrongPassword } from './crypt-forms';

/*
 * Every vector of the crypt-style families verifies byte-exactly: made by independent tools
 * (test/fixtures/hash-family-vectors.ts names each command), and a few more made on this machine below.
 */

describe('SPEC §7b vectors (vectors.jsonl)', () => {
  it('cover every form of these families', () => {
    const labels = new Set(CRYPT_VECTORS.map((vector) => formFor(vector.hash).label));
    expect([...labels].sort()).toEqual(
      Object.values(FAMILY_FORMS)
        .flat()
        .filter((label, i, all) => all.indexOf(label) === i)
        .sort(),
    );
  });

  describe.each(CRYPT_VECTORS.map((vector) => [`${vector.form} ${vector.hash.slice(0, 16)}… (${vector.command})`, vector]))('%s', (_label, vector) => {
    it('is a form of the family that names it, within its bounds', () => {
      expect(FAMILY_FORMS[vector.family as string]).toContain(formFor(vector.hash).label);
      expect(judge(vector.hash)).toBe('ok');
    });

    it('verifies its password and no other', async () => {
      const { verify } = formFor(vector.hash);
      await expect(verify(vector.password, vector.hash)).resolves.toBe(true);
      await expect(verify(wrongPassword(vector.password), vector.hash)).resolves.toBe(false);
    });
  });
});

describe('what the vectors parse to', () => {
  it.each([
    ['implicit rounds', '$5$gNjjNMu1GqbeB6ve$nzPCkziobximdSCyyZbdNxwGzUgF42/IpllpM4NUGo0', { digest: 'sha256', rounds: 5000, salt: 'gNjjNMu1GqbeB6ve' }],
    [
      'explicit default rounds',
      '$6$rounds=5000$cPZKcuzPrR2BImWS$yYQtptcpPgRTmwIyyE5oKtrEp13JfYXoQqeUgg9lQHgJFxLj4Brrj5GyBiWWMLFnIzlRLU7zMx1gv0vlMN3p11',
      { digest: 'sha512', rounds: 5000 },
    ],
    [
      'the highest rounds',
      '$6$rounds=1000000$5NtghLYukgrGCmxJ$5v547JDebLfBqbi2bAMJ9YE9bdfDt0ww5IjFg6orwUh074TgOgRm9ue4YEJQh3SOHt.E3HtSlgzJJXB0ekvIj/',
      { rounds: 1_000_000 },
    ],
    ['a 2-character salt', '$1$ab$FPyWVGc2x83IsQ7.q775k1', { magic: '$1$', salt: 'ab' }],
    ['the highest phpass count', '$P$I8USBO0wDHYwhDwp9DZwcUmo5Ho71B/', { ident: '$P$', log2Count: 20, salt: '8USBO0wD' }],
    ['Drupal 8+ count', '$S$ETblRUQwSORU3AT63CB7BUAP0wTWQdpmS2teuAbfoOnEYR8Q6356', { ident: '$S$', log2Count: 16 }],
    ['a bcrypt behind $wp', '$wp$2y$11$c4sGldUaIKhuQEb7BKDTFeMppedwH3lCuU3Hq9afzcudQ1J3UFjdi', { revision: 'y', cost: 11 }],
  ])('%s', (_label, hash, expected) => {
    const parsed = formFor(hash).form.parse(hash);
    expect(parsed).toEqual({ ok: true, params: expect.objectContaining(expected) });
  });

  it('reads the LDAP salt after the digest (slapd 4 bytes, 389-ds 8)', () => {
    for (const [hash, bytes] of [
      ['{SSHA}7ZHFw90vjpE09R3tyoGcSv7LXLeKeRMs', 4],
      ['{SSHA}GF/G2jH26GVwQYYyRgpmyIFhNt3q4daviHzE/A==', 8],
    ] as const) {
      const parsed = formLabelled('{SSHA}').form.parse(hash);
      expect(parsed.ok && (parsed.params as { salt: Buffer }).salt.length).toBe(bytes);
    }
  });
});

/**
 * Made on this machine on 2026-11-27 with the tools beside each (openssl 3.0.19, mkpasswd from whois,
 * htpasswd from apache2-utils 2.4, Python 3.11's `crypt` over libcrypt, the passlib 1.7.4 wheel in
 * /opt/pypi/files run with PYTHONPATH, and `openssl dgst` for the LDAP digests), never by this code.
 */
const MADE_HERE: ReadonlyArray<[how: string, password: string, hash: string]> = [
  ["openssl passwd -1 -salt '' (empty salt)", 'correct horse battery staple', '$1$$zoYVCpjXXFW7mz9BsFHro.'],
  ["python3 crypt.crypt('x', '$1$$') (empty salt)", 'x', '$1$$LP5.V3ajGqHDdXW6XwZQy.'],
  ["openssl passwd -1 -salt abcdefgh '' (empty password)", '', '$1$abcdefgh$M55TzYaaccxVGbptZWaxX/'],
  ['openssl passwd -1 -salt abcdefghij (salt cut to 8)', 'long md5 salt', '$1$abcdefgh$Uh2xjqlWV9M26p3ihFV2x1'],
  ['mkpasswd -m md5crypt -S Zz09./Qq', '密码', '$1$Zz09./Qq$BD9cfVBBvzjklDFac9jqL1'],
  ['openssl passwd -apr1 -salt xyz', 'Ünïcödé ключ 🔑', '$apr1$xyz$4QvtQxo9ku2s.C26Kxy5U1'],
  ['htpasswd -nbm', 'correct horse battery staple', '$apr1$yXnZSiaW$H6gmZroORBVSAgY2FepY61'],
  ['openssl passwd -5 -salt 0123456789abcdef (16 characters)', 'pässwörd ☃ 密码', '$5$0123456789abcdef$rrQHfiAnw1akjH4YFPN0lu.pQXGZAoxoHWbPmtTtki7'],
  ["openssl passwd -5 -salt 'a b:c!~' (printable salt)", 'printable salt', '$5$a b:c!~$n6K4w6OJ5jvxN4C438IGa.TY55vyncEt2bD73Hmao/5'],
  ["openssl passwd -5 -salt 'rounds=999$ab' (glibc's clamp writes 1000)", 'hunter2', '$5$rounds=1000$ab$yHt1/SmJUUQlNT7HX1GvgoM3rgcgXnybFmZlCWWrRTA'],
  ["python3 crypt.crypt('x', '$5$$') (empty salt)", 'x', '$5$$0Uor7kq6CTPY0DtjOiw.I2DuJSUfiZxCqkrafMVjNc8'],
  ['mkpasswd -m sha256crypt -R 1000 -S AbCdEfGh', 'Größe-Ñandú', '$5$rounds=1000$AbCdEfGh$LfCOPOQq9CeL9/YYe0Nm6HG72FJfTzL6X8xgs1bRoa0'],
  [
    "passlib sha256_crypt.using(rounds=1000, salt='0123456789abcdef').hash('x' * 200)",
    'x'.repeat(200),
    '$5$rounds=1000$0123456789abcdef$cwWnaUGcLN.66mrVmLQzbS6dUxIQlvMBL22lgHBEA42',
  ],
  [
    "openssl passwd -6 -salt 'rounds=1000$saltsaltsaltsalt'",
    'hunter2',
    '$6$rounds=1000$saltsaltsaltsalt$orS9iMJrr9MJ/MmhIZpR3rN5DgWJ3TdG9YhlzGFAb//ro/8kWEuAbzE9leuPI.6/LqhvVfS/V/UbjK0c3fIcJ1',
  ],
  [
    'openssl passwd -6 -salt 0123456789abcdefXYZ (salt cut to 16)',
    'long salt cut',
    '$6$0123456789abcdef$wZOiurrsI/WtA8laD7Arh1OHFuVrIWgBxQYm3rP2..hyepQ6gRIpDAvO8uiP2/Pwq5gBx23.a09/NRHyNnr0y/',
  ],
  [
    'openssl passwd -6 -salt a.b/c (130-byte password)',
    'b'.repeat(130),
    '$6$a.b/c$7sGrqPjPaUB3lpJ5FPHULOYfpTYYhUrTBp0sXjZZwKE6v8XdkshtjsUDHsLCurcQM1Jw7ZvM1ONvkTypdTwKc0',
  ],
  [
    "python3 crypt.crypt('', '$6$rounds=1000$abc') (empty password)",
    '',
    '$6$rounds=1000$abc$noBronbzNMcAtG61/dMHzc1H.fuLjHArF9.wCx8LbkVDMMEuChQCPee28tiPcXHL/CMNpCqo6OPTyoEpoCMsY/',
  ],
  [
    "passlib sha512_crypt.using(rounds=1000, salt='') (empty salt)",
    'hunter2',
    '$6$rounds=1000$$KgMyHJJqo9T4ejXBJ4RoNQoOtrVKionq25RqRWqUcw6HyBGAbsMuP97F.YI3MZ4L2/rPH4v4VFIj9EKIRXASY/',
  ],
  ["passlib phpass.using(rounds=7, salt='./AZaz09') (lowest count)", 'correct horse battery staple', '$P$5./AZaz09IUZuntwGR/e1bjAMJqL.S1'],
  ["passlib phpass.using(rounds=7, ident='H', salt='abcdefgh')", 'Ünïcödé ключ 🔑', '$H$5abcdefghLcFPnbC5PAHJBVmGnHCiM/'],
  ["passlib phpass.using(rounds=8, salt='zzzzzzzz') (empty password)", '', '$P$6zzzzzzzzhJfXPTLBnG8rhXWuM9jMq.'],
  [
    "'$wp' + htpasswd -nbBC 4 '' \"$(printf %s PW | openssl dgst -sha384 -hmac wp-sha384 -binary | openssl base64 -A)\" (lowest cost)",
    'correct horse battery staple',
    '$wp$2y$04$aBztJ0T5/KMKlbavjwvn8Ov2JwfX5oYQVgYzOAleyGXZB7Cbo05kq',
  ],
  [
    'printf %s PW | cat - salt(01020304) | openssl dgst -sha256 -binary, salt appended, base64',
    'pässwörd ☃ 密码',
    '{SSHA256}521QEOdj7aE2CFSk/GTmx1P50Dxhn165fGLjBEBJgfkBAgME',
  ],
  ['the same with MD5 and salt 0001020304050607', 'hunter2', '{SMD5}BpQACP/zx66e7kHY6/8D3wABAgMEBQYH'],
  ['the same with SHA-512 and the 1-byte salt ff', 'x', '{SSHA512}1+RmSLbzu05vB+6hve9xjZUK7jsENzITnWcSnj9mbxol5mmtQbWsZD/jciJCyGbu6bNxA5mQZUhqw2K0lSQ1S/8='],
  ['the same with SHA-1, salt deadbeef (empty password)', '', '{SSHA}14+LuZKlall/bHofuRi7eCcTZ+verb7v'],
  ['printf %s PW | openssl dgst -sha1 -binary | openssl base64', 'correct horse battery staple', '{SHA}q/eq1kOINtvlJqojGr3i0O73TUI='],
  ['printf %s PW | openssl dgst -md5 -binary | openssl base64', 'Ünïcödé ключ 🔑', '{MD5}Ho3GKBRRanFOCQXhOq+mOg=='],
  ["'{CRYPT}' + mkpasswd -m md5crypt -S Zz09./Qq, scheme in lower case", '密码', '{crypt}$1$Zz09./Qq$BD9cfVBBvzjklDFac9jqL1'],
  ["'{Crypt}' + openssl passwd -5 -salt 'rounds=999$ab'", 'hunter2', '{Crypt}$5$rounds=1000$ab$yHt1/SmJUUQlNT7HX1GvgoM3rgcgXnybFmZlCWWrRTA'],
];

describe('vectors made here by independent tools', () => {
  describe.each(MADE_HERE)('%s', (_how, password, hash) => {
    it('parses within its bounds and verifies its password and no other', async () => {
      expect(judge(hash)).toBe('ok');
      const { verify } = formFor(hash);
      await expect(verify(password, hash)).resolves.toBe(true);
      await expect(verify(wrongPassword(password), hash)).resolves.toBe(false);
    });
  });

  it('verifies the highest bcrypt cost behind $wp (htpasswd -nbBC 16, as above)', async () => {
    const hash = '$wp$2y$16$Th7UzSh0wXWU2HMIXGmVnuSHa3M556LYLZZ5vGhG3r.tCjnkxZ6aS';
    expect(judge(hash)).toBe('ok');
    // One check only: 2^16 bcrypt rounds take seconds, and a wrong password runs the same code.
    await expect(formFor(hash).verify('Ünïcödé ключ 🔑', hash)).resolves.toBe(true);
  });
});
