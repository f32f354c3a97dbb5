import fc from 'fast-check';
import { ROUTES } from '../../infra/routes';
import { startApi, type ApiResponse, type TestApi } from '../support/api';

/**
 * Cases per endpoint; `FUZZ_RUNS=5000 npm test` digs deeper. A hundred a route (7,300 requests a
 * run, a new seed each run) meet every branch of the body, query and header arbitraries several
 * times per route; 300 took a fifth of the whole suite's time.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: '3' });
});
afterAll(() => api.stop());

const FIELDS = [
  'email',
  'phoneNumber',
  'deviceId',
  'userInputCode',
  'preAuthSessionId',
  'linkCode',
  'userId',
  'recipeUserId',
  'passwordHash',
  'hashingAlgorithm',
  'password',
  'thirdPartyId',
  'thirdPartyUserId',
  'tenantId',
  'isVerified',
  'id',
  'primaryUserId',
  'removeAllLinkedAccounts',
  'metadataUpdate',
  'superTokensUserId',
  'externalUserId',
  'externalUserIdInfo',
  'userIdType',
  'force',
  'method',
  'token',
  'role',
  'permissions',
  'permission',
  'users',
  'ids',
  'status',
  'migratePasswordOnSignIn',
  'config',
  'skipValidation',
];

/**
 * Strings that are not valid Unicode: lone UTF-16 surrogates alone, inside text, and reversed
 * pairs. `JSON.stringify` escapes them (`"\ud800"`), so the server's JSON parser hands them on.
 */
const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const notUnicode: fc.Arbitrary<string> = fc.oneof(
  surrogate,
  fc.tuple(fc.string({ maxLength: 8 }), surrogate, fc.string({ maxLength: 8 })).map(([a, b, c]) => a + b + c),
  fc.constantFrom('\udc00\ud800', 'a@b.c\ud800', '+1415555\udfff2671', '\ud83d'),
);

/** A tenant's third-party provider (SPEC §22), its fields of any JSON type. */
const providerConfig = fc.record(
  {
    thirdPartyId: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('apple', 'google-workspaces', 'boxy-saml', ' okta '), fc.jsonValue()),
    clients: fc.oneof(
      fc.jsonValue(),
      fc.array(
        fc.dictionary(fc.constantFrom('clientId', 'clientType', 'clientSecret', 'scope', 'forcePKCE', 'additionalConfig'), fc.jsonValue(), { maxKeys: 4 }),
        {
          maxLength: 25,
        },
      ),
    ),
    userInfoMap: fc.jsonValue(),
    requireEmail: fc.jsonValue(),
    tokenEndpointBodyParams: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
const hugeString = fc.integer({ min: 1000, max: 300_000 }).map((n) => 'é'.repeat(n));
const deep = fc.integer({ min: 1, max: 5000 }).map((n) => JSON.parse('['.repeat(Math.min(n, 500)) + ']'.repeat(Math.min(n, 500))));
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.constantFrom('', ' ', 'a@b.c', '+14155552671', '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq', 'public', 'bcrypt'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  notUnicode,
  notUnicode,
  fc.array(fc.jsonValue(), { maxLength: 4 }),
  fc.dictionary(fc.constantFrom('id', 'isVerified', 'x'), fc.oneof(fc.jsonValue(), notUnicode), { maxKeys: 3 }),
  hugeString,
  deep,
  providerConfig,
);
const objectBody = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }).map((o) => JSON.stringify(o));
const rawBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.concat([Buffer.from('{"email":"'), Buffer.from(b), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '{"a":'.repeat(n)),
);
/**
 * Query values stay below Node's 16 KB header limit together (URLs above it are answered 431 by
 * the server before the body is read, which a client still uploading sees as EPIPE; the
 * oversized-URL case has its own test in http-and-tenants).
 */
const query = fc.dictionary(
  fc.constantFrom(...FIELDS, 'doUnionOfAccountInfo', 'limit', 'paginationToken', 'timeJoinedOrder'),
  fc.oneof(
    fc.string(),
    hugeString.map((s) => s.slice(0, 600)),
  ),
  { maxKeys: 4 },
);
const headers = fc.record(
  {
    rid: fc.constantFrom('passwordless', 'emailpassword', 'thirdparty', 'PASSWORDLESS', 'nonsense', ''),
    'cdi-version': fc.constantFrom('5.4', '5.0', '4.0', 'x', ''),
  },
  { requiredKeys: [] },
);

/**
 * The invariants of every answer: never a 5xx; a 4xx is one short plain-text sentence, or (bulk
 * import's structured 400s, SPEC §15) a JSON document whose `error` is one.
 */
