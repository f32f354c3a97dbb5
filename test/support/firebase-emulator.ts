import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distinctFreePorts, INSTALL_LIMIT_MS, npmToolBin, npmToolCacheDir, startTool, statusAndBody, useTool, type NpmTool } from './npm-tool';

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
 * The emulator answers after ~10 s here, and took over 60 s on a loaded machine. It is waited for
 * while its processes are alive and make progress (CPU time or output), up to this limit; its exit
 * fails the start at once.
 */
const START_LIMIT_MS = 5 * 60_000;
/** A suite's `beforeAll` (install, then start): past both limits, so the harness, not jest, says what ran out. */
const SETUP_LIMIT_MS = INSTALL_LIMIT_MS + START_LIMIT_MS + 60_000;

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

const FIREBASE_TOOLS: NpmTool = { name: 'firebase-tools', version: FIREBASE_TOOLS_VERSION, bin: 'firebase', purpose: 'the Firebase Auth emulator tests' };

/** Where firebase-tools is cached: outside the repository, so `npm ci` never sees it and every checkout shares it. */
export function firebaseToolsCacheDir(): string {
  return process.env.FIREBASE_TOOLS_CACHE ?? npmToolCacheDir(FIREBASE_TOOLS);
}

/**
 * The path of the cached `firebase` executable, installing firebase-tools on first use. It is not a
 * dependency of the project on purpose: it weighs 242 MB and takes 20-28 s to install, which every
 * `npm ci` would pay for a handful of tests. Resolves to `{ skip }` (one sentence why) when it
 * cannot be installed, e.g. with no registry (see `npmToolBin`).
 */
export function firebaseToolsBin(): Promise<{ bin: string } | { skip: string }> {
  return npmToolBin(FIREBASE_TOOLS, firebaseToolsCacheDir());
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

  const origin = `http://127.0.0.1:${port}`;
  const tool = await startTool(
    'the Firebase Auth emulator',
    [found.bin, 'emulators:start', '--only', 'auth', '--project', FIREBASE_PROJECT_ID, '--non-interactive'],
    {
      dir,
      env,
      readyUrl: `${origin}/emulator/v1/projects/${FIREBASE_PROJECT_ID}/config`,
      limitMs: START_LIMIT_MS,
    },
  );

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<EmulatorResponse> =>
    statusAndBody(
      await fetch(origin + path, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  /** A set-up call that must succeed: a failure here is a broken harness, not a test result. */
  const must = async (what: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await call(method, path, body, headers);
    if (res.status !== 200) throw new Error(`Firebase Auth emulator ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const v1 = '/identitytoolkit.googleapis.com/v1';
  const admin = `${v1}/projects/${FIREBASE_PROJECT_ID}`;
  const emulatorApi = `/emulator/v1/projects/${FIREBASE_PROJECT_ID}`;

  return {
    baseUrl: `${origin}/identitytoolkit.googleapis.com`,
    host: `127.0.0.1:${port}`,
    projectId: FIREBASE_PROJECT_ID,
    logs: tool.logs,
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
    // SIGINT is what stops firebase-tools cleanly (Ctrl-C); then the group, in case a child lingers.
    stop: () => tool.stop('SIGINT'),
  };
}

/**
 * One emulator for the tests of a file (started in `beforeAll`, stopped in `afterAll`), and `it`
 * that runs a test against it: when firebase-tools cannot be installed (no registry), the reason
 * is printed once and the tests pass without running.
 */
export function useFirebaseEmulator(what: string): (name: string, fn: (emulator: FirebaseEmulator) => Promise<void>) => void {
  // First run: firebase-tools installed into the cache (20-50 s here, minutes when loaded), then ~10 s to start.
  return useTool(what, startFirebaseEmulator, SETUP_LIMIT_MS);
}
