import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_AWS_ENV } from '../../local/dynamodb-local';
import { checkConsistency, type ConsistencyProblem } from '../../lib/storage/dynamo/consistency';
import { createDynamoContext } from '../../lib/storage/dynamo';

export const TEST_API_KEY = 'test-key-0123456789-abcdefghij';

/** A response as the tests read it. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON when the body is JSON, else undefined. */
  json: any;
}

/** A running local server (a child process running `dist/local/serve.js`) on its own table. */
export interface TestApi {
  readonly baseUrl: string;
  readonly tableName: string;
  /** The server process's id (the bench reads its CPU time). */
  readonly pid: number | undefined;
  /** Every line the server process wrote to stdout or stderr so far. */
  readonly logs: string[];
  /**
   * The first log line that matches, waiting up to `timeoutMs` for it: the server writes its log
   * through a pipe, so a line can arrive a moment after the response it belongs to.
   */
  logLine(matches: (line: string) => boolean, timeoutMs?: number): Promise<string | undefined>;
  request(
    method: string,
    path: string,
    opts?: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string>; apiKey?: string | null },
  ): Promise<ApiResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  put(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  get(path: string, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Stops the server, then checks the table's consistency: a broken invariant fails the suite. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would: no check, no clean-up. */
  kill(): Promise<void>;
}

/** Runs the consistency checker on a table of the suite's DynamoDB Local. */
export async function tableProblems(tableName: string, endpoint = process.env.TEST_DYNAMODB_ENDPOINT): Promise<ConsistencyProblem[]> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    return await checkConsistency(createDynamoContext(tableName, client));
  } finally {
    client.destroy();
  }
}

/**
 * Settings of a password-migration source that is configured but never called, so users can be
 * imported waiting for password migration (SPEC §16) in suites that never sign them in.
 */
export const UNCALLED_MIGRATION_SOURCE = {
  PASSWORD_MIGRATION_SOURCE: 'webhook',
  PASSWORD_MIGRATION_WEBHOOK_URL: 'http://127.0.0.1:9/never',
  PASSWORD_MIGRATION_WEBHOOK_SECRET: 'unused-secret',
} as const;

/**
 * Starts the real local server in a child process, against the suite's DynamoDB Local, with a
 * fresh table. `env` adds or overrides configuration (e.g. a short code lifetime).
 */
export async function startApi(env: Record<string, string> = {}): Promise<TestApi> {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with jest (global setup)');
  const tableName = env.TABLE_NAME ?? `test-${randomBytes(6).toString('hex')}`;
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'local', 'serve.js')], {
    env: {
      PATH: process.env.PATH,
      ...LOCAL_AWS_ENV,
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      TABLE_NAME: tableName,
      PORT: '0',
      API_KEYS: TEST_API_KEY,
      // No stream and no bulk worker unless a suite asks (see local/serve.ts).
      BULK_WORKER: 'off',
      ...env,
    },
    // The IPC channel is never written to: the server ends when it closes, so a test process that
    // dies without stopping it (a jest worker killed at a timeout) leaves no server behind.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const logs: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const onData = (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        const m = /^listening on http:\/\/localhost:(\d+)/.exec(line);
        if (m) resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${logs.join('\n')}`)));
  });
  const baseUrl = `http://127.0.0.1:${port}`;

  const request: TestApi['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.apiKey !== null) headers['api-key'] ??= opts.apiKey ?? TEST_API_KEY;
    let body: string | Buffer | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json; charset=utf-8';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let json: unknown;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json };
  };
  return {
    baseUrl,
    tableName,
    pid: child.pid,
    logs,
    logLine: async (matches, timeoutMs = 5000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const line = logs.find(matches);
        if (line !== undefined || Date.now() >= until) return line;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    request,
    post: (path, body, headers) => request('POST', path, { body, headers }),
    put: (path, body, headers) => request('PUT', path, { body, headers }),
    get: (path, headers) => request('GET', path, { headers }),
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      const problems = await tableProblems(tableName, env.AWS_ENDPOINT_URL_DYNAMODB ?? endpoint);
      if (problems.length > 0) {
        throw new Error(`table ${tableName} is inconsistent:\n${problems.map((p) => `${p.kind} ${p.key}: ${p.detail}`).join('\n')}`);
      }
    },
  };
}