function checkAnswer(res: ApiResponse, what: string): void {
  if (res.status >= 500) throw new Error(`${what} → ${res.status} ${res.text}`);
  if (res.status === 400 && what.includes('/bulk-import/') && res.headers.get('content-type') === 'application/json; charset=utf-8') {
    expect(typeof res.json.error === 'string' || Array.isArray(res.json.errors)).toBe(true);
    return;
  }
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    if (res.text.length === 0 || res.text.length > 300 || /\n|\bat .*\(.*:\d+:\d+\)/.test(res.text)) {
      throw new Error(`${what} → ${res.status} not one sentence: ${res.text.slice(0, 200)}`);
    }
  } else {
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Every success carries a status, but the version list, bulk removal's ids and the JWKS (the core's shapes).
    expect(typeof res.json.status === 'string' || Array.isArray(res.json.versions) || Array.isArray(res.json.deletedIds) || Array.isArray(res.json.keys)).toBe(
      true,
    );
  }
}

describe.each(ROUTES.filter((r) => r.id !== 'hello').map((r) => [r.id, r] as const))('fuzzing %s', (_id, route) => {
  it(`answers ${RUNS} random requests without a 5xx, every 4xx in one sentence`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(objectBody, rawBody),
        query,
        headers,
        fc.constantFrom('', '/public', '/appid-public', '/appid-public/public', '/nope', '/appid-x'),
        async (body, q, h, prefix) => {
          const search = new URLSearchParams(q).toString();
          const path = `${prefix}${route.path}${search ? `?${search}` : ''}`;
          const res = await api
            .request(route.method, path, {
              rawBody: route.method === 'GET' ? undefined : body,
              headers: { ...h, 'content-type': 'application/json' },
            })
            .catch((err: Error & { cause?: Error }) => {
              throw new Error(
                `${route.method} ${path.slice(0, 100)}: no answer (${err.cause?.message ?? err.message}); server log tail:\n${api.logs.slice(-5).join('\n')}`,
              );
            });
          checkAnswer(res, `${route.method} ${path.slice(0, 200)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('fuzzing paths and methods', () => {
  it(`answers ${RUNS} random paths without a 5xx`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.constantFrom('recipe', 'user', 'users', 'signinup', 'code', 'appid-public', 'public', '..', '%2F', ''), fc.string({ maxLength: 12 })),
          { maxLength: 6 },
        ),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        async (segments, method) => {
          const path = '/' + segments.map((s) => encodeURIComponent(s)).join('/');
          const res = await api.request(method, path, { rawBody: method === 'GET' ? undefined : '{}', apiKey: null });
          checkAnswer(res, `${method} ${path}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('strings that are not valid Unicode', () => {
  const LONE = '\ud800';
  const valid = {
    email: 'a@b.c',
    password: 'a password 12345',
    preAuthSessionId: 'p'.repeat(43),
    recipeUserId: '00000000-0000-4000-8000-000000000000',
  };
  /** A valid body per write route, and the string fields (paths into the body) to corrupt one at a time. */
  const CASES: [string, Record<string, unknown>, string[], Record<string, string>?][] = [
    ['/recipe/signinup/code', { email: valid.email, userInputCode: '123456' }, ['email', 'userInputCode']],
    ['/recipe/signinup/code', { phoneNumber: '+14155552671' }, ['phoneNumber']],
    ['/recipe/signinup/code', { deviceId: 'd'.repeat(44) }, ['deviceId']],
    ['/recipe/signinup/code/consume', { preAuthSessionId: valid.preAuthSessionId, linkCode: 'l'.repeat(43) }, ['preAuthSessionId', 'linkCode']],
    [
      '/recipe/signinup/code/consume',
      { preAuthSessionId: valid.preAuthSessionId, deviceId: 'd'.repeat(44), userInputCode: '1' },
      ['deviceId', 'userInputCode'],
    ],
    [
      '/recipe/signinup/code/check',
      { preAuthSessionId: valid.preAuthSessionId, deviceId: 'd'.repeat(44), userInputCode: '1' },
      ['preAuthSessionId', 'deviceId', 'userInputCode'],
    ],
    [
      '/recipe/user/passwordhash/import',
      { email: valid.email, passwordHash: '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq', hashingAlgorithm: 'bcrypt' },
      ['email', 'passwordHash', 'hashingAlgorithm'],
    ],
    ['/recipe/signin', { email: valid.email, password: valid.password }, ['email', 'password']],
    ['/recipe/signup', { email: valid.email, password: valid.password }, ['email', 'password']],
    ['/recipe/user', { recipeUserId: valid.recipeUserId, email: valid.email, password: valid.password }, ['recipeUserId', 'email', 'password']],
    [
      '/recipe/user',
      { userId: valid.recipeUserId, email: valid.email, phoneNumber: '+14155552671' },
      ['userId', 'email', 'phoneNumber'],
      { rid: 'passwordless' },
    ],
    [
      '/recipe/signinup',
      { thirdPartyId: 'github', thirdPartyUserId: 'u1', email: { id: valid.email, isVerified: true } },
      ['thirdPartyId', 'thirdPartyUserId', 'email.id'],
    ],
    ['/recipe/multitenancy/tenant/v2', { tenantId: 'fuzz-t' }, ['tenantId']],
    ['/recipe/multitenancy/tenant/remove', { tenantId: 'fuzz-t' }, ['tenantId']],
    ['/user/remove', { userId: valid.recipeUserId }, ['userId']],
    ['/recipe/accountlinking/user/primary', { recipeUserId: valid.recipeUserId }, ['recipeUserId']],
    ['/recipe/accountlinking/user/link', { recipeUserId: valid.recipeUserId, primaryUserId: valid.recipeUserId }, ['recipeUserId', 'primaryUserId']],
    ['/recipe/accountlinking/user/unlink', { recipeUserId: valid.recipeUserId }, ['recipeUserId']],
    ['/recipe/user/metadata', { userId: valid.recipeUserId, metadataUpdate: { a: 1 } }, ['userId']],
    ['/recipe/user/metadata/remove', { userId: valid.recipeUserId }, ['userId']],
    [
      '/recipe/userid/map',
      { superTokensUserId: valid.recipeUserId, externalUserId: 'x', externalUserIdInfo: 'i' },
      ['superTokensUserId', 'externalUserId', 'externalUserIdInfo'],
    ],
    ['/recipe/userid/map/remove', { userId: 'x', userIdType: 'ANY' }, ['userId', 'userIdType']],
    ['/recipe/user/email/verify/token', { userId: 'x', email: valid.email }, ['userId', 'email']],
    ['/recipe/user/email/verify', { method: 'token', token: 't' }, ['method', 'token']],
    ['/recipe/user/email/verify/token/remove', { userId: 'x', email: valid.email }, ['userId', 'email']],
    ['/recipe/user/email/verify/remove', { userId: 'x', email: valid.email }, ['userId', 'email']],
    ['/recipe/role', { role: 'r', permissions: ['p'] }, ['role', 'permissions.0']],
    ['/recipe/role/remove', { role: 'r' }, ['role']],
    ['/recipe/role/permissions/remove', { role: 'r', permissions: ['p'] }, ['role', 'permissions.0']],
    ['/recipe/user/role', { userId: 'u', role: 'r' }, ['userId', 'role']],
    ['/recipe/user/role/remove', { userId: 'u', role: 'r' }, ['userId', 'role']],
    ['/recipe/userid/external-user-id-info', { userId: 'x', userIdType: 'ANY', externalUserIdInfo: 'i' }, ['userId', 'userIdType', 'externalUserIdInfo']],
  ];
  /** `a.b` corrupts a nested field (`permissions.0`: an array's element); the field named in the answer is the body's own. */
  const withField = (body: Record<string, unknown>, path: string): Record<string, unknown> => {
    const [head, tail] = path.split('.');
    if (tail === undefined) return { ...body, [head]: LONE };
    const inner = body[head];
    return {
      ...body,
      [head]: Array.isArray(inner) ? inner.map((v, i) => (String(i) === tail ? `x${LONE}` : v)) : { ...(inner as object), [tail]: `x${LONE}` },
    };
  };
  const named = (field: string) => (/\.\d+$/.test(field) ? field.replace(/\.\d+$/, '') : field);
  const cases = CASES.flatMap(([path, body, fields, headers]) => fields.map((field) => [path, named(field), withField(body, field), headers ?? {}] as const));

  it.each(cases)('%s answers a lone surrogate in %s with a 400 naming the field', async (path, field, body, headers) => {
    const method = ROUTES.find((r) => r.path === path && (r.method === 'POST' || r.method === 'PUT'))?.method as string;
    const res = await api.request(method, path, { body, headers });
    expect([res.status, res.text]).toEqual([400, `Field name '${field}' is not valid Unicode: it holds a lone surrogate`]);
  });

  it("answers the issue's example, a lone surrogate as thirdPartyUserId, with a 400", async () => {
    const res = await api.request('POST', '/recipe/signinup', {
      rawBody: '{"thirdPartyId":"github","thirdPartyUserId":"\\ud800","email":{"id":"a@b.c","isVerified":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.text]).toEqual([400, "Field name 'thirdPartyUserId' is not valid Unicode: it holds a lone surrogate"]);
  });
});
