import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { readStoredUser } from '../support/table';
import { itWithTool, runTool } from '../unit/password/helpers';
import {
  ARGON2_VECTORS,
  BCRYPT_VECTORS,
  LONG_PASSWORD,
  RECORDED_TOOL_VECTORS,
  VENDOR_SCRYPT_PROJECT,
  VENDOR_SCRYPT_VECTORS,
  type HashVector,
} from '../fixtures/password-vectors';

const SIGNER_KEY = VENDOR_SCRYPT_PROJECT.signerKey;
/** Own hashing parameters smaller than the default, to check that the configured ones are used. */
const OWN = { ARGON2_MEMORY_KIB: '4096', ARGON2_ITERATIONS: '3', ARGON2_PARALLELISM: '1' };

let api: TestApi;
/** Every response of this file, checked at the end for secrets that do not belong in it. */
const responses: ApiResponse[] = [];
const secrets = new Set<string>([SIGNER_KEY]);

beforeAll(async () => {
  api = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: SIGNER_KEY, ...OWN });
});
afterAll(() => api.stop());

async function call(method: 'post' | 'put', path: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await api[method](path, body, headers);
  responses.push(res);
  return res;
}
const importHash = (body: Record<string, unknown>) => {
  if (typeof body.passwordHash === 'string') secrets.add(body.passwordHash);
  return call('post', '/recipe/user/passwordhash/import', body);
};
const signIn = (email: string, password: string) => {
  secrets.add(password);
  return call('post', '/recipe/signin', { email, password });
};

/** Upper-cases every other letter: `vendor_scrypt` → `VeNdOr_sCrYpT`. */
const mixedCase = (s: string) => [...s].map((c, i) => (i % 2 ? c.toLowerCase() : c.toUpperCase())).join('');

const CASES: [string, HashVector, string | undefined][] = [
  ...BCRYPT_VECTORS.flatMap((v): [string, HashVector, string | undefined][] => [
    [`${v.hash.slice(0, 4)} without algorithm`, v, undefined],
    [`${v.hash.slice(0, 4)} as BCrypt`, v, 'BCrypt'],
  ]),
  ...ARGON2_VECTORS.flatMap((v): [string, HashVector, string | undefined][] => [
    [`${v.hash.split('$')[1]} without algorithm`, v, undefined],
    [`${v.hash.split('$')[1]} as ARGON2`, v, 'ARGON2'],
  ]),
  ...VENDOR_SCRYPT_VECTORS.flatMap((v): [string, HashVector, string | undefined][] => [
    [`scrypt(${v.password}) as vendor_scrypt`, v, 'vendor_scrypt'],
    [`scrypt(${v.password}) in mixed case`, v, mixedCase('vendor_scrypt')],
    [`scrypt(${v.password}) as firebase_scrypt`, v, 'firebase_scrypt'],
    [`scrypt(${v.password}) without algorithm`, v, undefined],
  ]),
  [
    'scrypt in base64url (Firebase REST API form)',
    {
      ...VENDOR_SCRYPT_VECTORS[0],
      hash: VENDOR_SCRYPT_VECTORS[0].hash
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+(?=\$)/g, ''),
    },
    'vendor_scrypt',
  ],
  ...RECORDED_TOOL_VECTORS.map((v): [string, HashVector, string | undefined] => [`recorded ${v.source.split(' ')[0]} ${v.hash.slice(0, 9)}`, v, undefined]),
];

