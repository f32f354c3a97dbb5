import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalServer } from '../../local/server';
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
