import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { freePort } from '../../local/dynamodb-local';

/**
 * The firebase-tools release the tests run the Auth emulator from. Pinned, so every machine checks
 * the migration against the same emulator behaviour (the answers in
 * /work/shared/reference/password-migration.md §3 were measured with it).
 */
export const FIREBASE_TOOLS_VERSION = '15.34.2';

/** The project every emulator runs as. A `demo-` id tells firebase-tools there is no real project behind it (no login, no network). */
export const FIREBASE_PROJECT_ID = 'demo-test';

/** Any key passes the emulator; a missing one is a 403. */
const API_KEY = 'any';
/** The emulator's admin credential for the `projects/…` calls. */
const OWNER = { authorization: 'Bearer owner' } as const;

/**
 * An npm install of firebase-tools takes 20-28 s here, and minutes on a loaded machine (one was
 * killed at 90 s by a fixed limit). It is given the time it needs while npm makes progress (uses
 * CPU, see `progressWatch`); one that does nothing for a minute is hung (a registry that never
 * answers), and none may take longer than this however busy the machine.
 */
const INSTALL_LIMIT_MS = 10 * 60_000;
/**
 * npm's own defaults retry an unreachable registry for ~70 s (2 retries, 10-60 s back-off) and wait
 * 5 min on a silent one; these make "no registry" a skip in seconds (refused) or ~1 min (silent).
 */
const NPM_NETWORK_FLAGS = ['--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000', '--fetch-timeout=30000'];
/** A lock whose owner cannot be checked (another host) is stale past this: no install lasts so long. */
const STALE_LOCK_MS = INSTALL_LIMIT_MS + 30_000;
/**
 * The emulator answers after ~10 s here, and took over 60 s on a loaded machine. It is waited for
 * while its processes are alive and make progress (CPU time or output), up to this limit; its exit
 * fails the start at once.
 */
const START_LIMIT_MS = 5 * 60_000;
/** No CPU time and no output for this long: the install or the emulator is hung, not slow. */
const STALL_MS = 60_000;
/** A suite's `beforeAll` (install, then start): past both limits, so the harness, not jest, says what ran out. */
const SETUP_LIMIT_MS = INSTALL_LIMIT_MS + START_LIMIT_MS + 60_000;
/** How long `stop` waits for a clean exit after SIGINT before it kills the process group. */
const STOP_GRACE_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a response from the emulator looks like to a test. */
export interface EmulatorResponse {
  status: number;
  body: any;
}

