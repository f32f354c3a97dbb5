import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, LOCAL_AWS_ENV } from '../../local/dynamodb-local';
import { TEST_API_KEY } from '../support/api';

/**
 * `npm start` (its second half, `local/start.ts`, after the build) refuses a bad setting before it
 * serves anything (SPEC §16b): it exits non-zero with the setting's one sentence on stderr and never
 * prints "listening". Against the suite's DynamoDB Local, so that a good configuration does start.
 */
const ROOT = join(__dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type Outcome = { listening: true } | { listening: false; code: number | null; stdout: string; stderr: string };

/** Runs `local/start.ts` with `env` on a free port: how it exits, or that it listened (then it is stopped). */
async function start(env: Record<string, string>): Promise<Outcome> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['local/start.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      ...LOCAL_AWS_ENV,
      AWS_ENDPOINT_URL_DYNAMODB: process.env.TEST_DYNAMODB_ENDPOINT,
      TABLE_NAME: `start-${randomBytes(6).toString('hex')}`,
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      API_KEYS: TEST_API_KEY,
      BULK_WORKER: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let listening = false;
  return new Promise<Outcome>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!listening && stdout.includes('listening on ')) {
        listening = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve(listening ? { listening } : { listening, code, stdout, stderr }));
  });
}

const cognito = { PASSWORD_MIGRATION_SOURCE: 'cognito', COGNITO_USER_POOL_ID: 'eu-west-1_AbC123xyz', COGNITO_CLIENT_ID: 'client123' };

describe('npm start with a bad setting', () => {
  it.each([
    [{ ...cognito, COGNITO_USER_POOL_ID: 'eu-west-1' }, 'COGNITO_USER_POOL_ID must be <region>_<id>'],
    [{ ...cognito, COGNITO_CLIENT_ID: '' }, 'PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_CLIENT_ID'],
    [{ PASSWORD_MIGRATION_SOURCE: 'firebase' }, 'PASSWORD_MIGRATION_SOURCE=firebase needs FIREBASE_WEB_API_KEY'],
    [{ ...cognito, PASSWORD_MIGRATION_TIMEOUT_MS: '60000' }, 'PASSWORD_MIGRATION_TIMEOUT_MS must be an integer from 100 to 10000'],
    [{ SHA_CRYPT_MAX_ROUNDS: '999' }, 'SHA_CRYPT_MAX_ROUNDS must be an integer from 1000 to 999999999'],
    [{ ACCESS_TOKEN_VALIDITY: 'an hour' }, 'ACCESS_TOKEN_VALIDITY must be an integer from 1 to 86400000'],
  ])('%j: exits 1 with the one sentence, never listening', async (env, sentence) => {
    expect(await start(env)).toEqual({ listening: false, code: 1, stdout: '', stderr: `${sentence}\n` });
  });

  it('starts with the same settings made good', async () => {
    expect(await start(cognito)).toEqual({ listening: true });
  });

  it("starts with cognito-local's pool id beside its endpoint, no COGNITO_REGION (default region `local`)", async () => {
    const local = { ...cognito, COGNITO_USER_POOL_ID: 'local_4fZ7w0Qa', COGNITO_ENDPOINT_URL: 'http://127.0.0.1:9229/' };
    expect(await start(local)).toEqual({ listening: true });
    const { COGNITO_ENDPOINT_URL: _, ...noEmulator } = local;
    expect(await start(noEmulator)).toMatchObject({
      code: 1,
      stderr: "COGNITO_REGION (default: COGNITO_USER_POOL_ID's prefix) must be the pool's AWS region\n",
    });
  });
});

/**
 * In Lambda a function cannot refuse to start: its first request logs the bad setting, once per
 * container, and every request answers 500 (SPEC §16b). The `hello` bundle as Lambda runs it, in a
 * process of its own (one container), asked three times.
 */
describe('a function in Lambda with a bad setting', () => {
  it('answers 500 to every request and logs the sentence once', async () => {
    const invoke = `
      const { handler } = require(${JSON.stringify(join(ROOT, 'dist', 'functions', 'hello', 'index.js'))});
      const event = { version: '2.0', routeKey: 'GET /hello', rawPath: '/hello', rawQueryString: '', headers: {}, isBase64Encoded: false,
        requestContext: { requestId: 'r', http: { method: 'GET', path: '/hello' } } };
      (async () => {
        const codes = [];
        for (let i = 0; i < 3; i++) codes.push((await handler(event, { awsRequestId: 'req-' + i })).statusCode);
        process.stdout.write('codes ' + JSON.stringify(codes) + '\\n');
      })();
    `;
    const child = spawn(process.execPath, ['-e', invoke], {
      env: {
        PATH: process.env.PATH,
        ...LOCAL_AWS_ENV,
        AWS_LAMBDA_FUNCTION_NAME: 'auth-core-test-hello',
        API_KEYS: TEST_API_KEY,
        ...cognito,
        COGNITO_CLIENT_ID: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines.filter((l) => l.startsWith('codes '))).toEqual(['codes [500,500,500]']);
    const logged = lines.filter((l) => l.includes('configuration error'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0])).toMatchObject({ level: 'error', message: 'configuration error: PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_CLIENT_ID' });
  });
});
