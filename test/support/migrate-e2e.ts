import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestApi } from './api';
import { TEST_API_KEY } from './api';
import type { ExpectedSet, ExpectedUser } from './migration';

/**
 * The migration command end to end (SPEC §17, §17b): the built command run in a child process
 * against a local service, and the checks of what the service then holds, user by user, against a
 * fixture's expected.json. Shared by every source's suite.
 */
export const CLI = join(__dirname, '..', '..', 'dist', 'cli', 'migrate.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  report: any;
}

/**
 * The command's waits, shortened for the tests: it follows the staged rows every 100 ms, not
 * every second, and a failed request is tried again after 25 ms, doubling, not 250 ms (what is
 * decided is the same; only the idle time between the looks is shorter).
 */
export const FAST_WAITS = { MIGRATE_POLL_MS: '100', MIGRATE_RETRY_BASE_MS: '25' } as const;

/**
 * Runs the built command in a child process; `onStart` may signal it; `env` is added to its
 * environment (PATH and `FAST_WAITS` otherwise).
 */
export function migrate(
  api: TestApi | undefined,
  dir: string,
  args: string[],
  onStart?: (child: ReturnType<typeof spawn>) => void,
  env: Readonly<Record<string, string>> = {},
): Promise<Run> {
  const report = join(dir, `report-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  const service = api ? ['--url', api.baseUrl, '--api-key', TEST_API_KEY] : [];
  const child = spawn(process.execPath, [CLI, ...args, ...service, '--report', report], {
    cwd: dir,
    env: { PATH: process.env.PATH, ...FAST_WAITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onStart?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      let parsed: any;
      try {
        parsed = JSON.parse(readFileSync(report, 'utf8'));
      } catch {
        parsed = undefined;
      }
      resolve({ code, stdout, stderr, report: parsed });
    }),
  );
}

/**
 * The command's stderr without its progress lines: off a terminal it writes one every 5 s
 * (`migrate: <phase> <done>/<total> users, …`), so a run slowed by a loaded machine has some.
 */
export const withoutProgress = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => !/^migrate: \w+ \d+\/\d+ users, /.test(line))
    .join('\n');

export const outcomes = (report: any) => Object.fromEntries(report.users.map((u: any) => [u.sourceId, [u.outcome, u.reasonCode]]));
export const expectedOutcomes = (set: ExpectedSet, variant?: string) =>
  Object.fromEntries(
    set.users.map((u) => {
      const o = variant ? (u.withOptions?.[variant] ?? u) : u;
      return [u.sourceId, [o.outcome, o.outcome === 'imported' ? undefined : o.reasonCode]];
    }),
  );

/** What the service holds for one expected user: same id, time, login methods, flags, metadata, roles; it signs in. */
export async function checkImported(api: TestApi, want: ExpectedUser): Promise<void> {
  const where = want.label;
  const got = await api.get(`/user/id?userId=${encodeURIComponent(want.sourceId)}`);
  expect([where, got.json.status]).toEqual([where, 'OK']);
  const user = got.json.user;
  expect([where, user.id, user.timeJoined]).toEqual([where, want.sourceId, want.timeJoined]);
  const view = (lm: any) => ({
    recipeId: lm.recipeId,
    ...(lm.email ? { email: lm.email } : {}),
    ...(lm.phoneNumber ? { phoneNumber: lm.phoneNumber } : {}),
    ...(lm.thirdParty ? { thirdPartyId: lm.thirdParty.id, thirdPartyUserId: lm.thirdParty.userId } : {}),
    verified: lm.verified,
  });
  const wanted = want.loginMethods.map(({ recipeId, email, phoneNumber, thirdPartyId, thirdPartyUserId, verified }) =>
    JSON.parse(JSON.stringify({ recipeId, email, phoneNumber, thirdPartyId, thirdPartyUserId, verified })),
  );
  const sort = (a: any[]) => a.map((x) => JSON.stringify(x)).sort();
  expect([where, sort(user.loginMethods.map(view))]).toEqual([where, sort(wanted)]);
  expect([where, user.isPrimaryUser]).toEqual([where, want.loginMethods.length > 1]);

  const metadata = await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(want.sourceId)}`);
  expect([where, metadata.json.metadata]).toEqual([where, want.metadata ?? {}]);
  const roles = await api.get(`/recipe/user/roles?userId=${encodeURIComponent(want.sourceId)}`);
  expect([where, roles.json.roles]).toEqual([where, want.roles ?? []]);

  for (const lm of want.loginMethods) {
    if (lm.recipeId === 'emailpassword' && want.password !== undefined) {
      const signin = await api.post('/recipe/signin', { email: lm.email, password: want.password });
      expect([where, signin.json.status, signin.json.user?.id]).toEqual([where, 'OK', want.sourceId]);
      const wrong = await api.post('/recipe/signin', { email: lm.email, password: `${want.password}!` });
      expect([where, wrong.json.status]).toEqual([where, 'WRONG_CREDENTIALS_ERROR']);
    }
    if (lm.recipeId === 'thirdparty') {
      const signin = await api.post('/recipe/signinup', {
        thirdPartyId: lm.thirdPartyId,
        thirdPartyUserId: lm.thirdPartyUserId,
        email: { id: lm.email, isVerified: lm.verified },
      });
      expect([where, signin.json.status, signin.json.createdNewUser, signin.json.user?.id]).toEqual([where, 'OK', false, want.sourceId]);
    }
    if (lm.recipeId === 'passwordless') {
      const q = lm.phoneNumber ? `phoneNumber=${encodeURIComponent(lm.phoneNumber)}` : `email=${encodeURIComponent(lm.email!)}`;
      const found = await api.get(`/users/by-accountinfo?${q}`);
      expect([where, q, found.json.users.some((u: any) => u.id === want.sourceId)]).toEqual([where, q, true]);
    }
  }
}

