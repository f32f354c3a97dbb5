import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { startApi, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { BCRYPT_VECTORS } from '../fixtures/password-vectors';

/**
 * The metrics an operator watches during a migration (issue #15), read from the embedded-metric-
 * format (EMF) lines the real handler bundles write to stdout under the local server, as
 * CloudWatch would read them from the functions' logs (`service` is `auth-core-local` there): per operation `Requests` and `Latency` by
 * outcome, imports by outcome, sign-ins by hash format, rehashes, and the bulk worker's and
 * sweeper's rows. Each count is checked against the requests this file made.
 */

interface Emf {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: any;
}

/** An old provider whose keys are inline, and one whose key server is down (port 1 refuses). */
const OLD = { iss: 'https://old-idp.example', aud: 'app-1', kid: 'k1' };
const oldKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ISSUERS = [
  {
    id: 'old-idp',
    preset: 'oidc',
    issuer: OLD.iss,
    audiences: OLD.aud,
    jwks: { keys: [{ ...oldKeys.publicKey.export({ format: 'jwk' }), kid: OLD.kid, alg: 'RS256' }] },
  },
  { id: 'down-idp', preset: 'oidc', issuer: 'https://down-idp.example', audiences: OLD.aud, jwksUri: 'http://127.0.0.1:1/jwks' },
];

let api: TestApi;
beforeAll(async () => {
  api = await startApi({
    ARGON2_MEMORY_KIB: '4096',
    ARGON2_ITERATIONS: '1',
    BULK_WORKER: 'on',
    BULK_SWEEP_INTERVAL_MS: '500',
    SESSION_EXCHANGE_ISSUERS: JSON.stringify(ISSUERS),
  });
});
afterAll(() => api.stop());

function emfLines(): Emf[] {
  return api.logs.flatMap((line) => {
    try {
      const parsed = JSON.parse(line);
      return parsed && typeof parsed === 'object' && '_aws' in parsed ? [parsed as Emf] : [];
    } catch {
      return [];
    }
  });
}

/** The sum of a metric over the lines whose dimensions match `where` (and have exactly those dimension names plus `service`). */
function total(metric: string, where: Record<string, string>): number {
  return emfLines()
    .filter((l) => l[metric] !== undefined && Object.entries(where).every(([k, v]) => l[k] === v))
    .reduce((sum, l) => sum + (Array.isArray(l[metric]) ? l[metric].reduce((a: number, b: number) => a + b, 0) : l[metric]), 0);
}

const waitFor = async (what: () => boolean, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!what() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return what();
};

/**
 * A value read from the server's output, once it equals `expected` or 5 s have passed: the
 * server's stdout reaches this process through a pipe, which may deliver a request's lines a
 * moment after its HTTP answer.
 */
async function settled<T>(read: () => T, expected: T): Promise<T> {
  await waitFor(() => JSON.stringify(read()) === JSON.stringify(expected), 5000);
  return read();
}

describe('metrics (EMF lines on stdout)', () => {
  it('every line is well-formed EMF in the AuthCore namespace, with the service dimension and no secret', async () => {
    const password = 'metrics-Secret-pw-1';
    await api.post('/recipe/signup', { email: uniqueEmail('emf'), password });
    await api.get('/apiversion');
    expect(await waitFor(() => emfLines().some((l) => l.Operation === 'api-version'), 5000)).toBe(true);
    const lines = emfLines();
    for (const line of lines) {
      const [directive] = line._aws.CloudWatchMetrics;
      expect(directive.Namespace).toBe('AuthCore');
      expect(line.service).toBe('auth-core-local');
      for (const dimensions of directive.Dimensions) {
        expect(dimensions[0]).toBe('service');
        for (const name of dimensions) expect(typeof line[name]).toBe('string');
      }
      for (const m of directive.Metrics) expect(line[m.Name]).toBeDefined();
      expect(JSON.stringify(line)).not.toContain(password);
    }
  });

  it('counts every request by operation and outcome, with its latency', async () => {
    const before = (op: string, outcome: string) => total('Requests', { Operation: op, Outcome: outcome });
    const start = {
      signinOk: before('emailpassword-signin', 'OK'),
      signinWrong: before('emailpassword-signin', 'WRONG_CREDENTIALS_ERROR'),
      signin4xx: before('emailpassword-signin', '4xx'),
      version: before('api-version', 'OK'),
    };
    const email = uniqueEmail('req');
    await api.post('/recipe/signup', { email, password: 'right-password' });
    await api.post('/recipe/signin', { email, password: 'right-password' });
    await api.post('/recipe/signin', { email, password: 'right-password' });
    await api.post('/recipe/signin', { email, password: 'wrong-password' });
    await api.post('/recipe/signin', { email });
    await api.get('/apiversion');
    expect(await settled(() => before('emailpassword-signin', 'OK') - start.signinOk, 2)).toBe(2);
    expect(await settled(() => before('emailpassword-signin', 'WRONG_CREDENTIALS_ERROR') - start.signinWrong, 1)).toBe(1);
    expect(await settled(() => before('emailpassword-signin', '4xx') - start.signin4xx, 1)).toBe(1);
    expect(await settled(() => before('api-version', 'OK') - start.version, 1)).toBe(1);
    const latencies = emfLines()
      .filter((l) => l.Operation === 'emailpassword-signin')
      .map((l) => l.Latency);
    expect(latencies.every((ms) => typeof ms === 'number' && ms >= 0)).toBe(true);
  });

  it("counts old providers' tokens exchanged by issuer and outcome, never writing a token", async () => {
    const count = (issuer: string, outcome: string) => total('SessionExchanges', { Issuer: issuer, Outcome: outcome });
    const cases = [
      ['-', 'UNKNOWN_ISSUER_ERROR'],
      ['old-idp', 'UNKNOWN_USER_ERROR'],
      ['old-idp', 'INVALID_TOKEN_ERROR'],
      ['down-idp', 'KEYS_UNAVAILABLE'],
    ] as const;
    const start = cases.map(([issuer, outcome]) => count(issuer, outcome));
    const sign = (iss: string, sub: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: OLD.kid })
        .setIssuer(iss)
        .setAudience(OLD.aud)
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(oldKeys.privateKey);
    const tokens = [
      await sign('https://nobody.example', 'u1'),
      await sign(OLD.iss, `never-imported-${Date.now()}`),
      `${(await sign(OLD.iss, 'u2')).slice(0, -4)}AAAA`,
      await sign('https://down-idp.example', 'u3'),
    ];
    const answers: Awaited<ReturnType<TestApi['post']>>[] = [];
    for (const token of tokens) answers.push(await api.post('/recipe/migration/session/exchange', { token }));
    expect(answers.map((a) => [a.status, (a.json as { status?: string } | undefined)?.status ?? a.text])).toEqual([
      [200, 'UNKNOWN_ISSUER_ERROR'],
      [200, 'UNKNOWN_USER_ERROR'],
      [200, 'INVALID_TOKEN_ERROR'],
      [503, "The token issuer's keys could not be fetched, try again later"],
    ]);
    for (const [i, [issuer, outcome]] of cases.entries()) {
      expect([issuer, outcome, await settled(() => count(issuer, outcome) - start[i], 1)]).toEqual([issuer, outcome, 1]);
    }
    const output = api.logs.join('\n');
    for (const token of tokens) expect(output.includes(token.split('.')[2])).toBe(false);
  });

  it('counts imports by outcome, sign-ins by hash format, and rehashes', async () => {
    const created = total('Imports', { Password: 'hash', Outcome: 'created' });
    const existed = total('Imports', { Password: 'hash', Outcome: 'existed' });
    const bcryptOk = total('SignIns', { HashFormat: 'bcrypt', Outcome: 'OK' });
    const argonOk = total('SignIns', { HashFormat: 'argon2', Outcome: 'OK' });
    const unknown = total('SignIns', { HashFormat: 'none', Outcome: 'WRONG_CREDENTIALS_ERROR' });
    const rehashed = total('Rehashes', { HashFormat: 'bcrypt' });

    const email = uniqueEmail('imp');
    const vector = BCRYPT_VECTORS[0];
    await api.post('/recipe/user/passwordhash/import', { email, passwordHash: vector.hash });
    await api.post('/recipe/user/passwordhash/import', { email, passwordHash: vector.hash });
    expect((await api.post('/recipe/signin', { email, password: vector.password })).json.status).toBe('OK'); // bcrypt, then rehashed
    expect((await api.post('/recipe/signin', { email, password: vector.password })).json.status).toBe('OK'); // own Argon2id now
    await api.post('/recipe/signin', { email: uniqueEmail('nobody'), password: 'x' });

    expect(await settled(() => total('Imports', { Password: 'hash', Outcome: 'created' }) - created, 1)).toBe(1);
    expect(await settled(() => total('Imports', { Password: 'hash', Outcome: 'existed' }) - existed, 1)).toBe(1);
    expect(await settled(() => total('SignIns', { HashFormat: 'bcrypt', Outcome: 'OK' }) - bcryptOk, 1)).toBe(1);
    expect(await settled(() => total('Rehashes', { HashFormat: 'bcrypt' }) - rehashed, 1)).toBe(1);
    expect(await settled(() => total('SignIns', { HashFormat: 'argon2', Outcome: 'OK' }) - argonOk, 1)).toBe(1);
    expect(await settled(() => total('SignIns', { HashFormat: 'none', Outcome: 'WRONG_CREDENTIALS_ERROR' }) - unknown, 1)).toBe(1);
  });

  it('counts bulk rows imported and failed by the worker, and the rows left by status at every sweep', async () => {
    const imported = total('BulkRowsImported', {});
    const failed = total('BulkRowsFailed', {});
    const email = uniqueEmail('bulk');
    const users = [
      { externalUserId: `a-${email}`, loginMethods: [{ recipeId: 'passwordless', email }] },
      { loginMethods: [{ recipeId: 'passwordless', email: uniqueEmail('bulk2') }] },
      // The same email as the first, as another user (another external id) of the same recipe: the
      // worker fails whichever of the two comes second. (Without an external id on both, the one
      // without could come second and count as a re-run of the other: imported.)
      { externalUserId: `b-${email}`, loginMethods: [{ recipeId: 'passwordless', email }] },
    ];
    expect((await api.post('/bulk-import/users', { users })).status).toBe(200);
    expect(await waitFor(() => total('BulkRowsImported', {}) - imported + total('BulkRowsFailed', {}) - failed === 3)).toBe(true);
    expect(await settled(() => [total('BulkRowsImported', {}) - imported, total('BulkRowsFailed', {}) - failed], [2, 1])).toEqual([2, 1]);
    // The sweeper's gauge comes to show the failed row left, and nothing new or processing. (Sweeps
    // run every 500 ms here and may overlap on a loaded machine: one that read the counts before
    // the last import committed can print after it, so the gauge is awaited, not taken first.)
    const sweptAfter = emfLines().length;
    const gauges = () =>
      emfLines()
        .slice(sweptAfter)
        .filter((l) => l.BulkRowsLeftNew !== undefined);
    const done = (g: Emf) => g.BulkRowsLeftNew === 0 && g.BulkRowsLeftProcessing === 0 && g.BulkRowsLeftFailed === 1;
    expect(await waitFor(() => gauges().some(done))).toBe(true);
  });
});
