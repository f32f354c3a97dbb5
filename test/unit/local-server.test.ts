import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalServer, KEEP_ALIVE_ADVERTISED_S } from '../../local/server';
import { createLogger } from '../../lib/log/logger';

/**
 * The local server answers as API Gateway does when a function's answer is over Lambda's 6 MB
 * (Lambda refuses to return it): a 500, so an answer too large for AWS shows locally. A bundle
 * folder of its own holds a stand-in `hello` bundle whose body is as long as the query asks.
 */
const dir = mkdtempSync(join(tmpdir(), 'local-server-'));
mkdirSync(join(dir, 'hello'));
writeFileSync(
  join(dir, 'hello', 'index.js'),
  "exports.handler = async (event) => ({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(Number(event.queryStringParameters.bytes)) });\n",
);
/** The server's own log lines, parsed. */
const lines: Record<string, unknown>[] = [];
const server = createLocalServer(
  dir,
  createLogger({}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
);
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("the local server's answer limit", () => {
  // The answer as Lambda returns it: the body inside the result's JSON, with its status and headers.
  const limit = 6 * 1024 * 1024;
  const overhead = Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: '' }));

  it('passes an answer of exactly 6 MiB as Lambda returns it', async () => {
    const res = await fetch(`${base}/hello?bytes=${limit - overhead}`);
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBe(limit - overhead);
  });

  it('answers 500 with a sentence for one byte more', async () => {
    const res = await fetch(`${base}/hello?bytes=${limit - overhead + 1}`);
    expect(res.status).toBe(500);
    expect(await res.text()).toMatch(/^Internal error: the function's answer is over Lambda's 6 MB \(request id [0-9a-f-]{36}\)$/);
  });
});

describe("the local server's log of the answers it gives itself", () => {
  beforeEach(() => (lines.length = 0));

  it('logs a request no route takes (404): method, path without its query string, status', async () => {
    const res = await fetch(`${base}/recipe/not-a-route?email=someone%40example.com`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', message: 'request', route: '-', method: 'POST', path: '/recipe/not-a-route', statusCode: 404 }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('example.com');
  });

  it('logs a path of a route asked with another method (405)', async () => {
    const res = await fetch(`${base}/hello`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(lines).toEqual([expect.objectContaining({ route: '-', method: 'DELETE', path: '/hello', statusCode: 405 })]);
  });

  it("logs the 500 it answers in place of an answer over Lambda's 6 MB, naming the route", async () => {
    const overhead = Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: '' }));
    expect((await fetch(`${base}/hello?bytes=${6 * 1024 * 1024 - overhead + 1}`)).status).toBe(500);
    expect(lines).toEqual([expect.objectContaining({ route: 'hello', method: 'GET', path: '/hello', statusCode: 500 })]);
  });

  it("leaves the line of an answer a function gave to the function (the stand-in's writes none)", async () => {
    expect((await fetch(`${base}/hello?bytes=2`)).status).toBe(200);
    expect(lines).toEqual([]);
  });
});

/**
 * One HTTP/1.1 exchange on a raw socket (so no client pool decides about the connection): the
 * status line and headers of the answer, or how the connection ended instead.
 */
function exchange(socket: Socket, path: string): Promise<{ status: string; headers: [string, string][] } | { ended: string }> {
  return new Promise((resolve) => {
    let data = '';
    const done = (result: { status: string; headers: [string, string][] } | { ended: string }) => {
      socket.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const [status, ...lines] = data.slice(0, headEnd).split('\r\n');
      const headers = lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]);
      const length = Number(headers.find(([k]) => k === 'content-length')?.[1] ?? 0);
      if (data.length >= headEnd + 4 + length) done({ status, headers });
    };
    const onEnd = () => done({ ended: 'the server closed the connection' });
    const onError = (err: NodeJS.ErrnoException) => done({ ended: err.code ?? err.message });
    if (socket.readableEnded || socket.destroyed) return done({ ended: 'the server closed the connection' });
    socket.on('data', onData).on('end', onEnd).on('error', onError);
    socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\n\r\n`);
  });
}

describe("the local server's kept-alive connections", () => {
  it('stay open well past the keep-alive they advertise, so a client held up a while never reuses one as it closes', async () => {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      const first = await exchange(socket, '/hello?bytes=2');
      expect(first).toMatchObject({ status: 'HTTP/1.1 200 OK' });
      const keepAlive = 'headers' in first ? first.headers.filter(([k]) => k === 'keep-alive') : [];
      expect(keepAlive).toEqual([['keep-alive', `timeout=${KEEP_ALIVE_ADVERTISED_S}`]]);

      // Idle for two seconds past what was advertised (Node alone closes one second past it),
      // as a client reusing the connection late on a loaded machine would be.
      await new Promise((resolve) => setTimeout(resolve, (KEEP_ALIVE_ADVERTISED_S + 2) * 1000));
      expect(await exchange(socket, '/hello?bytes=3')).toMatchObject({ status: 'HTTP/1.1 200 OK' });
    } finally {
      socket.destroy();
    }
  }, 30_000);
});