describe('POST /recipe/user/passwordhash/import then POST /recipe/signin', () => {
  it.each(CASES)('imports %s and signs in with the old password only', async (_label, vector, algorithm) => {
    const email = uniqueEmail('vec');
    const imported = await importHash({ email, passwordHash: vector.hash, ...(algorithm ? { hashingAlgorithm: algorithm } : {}) });
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({ status: 'OK', didUserAlreadyExist: false });
    expect(imported.json.user.loginMethods[0]).toMatchObject({ recipeId: 'emailpassword', email, verified: false });

    const wrong = (vector.password.startsWith('Z') ? 'Y' : 'Z') + vector.password.slice(1);
    expect((await signIn(email, wrong)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const ok = await signIn(email.toUpperCase(), vector.password);
    expect(ok.json.status).toBe('OK');
    expect(ok.json.user.id).toBe(imported.json.user.id);
    expect(ok.json.recipeUserId).toBe(imported.json.user.id);
  });

  const TOOL_PASSWORD = 'pässwörd-日本 long';
  const generated: [string, string, () => string][] = [
    ['htpasswd', 'apache2-utils', () => runTool('htpasswd', ['-nbBC', '10', '', TOOL_PASSWORD]).trim().replace(/^:/, '')],
    ['mkpasswd', 'whois', () => runTool('mkpasswd', ['-m', 'bcrypt', TOOL_PASSWORD]).trim()],
    ['argon2', 'argon2', () => runTool('argon2', ['somesaltsomesalt', '-id', '-t', '2', '-m', '12', '-p', '1', '-e'], TOOL_PASSWORD).trim()],
  ];
  for (const [tool, debianPackage, generate] of generated) {
    itWithTool(tool, debianPackage)(`imports a hash generated now by ${tool} and signs in`, async () => {
      const email = uniqueEmail('tool');
      expect((await importHash({ email, passwordHash: generate() })).json.status).toBe('OK');
      expect((await signIn(email, TOOL_PASSWORD)).json.status).toBe('OK');
      expect((await signIn(email, 'pässwörd-日本 lonG')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    });
  }

  it('truncates bcrypt passwords at 72 bytes like every bcrypt does', async () => {
    const vector = RECORDED_TOOL_VECTORS.find((v) => v.password === LONG_PASSWORD.slice(0, 72)) as HashVector;
    const email = uniqueEmail('long');
    await importHash({ email, passwordHash: vector.hash });
    expect((await signIn(email, LONG_PASSWORD)).json.status).toBe('OK');
  });

  it('replaces the hash on re-import: the new password works, the old one does not', async () => {
    const email = uniqueEmail('reimport');
    const first = await importHash({ email, passwordHash: BCRYPT_VECTORS[0].hash });
    const second = await importHash({ email, passwordHash: ARGON2_VECTORS[1].hash });
    expect(second.json).toMatchObject({ status: 'OK', didUserAlreadyExist: true });
    expect(second.json.user.id).toBe(first.json.user.id);
    expect((await signIn(email, BCRYPT_VECTORS[0].password)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await signIn(email, ARGON2_VECTORS[1].password)).json.status).toBe('OK');
  });

  it('makes exactly one user from 30 concurrent imports of one email', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(Array.from({ length: 30 }, () => importHash({ email, passwordHash: BCRYPT_VECTORS[0].hash })));
    expect(results.every((r) => r.json?.status === 'OK')).toBe(true);
    expect(new Set(results.map((r) => r.json.user.id)).size).toBe(1);
    expect(results.filter((r) => r.json.didUserAlreadyExist === false)).toHaveLength(1);
  });

  it('answers WRONG_CREDENTIALS_ERROR for an unknown email', async () => {
    expect((await signIn(uniqueEmail('ghost'), 'whatever')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it.each([
    [{ passwordHash: BCRYPT_VECTORS[0].hash }, "Field name 'email' is invalid in JSON input"],
    [{ email: 'a@b.c' }, "Field name 'passwordHash' is invalid in JSON input"],
    [{ email: 'a@b.c', passwordHash: 'x'.repeat(513) }, "Field name 'passwordHash' is too long: the maximum is 512 characters"],
    [{ email: 'a@b.c', passwordHash: BCRYPT_VECTORS[0].hash, hashingAlgorithm: 'md5' }, 'Unsupported password hashing algorithm'],
    [{ email: 'a@b.c', passwordHash: 'plaintext' }, 'Password hash is in invalid format'],
    [
      { email: 'a@b.c', passwordHash: '$2a$17$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq' },
      'Password hash bcrypt cost 17 is above the maximum of 16',
    ],
    [{ email: 'a@b.c', passwordHash: `bcrypt${BCRYPT_VECTORS[0].hash}` }, "'bcrypt'"],
    [{ email: 'a@b.c', passwordHash: `{bcrypt}${BCRYPT_VECTORS[0].hash}` }, "'{bcrypt}'"],
    [{ email: 'a@b.c', passwordHash: ARGON2_VECTORS[0].hash, hashingAlgorithm: 'bcrypt' }, 'Password hash is in invalid BCrypt format'],
    [{ email: 'a@b.c', passwordHash: '$argon2id$v=19$m=524288,t=2,p=1$VG1Oa1lMbzZLbzk5azQ2Qg$kjcNNtZ/b0t/8HgXUiQ76A' }, '262144'],
    [{ email: 'a@b.c', passwordHash: VENDOR_SCRYPT_VECTORS[0].hash.replace('m=14', 'm=18'), hashingAlgorithm: 'vendor_scrypt' }, '17'],
    [
      { email: 'a@b.c', passwordHash: '$f_scrypt$abc!$def$m=14$r=8$s=Bw==', hashingAlgorithm: 'vendor_scrypt' },
      'Password hash is in invalid vendor scrypt format',
    ],
  ])('refuses import %j with a 400 that says why', async (body, fragment) => {
    const res = await importHash(body);
    expect(res.status).toBe(400);
    expect(res.text).toContain(fragment);
  });
});

describe('the vendor signer key', () => {
  it('refuses a vendor scrypt import while no signer key is configured, and answers 500 at sign-in for a stored one', async () => {
    const email = uniqueEmail('nokey');
    expect((await importHash({ email, passwordHash: VENDOR_SCRYPT_VECTORS[0].hash, hashingAlgorithm: 'vendor_scrypt' })).json.status).toBe('OK');
    const noKey = await startApi({ TABLE_NAME: api.tableName, VENDOR_PASSWORD_HASHING_SIGNER_KEY: '' });
    try {
      const refused = await noKey.post('/recipe/user/passwordhash/import', {
        email: uniqueEmail(),
        passwordHash: VENDOR_SCRYPT_VECTORS[0].hash,
        hashingAlgorithm: 'vendor_scrypt',
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toBe('vendor_password_hashing_signer_key is not configured');
      const signin = await noKey.post('/recipe/signin', { email, password: VENDOR_SCRYPT_VECTORS[0].password });
      expect(signin.status).toBe(500);
      expect(signin.text).toBe('vendor_password_hashing_signer_key is not configured');
      expect(noKey.logs.join('\n')).not.toContain(VENDOR_SCRYPT_VECTORS[0].password);
    } finally {
      await noKey.stop();
    }
  });

  it('fails verification (not the request) with a wrong signer key', async () => {
    const email = uniqueEmail('wrongkey');
    await importHash({ email, passwordHash: VENDOR_SCRYPT_VECTORS[0].hash, hashingAlgorithm: 'vendor_scrypt' });
    const wrong = await startApi({ TABLE_NAME: api.tableName, VENDOR_PASSWORD_HASHING_SIGNER_KEY: Buffer.alloc(64, 1).toString('base64') });
    try {
      expect((await wrong.post('/recipe/signin', { email, password: VENDOR_SCRYPT_VECTORS[0].password })).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    } finally {
      await wrong.stop();
    }
  });
});

describe('rehash on sign-in', () => {
  it.each([
    ['BCrypt', BCRYPT_VECTORS[0], undefined],
    ['vendor scrypt', VENDOR_SCRYPT_VECTORS[0], 'vendor_scrypt'],
  ])('stores the own Argon2id hash after the first sign-in with %s, and the password still works', async (_l, vector, algorithm) => {
    const email = uniqueEmail('rehash');
    const { json } = await importHash({ email, passwordHash: vector.hash, ...(algorithm ? { hashingAlgorithm: algorithm } : {}) });
    expect((await readStoredUser(api.tableName, json.user.id))?.passwordHash).toBe(vector.hash);
    expect((await signIn(email, vector.password)).json.status).toBe('OK');
    const stored = (await readStoredUser(api.tableName, json.user.id))?.passwordHash as string;
    secrets.add(stored);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=4096,t=3,p=1\$/);
    expect((await signIn(email, vector.password)).json.status).toBe('OK');
    expect((await signIn(email, 'not-it')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it('leaves the imported hash untouched when rehash is off', async () => {
    const off = await startApi({ TABLE_NAME: api.tableName, PASSWORD_REHASH_ON_SIGNIN: 'false' });
    try {
      const email = uniqueEmail('norehash');
      const { json } = await off.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT_VECTORS[1].hash });
      expect((await off.post('/recipe/signin', { email, password: BCRYPT_VECTORS[1].password })).json.status).toBe('OK');
      expect((await readStoredUser(api.tableName, json.user.id))?.passwordHash).toBe(BCRYPT_VECTORS[1].hash);
    } finally {
      await off.stop();
    }
  });

  it('never overwrites a password change that races with the rehash', async () => {
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('race-rehash');
      const { json } = await importHash({ email, passwordHash: BCRYPT_VECTORS[0].hash });
      const [, change] = await Promise.all([
        signIn(email, BCRYPT_VECTORS[0].password),
        call('put', '/recipe/user', { recipeUserId: json.user.id, password: 'brand-new-password' }),
      ]);
      expect(change.json).toEqual({ status: 'OK' });
      expect((await signIn(email, 'brand-new-password')).json.status).toBe('OK');
      expect((await signIn(email, BCRYPT_VECTORS[0].password)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    }
  });
});

describe('POST /recipe/signup and PUT /recipe/user (email-password)', () => {
  it('signs up with the own Argon2id, refuses a second sign-up, and signs in', async () => {
    const email = uniqueEmail('signup');
    const up = await call('post', '/recipe/signup', { email: ` ${email.toUpperCase()} `, password: 'pässwörd-日本' });
    expect(up.json.status).toBe('OK');
    expect(up.json.user.emails).toEqual([email]);
    expect(up.json.recipeUserId).toBe(up.json.user.id);
    expect((await readStoredUser(api.tableName, up.json.user.id))?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=4096,t=3,p=1\$/);
    expect((await call('post', '/recipe/signup', { email, password: 'other' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await signIn(email, 'pässwörd-日本')).json.user.id).toBe(up.json.user.id);
  });

  it('changes the password and the email; refuses a taken email; UNKNOWN_USER_ID_ERROR for a stranger', async () => {
    const email = uniqueEmail('change');
    const other = uniqueEmail('taken');
    const user = (await call('post', '/recipe/signup', { email, password: 'first-password' })).json.user;
    await call('post', '/recipe/signup', { email: other, password: 'x-password' });
    expect((await call('put', '/recipe/user', { userId: user.id, password: 'second-password' })).json).toEqual({ status: 'OK' });
    expect((await signIn(email, 'first-password')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await signIn(email, 'second-password')).json.status).toBe('OK');
    expect((await call('put', '/recipe/user', { userId: user.id, email: other }, { rid: 'emailpassword' })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
    const moved = uniqueEmail('moved');
    expect((await call('put', '/recipe/user', { userId: user.id, email: moved })).json).toEqual({ status: 'OK' });
    expect((await signIn(moved, 'second-password')).json.status).toBe('OK');
    expect((await signIn(email, 'second-password')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await call('put', '/recipe/user', { userId: '00000000-0000-4000-8000-000000000000', password: 'p' })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const found = await api.get(`/recipe/user?email=${encodeURIComponent(moved)}`, { rid: 'emailpassword' });
    expect(found.json.user.id).toBe(user.id);
    expect(found.text).not.toContain('argon2');
  });

  it.each([
    ['/recipe/signin', { email: 'a@b.c' }, "Field name 'password' is invalid in JSON input"],
    ['/recipe/signin', { password: 'p' }, "Field name 'email' is invalid in JSON input"],
    ['/recipe/signin', { email: 'a@b.c', password: 'x'.repeat(1025) }, "Field name 'password' is too long: the maximum is 1024 bytes"],
    ['/recipe/signup', { email: 'nope', password: 'p' }, "Field name 'email' is not an email address: it has no '@'"],
  ])('refuses %s %j with a 400', async (path, body, message) => {
    const res = await call('post', path, body);
    expect(res.status).toBe(400);
    expect(res.text).toBe(message);
  });

  it('refuses an update with neither email nor password', async () => {
    const res = await call('put', '/recipe/user', { userId: 'x' });
    expect(res.status).toBe(400);
    expect(res.text).toBe('Please provide at least one of email or password');
  });
});

describe('a lookup by email only normalises it (SPEC §3): one that is no address finds no one, never a 400', () => {
  const NOT_ADDRESSES = ['random', 'a b@c.d', '@', ' '];

  it.each(NOT_ADDRESSES)('%j: by account info, by recipe, the codes of a device, a sign-in', async (raw) => {
    const q = encodeURIComponent(raw);
    const byInfo = await api.get(`/users/by-accountinfo?email=${q}`);
    expect([byInfo.status, byInfo.json]).toEqual([200, { status: 'OK', users: [] }]);
    const union = await api.get(`/users/by-accountinfo?email=${q}&phoneNumber=%2B14155550199&doUnionOfAccountInfo=true`);
    expect(union.json).toEqual({ status: 'OK', users: [] });
    for (const rid of ['emailpassword', 'passwordless']) {
      expect((await api.get(`/recipe/user?email=${q}`, { rid })).json).toEqual({ status: 'UNKNOWN_EMAIL_ERROR' });
    }
    expect((await api.get(`/recipe/signinup/codes?email=${q}`)).json).toEqual({ status: 'OK', devices: [] });
    expect((await signIn(raw, 'any-password')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('still trims and lower-cases, so a real address is found however it is written; writes still refuse a non-address', async () => {
    const email = `lookup-${Date.now()}@example.com`;
    const user = (await call('post', '/recipe/signup', { email, password: 'pw-123456' })).json.user;
    const shouted = encodeURIComponent(`  ${email.toUpperCase()} `);
    expect((await api.get(`/users/by-accountinfo?email=${shouted}`)).json.users.map((u: { id: string }) => u.id)).toEqual([user.id]);
    expect((await api.get(`/recipe/user?email=${shouted}`, { rid: 'emailpassword' })).json.user.id).toBe(user.id);
    expect((await signIn(` ${email.toUpperCase()}`, 'pw-123456')).json.status).toBe('OK');
    expect((await call('post', '/recipe/signup', { email: 'random', password: 'pw-123456' })).text).toBe(
      "Field name 'email' is not an email address: it has no '@'",
    );
    // §8's bound holds for a lookup too.
    const long = await api.get(`/users/by-accountinfo?email=${'a'.repeat(257)}`);
    expect([long.status, long.text]).toEqual([400, "Field name 'email' is too long: the maximum is 256 characters"]);
  });
});

describe('secret hygiene', () => {
  it('never returns or logs a password, a hash or the signer key', async () => {
    expect(responses.length).toBeGreaterThan(50);
    await new Promise((r) => setTimeout(r, 200));
    const logs = api.logs.join('\n');
    for (const secret of secrets) {
      if (secret.length < 6) continue;
      for (const res of responses) expect(res.text.includes(secret) ? `${secret} in ${res.text}` : '').toBe('');
      expect(logs.includes(secret) ? `${secret} in logs` : '').toBe('');
    }
  });
});