/** A running Firebase Auth emulator (a child `firebase emulators:start --only auth`) on its own ports. */
export interface FirebaseEmulator {
  /** What a client puts before `/v1/accounts:signInWithPassword`, e.g. `http://127.0.0.1:41234/identitytoolkit.googleapis.com`. */
  readonly baseUrl: string;
  /** `host:port` of the Auth emulator, the form `FIREBASE_AUTH_EMULATOR_HOST` takes. */
  readonly host: string;
  readonly projectId: string;
  /** The emulator process's stdout and stderr so far (the last 64 kB). */
  logs(): string;
  /** Creates an email + password user; resolves to its `localId`. */
  signUp(email: string, password: string): Promise<string>;
  /** Disables a user (`accounts:update` `disableUser: true`). */
  disable(localId: string): Promise<void>;
  /** Marks a user's email verified (`accounts:update` `emailVerified: true`), as the email link would. */
  verifyEmail(localId: string): Promise<void>;
  /**
   * The users (the first 1,000) as `firebase auth:export` writes them in JSON (its key list and names, firebase-tools
   * `accountExporter.js`), read with the Admin `accounts:batchGet` the exporter calls: the real
   * exporter wants a Google login even in front of the emulator. Like it, drops the emulator's
   * fake password hashes (only `version: 0` hashes are exported).
   */
  exportUsers(): Promise<{ users: Record<string, unknown>[] }>;
  /** Creates a user with a password and an enrolled SMS second factor; resolves to its `localId`. */
  createMfaUser(email: string, password: string): Promise<string>;
  /** Turns on email enumeration protection: wrong password and unknown email both answer `INVALID_LOGIN_CREDENTIALS`. */
  enableEmailPrivacy(): Promise<void>;
  /** Deletes every user (the project config, e.g. email privacy, stays). */
  clear(): Promise<void>;
  /** The raw REST sign-in, as the feature under test calls it. */
  signInWithPassword(email: string, password: string): Promise<EmulatorResponse>;
  /** A session cookie for an ID token (Admin `projects/<p>:createSessionCookie`), valid `validSeconds` (300 to 14 days). */
  createSessionCookie(idToken: string, validSeconds: number): Promise<string>;
  /** A fresh ID token for a refresh token (`securetoken.googleapis.com/v1/token`, what the client SDK calls every hour). */
  refreshIdToken(refreshToken: string): Promise<string>;
  /** Stops the emulator (SIGINT, then SIGKILL to its process group) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Where firebase-tools is cached: outside the repository, so `npm ci` never sees it and every checkout shares it. */
export function firebaseToolsCacheDir(): string {
  return process.env.FIREBASE_TOOLS_CACHE ?? join(homedir(), '.cache', 'auth-core-tests', `firebase-tools-${FIREBASE_TOOLS_VERSION}`);
}

let binPromise: Promise<{ bin: string } | { skip: string }> | undefined;

/**
 * The path of the cached `firebase` executable, installing firebase-tools on first use. It is not a
 * dependency of the project on purpose: it weighs 242 MB and takes 20-28 s to install, which every
 * `npm ci` would pay for a handful of tests. Resolves to `{ skip }` (one sentence why) when it
 * cannot be installed, e.g. with no registry; the caller decides whether that skips or fails.
 * Memoised per process: a jest worker installs or checks at most once.
 */
export function firebaseToolsBin(): Promise<{ bin: string } | { skip: string }> {
  binPromise ??= findOrInstall(firebaseToolsCacheDir());
  return binPromise;
}

/**
 * Two jest workers (or two checkouts) may start at once, so the install is guarded twice: a lock
 * directory (`mkdir` is atomic) makes one of them install while the others wait, and the install
 * goes into a temporary sibling folder that is renamed into place only once npm succeeded, so the
 * cache folder either holds a complete install or does not exist, even if a worker is killed
 * mid-install. The lock names its owner's pid, so a lock left by a killed worker is taken over at
 * once (or, when the pid cannot be checked, once it is older than any install may last). A failed
 * install leaves its reason in `<cache>.failed`, so the workers that waited for it skip with that
 * reason instead of each paying for another failing install.
 */
async function findOrInstall(cache: string): Promise<{ bin: string } | { skip: string }> {
  const bin = join(cache, 'node_modules', '.bin', 'firebase');
  const lock = `${cache}.lock`;
  const failed = `${cache}.failed`;
  try {
    mkdirSync(dirname(cache), { recursive: true });
  } catch (err) {
    return { skip: `the firebase-tools cache folder ${dirname(cache)} cannot be created (${(err as Error).message}).` };
  }
  let waitedSince: number | undefined;
  for (;;) {
    if (existsSync(bin)) {
      sweepDeadInstalls(cache);
      return { bin };
    }
    if (waitedSince !== undefined) {
      const reason = readIfNewer(failed, waitedSince);
      if (reason) return { skip: reason };
    }
    try {
      mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        return { skip: `the firebase-tools cache lock ${lock} cannot be created (${(err as Error).message}).` };
      }
      waitedSince ??= Date.now();
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
      continue;
    }
    try {
      writeFileSync(join(lock, 'owner'), `${hostname()} ${process.pid}`);
      if (existsSync(bin)) return { bin }; // installed by the lock's previous holder
      const result = await install(cache, bin);
      if ('skip' in result) writeFileSync(failed, result.skip);
      else rmSync(failed, { force: true });
      return result;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Whether the install holding `lock` is dead: its process is gone, or (unknown owner) it is too old. */
function lockIsStale(lock: string): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(lock).mtimeMs;
  } catch {
    return false; // just released: the next round takes it
  }
  let owner: string;
  try {
    owner = readFileSync(join(lock, 'owner'), 'utf8');
  } catch {
    return age > 5_000; // the owner dies between its mkdir and writing its name, or never wrote it
  }
  const [host, pid] = owner.split(' ');
  if (host !== hostname()) return age > STALE_LOCK_MS;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The text of `file` if it was written at or after `since`, else undefined. */
function readIfNewer(file: string, since: number): string | undefined {
  try {
    if (statSync(file).mtimeMs + 1000 < since) return undefined; // + 1 s: coarse file-system clocks
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs npm into a temporary sibling of `cache`, then renames it into place. Called under the lock. */
async function install(cache: string, bin: string): Promise<{ bin: string } | { skip: string }> {
  // Leftovers of installs that were killed: nobody else holds the lock, so none is in use.
  for (const name of readdirSync(dirname(cache))) {
    if (name.startsWith(`${basename(cache)}.tmp-`)) rmSync(join(dirname(cache), name), { recursive: true, force: true });
  }
  const tmp = `${cache}.tmp-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(tmp);
  writeFileSync(
    join(tmp, 'package.json'),
    JSON.stringify({ name: 'firebase-tools-cache', private: true, dependencies: { 'firebase-tools': FIREBASE_TOOLS_VERSION } }, null, 2),
  );
  // `npx jest` hands its own npm context down (npm_config_prefix=/usr, npm_config_local_prefix=<repo>,
  // npm_package_*). Dropped, so that npm installs into `tmp`, never into the repository or globally.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_(local_prefix|prefix|global_prefix)$)/.test(k) || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  const started = Date.now();
  const result = await new Promise<{ code: number | null; output: string; error?: Error; killedFor?: string }>((resolve) => {
    // Scripts off: firebase-tools needs none for the Auth emulator, and none run from the registry.
    const npm = spawn(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--ignore-scripts', '--no-update-notifier', '--loglevel=error', ...NPM_NETWORK_FLAGS],
      {
        cwd: tmp,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let outputBytes = 0;
    const keep = (d: Buffer) => ((outputBytes += d.length), (output = (output + d.toString()).slice(-8000)));
    npm.stdout?.on('data', keep);
    npm.stderr?.on('data', keep);
    const watch = progressWatch(npm.pid, () => outputBytes);
    let killedFor: string | undefined;
    const timer = setInterval(() => {
      killedFor = watch.verdict(INSTALL_LIMIT_MS);
      if (killedFor) npm.kill('SIGKILL');
    }, 1000);
    npm.on('error', (error) => (clearInterval(timer), resolve({ code: null, output, error })));
    npm.on('close', (code) => (clearInterval(timer), resolve({ code, output, killedFor })));
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.error || result.code !== 0 || !existsSync(join(tmp, 'node_modules', '.bin', 'firebase'))) {
    rmSync(tmp, { recursive: true, force: true });
    const why =
      result.error?.message ??
      (result.code === null
        ? `npm was killed after ${seconds} s: ${result.killedFor ?? 'a signal'}`
        : lastErrorLine(result.output) || `npm exited with ${result.code}`);
    return { skip: `firebase-tools@${FIREBASE_TOOLS_VERSION} could not be installed into ${cache} (${why}), so the Firebase Auth emulator tests cannot run.` };
  }
  // Whatever sits at `cache` has no executable (we checked under the lock): an incomplete folder from elsewhere.
  rmSync(cache, { recursive: true, force: true });
  renameSync(tmp, cache);
  process.stderr.write(`firebase-tools@${FIREBASE_TOOLS_VERSION} installed into ${cache} in ${seconds} s\n`);
  return { bin };
}

/**
 * Removes the temporary folders of installs whose worker was killed. Its npm child outlives a
 * SIGKILLed worker and finishes into the folder (242 MB) after the next worker took the lock over,
 * so the sweep under the lock alone would miss it.
 */
function sweepDeadInstalls(cache: string): void {
  const prefix = `${basename(cache)}.tmp-${hostname()}-`;
  for (const name of readdirSync(dirname(cache))) {
    const pid = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{8}$/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid === undefined) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(dirname(cache), name), { recursive: true, force: true });
    }
  }
}

/** The most telling line of npm's output (its `npm error code …` / message lines), for a one-sentence reason. */
function lastErrorLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^npm (warn|error) (A complete log|Unknown user config|This will stop)/i.test(l));
  const errors = lines.filter((l) => /^npm (error|ERR!)/.test(l) && !/^npm (error|ERR!) (code|errno|syscall)\b/.test(l));
  return (errors[0] ?? lines[lines.length - 1] ?? '').replace(/^npm (error|ERR!)\s*/, '');
}

/**
 * Starts a Firebase Auth emulator of its own: its own free ports (auth, hub, logging) and its own
 * folder for `firebase.json` and for firebase-tools' config (`XDG_CONFIG_HOME`), so two test files
 * in parallel jest workers never meet, and nothing of the developer's own Firebase login is read.
 * Resolves once the emulator answers HTTP (about 10 s); rejects with its output if it exits first,
 * or makes no progress for a minute, or does not answer within 5 minutes. Resolves to `{ skip }`
 * only when firebase-tools cannot be installed.
 */
export async function startFirebaseEmulator(): Promise<FirebaseEmulator | { skip: string }> {
  const found = await firebaseToolsBin();
  if ('skip' in found) return found;

  const dir = mkdtempSync(join(tmpdir(), 'firebase-emulator-'));
  const [port, hubPort, loggingPort] = await distinctFreePorts(3);
  writeFileSync(
    join(dir, 'firebase.json'),
    JSON.stringify({
      emulators: {
        auth: { host: '127.0.0.1', port },
        ui: { enabled: false },
        hub: { host: '127.0.0.1', port: hubPort },
        logging: { host: '127.0.0.1', port: loggingPort },
        singleProjectMode: true,
      },
    }),
  );
  mkdirSync(join(dir, 'xdg'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // A fresh, empty configstore: no login, no usage-tracking consent (so no analytics calls), no cached MOTD.
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    // No "update available" check against the registry (update-notifier honours both).
    NO_UPDATE_NOTIFIER: '1',
    // Also skips the fetch of the "message of the day" from firebase-public.firebaseio.com, which
    // offline costs a warning on every start (firebase-tools lib/fetchMOTD.js).
    CI: 'true',
    // Never tell it about real credentials or a real project: the demo project needs none.
    GOOGLE_APPLICATION_CREDENTIALS: '',
    GCLOUD_PROJECT: FIREBASE_PROJECT_ID,
  };
  delete env.FIREBASE_CLI_EXPERIMENTS;
  delete env.FIREBASE_TOKEN;
  delete env.FIREBASE_AUTH_EMULATOR_HOST;
  delete env.FIREBASE_EMULATOR_HUB;

  // Its own process group (detached), so `stop` can kill everything it started, not only the CLI.
  const child: ChildProcess = spawn(process.execPath, [found.bin, 'emulators:start', '--only', 'auth', '--project', FIREBASE_PROJECT_ID, '--non-interactive'], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let outputBytes = 0;
  const keep = (d: Buffer) => ((outputBytes += d.length), (output = (output + d.toString()).slice(-64_000)));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  const exitedPromise = new Promise<void>((r) => child.on('exit', (code, signal) => ((exited = signal ?? String(code)), r())));
  child.on('error', (err) => (exited ??= err.message));
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  // A worker that dies (or forgets `stop`) must not leave an emulator behind.
  process.on('exit', killGroup);

  const origin = `http://127.0.0.1:${port}`;
  const watch = progressWatch(child.pid, () => outputBytes);
  for (;;) {
    if (exited !== undefined) {
      process.off('exit', killGroup);
      killGroup();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the Firebase Auth emulator exited (${exited}) before it answered:\n${output.trim()}`);
    }
    try {
      const res = await fetch(`${origin}/emulator/v1/projects/${FIREBASE_PROJECT_ID}/config`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    const stuck = watch.verdict(START_LIMIT_MS);
    if (stuck) {
      process.off('exit', killGroup);
      killGroup();
      await exitedPromise;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the Firebase Auth emulator did not answer on ${origin}: ${stuck}:\n${output.trim()}`);
    }
    await sleep(200);
  }

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<EmulatorResponse> => {
    const res = await fetch(origin + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  };
  /** A set-up call that must succeed: a failure here is a broken harness, not a test result. */
  const must = async (what: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await call(method, path, body, headers);
    if (res.status !== 200) throw new Error(`Firebase Auth emulator ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const v1 = '/identitytoolkit.googleapis.com/v1';
  const admin = `${v1}/projects/${FIREBASE_PROJECT_ID}`;
  const emulatorApi = `/emulator/v1/projects/${FIREBASE_PROJECT_ID}`;

  let stopping: Promise<void> | undefined;
  return {
    baseUrl: `${origin}/identitytoolkit.googleapis.com`,
    host: `127.0.0.1:${port}`,
    projectId: FIREBASE_PROJECT_ID,
    logs: () => output,
    signUp: async (email, password) =>
      (await must('signUp', 'POST', `${v1}/accounts:signUp?key=${API_KEY}`, { email, password, returnSecureToken: true })).localId,
    disable: async (localId) => {
      await must('accounts:update', 'POST', `${admin}/accounts:update`, { localId, disableUser: true }, OWNER);
    },
    verifyEmail: async (localId) => {
      await must('accounts:update', 'POST', `${admin}/accounts:update`, { localId, emailVerified: true }, OWNER);
    },
    exportUsers: async () => {
      const body = await must('accounts:batchGet', 'GET', `${admin}/accounts:batchGet?maxResults=1000`, undefined, OWNER);
      const keys = [
        'localId',
        'email',
        'emailVerified',
        'passwordHash',
        'salt',
        'displayName',
        'photoUrl',
        'lastLoginAt',
        'createdAt',
        'phoneNumber',
        'disabled',
        'customAttributes',
        'mfaInfo',
      ];
      const providers = new Set([
        'google.com',
        'facebook.com',
        'twitter.com',
        'github.com',
        'apple.com',
        'microsoft.com',
        'gc.apple.com',
        'playgames.google.com',
        'linkedin.com',
        'yahoo.com',
      ]);
      return {
        users: (body.users ?? []).map((u: Record<string, any>) => {
          const out: Record<string, unknown> = {};
          for (const k of keys)
            if (u[k] !== undefined && !(u.version !== 0 && (k === 'passwordHash' || k === 'salt'))) out[k === 'lastLoginAt' ? 'lastSignedInAt' : k] = u[k];
          out.providerUserInfo = (u.providerUserInfo ?? [])
            .filter((p: Record<string, unknown>) => providers.has(p.providerId as string))
            .map(({ providerId, rawId, email, displayName, photoUrl }: Record<string, unknown>) => ({ providerId, rawId, email, displayName, photoUrl }));
          return out;
        }),
      };
    },
    createMfaUser: async (email, password) => {
      // batchCreate is the only call that sets a second factor without an SMS round trip. It
      // answers 200 even when it rejects a user, listing it under `error`.
      const localId = `mfa${randomBytes(10).toString('hex')}`;
      const body = await must(
        'accounts:batchCreate',
        'POST',
        `${admin}/accounts:batchCreate`,
        {
          users: [
            {
              localId,
              email,
              emailVerified: true,
              rawPassword: password,
              mfaInfo: [{ mfaEnrollmentId: `enrol${randomBytes(6).toString('hex')}`, displayName: 'phone', phoneInfo: '+15555550100' }],
            },
          ],
        },
        OWNER,
      );
      if (body?.error?.length) throw new Error(`Firebase Auth emulator accounts:batchCreate rejected the MFA user: ${JSON.stringify(body.error)}`);
      return localId;
    },
    enableEmailPrivacy: async () => {
      await must('config', 'PATCH', `${emulatorApi}/config`, { emailPrivacyConfig: { enableImprovedEmailPrivacy: true } });
    },
    clear: async () => {
      await must('clear accounts', 'DELETE', `${emulatorApi}/accounts`);
    },
    signInWithPassword: (email, password) => call('POST', `${v1}/accounts:signInWithPassword?key=${API_KEY}`, { email, password, returnSecureToken: true }),
    createSessionCookie: async (idToken, validSeconds) =>
      (await must('createSessionCookie', 'POST', `${admin}:createSessionCookie`, { idToken, validDuration: String(validSeconds) }, OWNER)).sessionCookie,
    refreshIdToken: async (refreshToken) => {
      // A form post, as Google's token endpoint takes it; it answers `id_token` (snake case).
      const res = await fetch(`${origin}/securetoken.googleapis.com/v1/token?key=${API_KEY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      });
      const body = (await res.json()) as { id_token?: string };
      if (res.status !== 200 || !body.id_token) throw new Error(`Firebase Auth emulator token refresh: ${res.status} ${JSON.stringify(body)}`);
      return body.id_token;
    },
    stop: () =>
      (stopping ??= (async () => {
        process.off('exit', killGroup);
        if (exited === undefined) {
          // SIGINT is what stops firebase-tools cleanly (Ctrl-C); then the group, in case a child lingers.
          child.kill('SIGINT');
          const timer = setTimeout(killGroup, STOP_GRACE_MS);
          await exitedPromise;
          clearTimeout(timer);
        }
        killGroup();
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
}

/**
 * Whether a child process is getting on: its CPU time (with its finished children's, from
 * /proc/<pid>/stat on Linux) or the output it wrote grew. `verdict(limit)` is undefined while it
 * may go on, else why not: nothing for `STALL_MS`, or `limit` spent in all. A loaded machine makes
 * a process slow, not idle; a process waiting on a silent network is idle.
 */
function progressWatch(pid: number | undefined, outputLength: () => number): { verdict(limitMs: number): string | undefined } {
  const started = Date.now();
  let last = { cpu: cpuTicks(pid), output: outputLength(), at: started };
  return {
    verdict: (limitMs) => {
      const now = Date.now();
      const seen = { cpu: cpuTicks(pid), output: outputLength(), at: now };
      if (seen.cpu !== last.cpu || seen.output !== last.output) last = seen;
      if (now - last.at > STALL_MS) return `no CPU time and no output for ${Math.round((now - last.at) / 1000)} s`;
      if (now - started > limitMs) return `still not done after ${Math.round((now - started) / 1000)} s`;
      return undefined;
    },
  };
}

/** utime + stime + cutime + cstime of a process in clock ticks, or undefined (not Linux, gone). */
function cpuTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command name, which is in parentheses and may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  } catch {
    return undefined;
  }
}

/** `n` different free ports: `freePort` may hand back a port it gave a moment ago. */
async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/**
 * One emulator for the tests of a file (started in `beforeAll`, stopped in `afterAll`), and `it`
 * that runs a test against it: when firebase-tools cannot be installed (no registry), the reason
 * is printed once and the tests pass without running.
 */
export function useFirebaseEmulator(what: string): (name: string, fn: (emulator: FirebaseEmulator) => Promise<void>) => void {
  let emulator: FirebaseEmulator | undefined;
  let skipped: string | undefined;
  // First run: firebase-tools installed into the cache (20-50 s here, minutes when loaded), then ~10 s to start.
  beforeAll(async () => {
    const started = await startFirebaseEmulator();
    if ('skip' in started) {
      skipped = started.skip;
      console.warn(`${what} skipped: ${skipped}`);
    } else {
      emulator = started;
    }
  }, SETUP_LIMIT_MS);
  afterAll(async () => {
    await emulator?.stop();
  });
  return (name, fn) =>
    it(name, async () => {
      if (skipped !== undefined) return;
      await fn(emulator!);
    });
}
