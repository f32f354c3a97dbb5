import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalServer } from '../../local/server';

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
const server = createLocalServer(dir);
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
