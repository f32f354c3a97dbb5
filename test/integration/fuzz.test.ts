import fc from 'fast-check';
import { ROUTES } from '../../infra/routes';
import { startApi, type ApiResponse, type TestApi } from '../support/api';

/** Cases per endpoint; `FUZZ_RUNS=5000 npm test` digs deeper. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: '3' });
});
afterAll(() => api.stop());

const FIELDS = [
  'email', 'phoneNumber', 'deviceId', 'userInputCode', 'preAuthSessionId', 'linkCode', 'userId', 'recipeUserId',
  'passwordHash', 'hashingAlgorithm', 'password', 'thirdPartyId', 'thirdPartyUserId', 'tenantId', 'isVerified', 'id',
];

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
  fc.array(fc.jsonValue(), { maxLength: 4 }),
  fc.dictionary(fc.constantFrom('id', 'isVerified', 'x'), fc.jsonValue(), { maxKeys: 3 }),
  hugeString,
  deep,
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
const query = fc.dictionary(fc.constantFrom(...FIELDS, 'doUnionOfAccountInfo', 'limit', 'paginationToken', 'timeJoinedOrder'), fc.oneof(fc.string(), hugeString.map((s) => s.slice(0, 600))), { maxKeys: 4 });
const headers = fc.record(
  {
    rid: fc.constantFrom('passwordless', 'emailpassword', 'thirdparty', 'PASSWORDLESS', 'nonsense', ''),
    'cdi-version': fc.constantFrom('5.4', '5.0', '4.0', 'x', ''),
  },
  { requiredKeys: [] },
);

/** The invariants of every answer: never a 5xx; a 4xx is one short plain-text sentence. */
function checkAnswer(res: ApiResponse, what: string): void {
  if (res.status >= 500) throw new Error(`${what} → ${res.status} ${res.text}`);
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    if (res.text.length === 0 || res.text.length > 300 || /\n|\bat .*\(.*:\d+:\d+\)/.test(res.text)) {
      throw new Error(`${what} → ${res.status} not one sentence: ${res.text.slice(0, 200)}`);
    }
  } else {
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(typeof res.json.status === 'string' || Array.isArray(res.json.versions)).toBe(true);
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
              throw new Error(`${route.method} ${path.slice(0, 100)}: no answer (${err.cause?.message ?? err.message}); server log tail:\n${api.logs.slice(-5).join('\n')}`);
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
        fc.array(fc.oneof(fc.constantFrom('recipe', 'user', 'users', 'signinup', 'code', 'appid-public', 'public', '..', '%2F', ''), fc.string({ maxLength: 12 })), { maxLength: 6 }),
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