export async function checkNotThere(api: TestApi, want: ExpectedUser): Promise<void> {
  const got = await api.get(`/user/id?userId=${encodeURIComponent(want.sourceId)}`);
  expect([want.label, got.json.status]).toEqual([want.label, 'UNKNOWN_USER_ID_ERROR']);
}

/** A re-run's summary (SPEC §17c): the first run's, with every imported user also counted `unchanged`. */
export const rerunSummary = (summary: ExpectedSet['summary']) => ({
  ...summary,
  updated: 0,
  unchanged: summary.imported,
  conflict: 0,
  goneFromSource: 0,
  removed: 0,
});

/**
 * The same command run again (SPEC §17: safe to re-run): the same summary, every imported user
 * answered by the ledger without a request, no user added, nothing left staged.
 */
export async function expectRerunAddsNothing(api: TestApi, dir: string, args: string[], set: ExpectedSet): Promise<Run> {
  const before = await userCount(api);
  const run = await migrate(api, dir, args);
  expect([run.code, run.report.summary]).toEqual([set.exitCode, rerunSummary(set.summary)]);
  const imported = run.report.users.filter((u: any) => u.outcome === 'imported');
  expect(imported.filter((u: any) => u.fromLedger !== true)).toEqual([]);
  expect([await userCount(api), await rowCount(api)]).toEqual([before, 0]);
  return run;
}

export const rowCount = async (api: TestApi, status?: string) =>
  (await api.get(`/bulk-import/users/count${status ? `?status=${status}` : ''}`)).json.count as number;
export const userCount = async (api: TestApi) => (await api.get('/users/count')).json.count as number;

/** A forwarder between the command and the service that counts every request it passes on, by `METHOD /path` (no query). */
export interface CountingForwarder {
  /** The service as seen through the forwarder (for `migrate`). */
  readonly api: TestApi;
  /** Requests passed on so far, by `METHOD /path`. */
  readonly counts: Map<string, number>;
  /** Requests by method (`GET`, `POST`, …). */
  byMethod(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * `before`, if given, is awaited before each request is passed on (with its `METHOD /path` and
 * how many of that key have arrived, itself included): a test holds a request there until the
 * command has done something, so what it checks follows from order on the wire, not time.
 */
export async function countingForwarder(api: TestApi, before?: (key: string, nth: number) => Promise<void>): Promise<CountingForwarder> {
  const counts = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const key = `${req.method} ${new URL(req.url!, 'http://x').pathname}`;
    const nth = (counts.get(key) ?? 0) + 1;
    counts.set(key, nth);
    await before?.(key, nth);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<
      string,
      string
    >;
    const upstream = await fetch(new URL(req.url!, api.baseUrl), { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const text = await upstream.text();
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    api: { ...api, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    counts,
    byMethod: () => {
      const out: Record<string, number> = {};
      for (const [key, n] of counts) {
        const method = key.split(' ')[0];
        out[method] = (out[method] ?? 0) + n;
      }
      return out;
    },
    reset: () => counts.clear(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
