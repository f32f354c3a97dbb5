import { createServer, type Server } from 'node:http';
import { msFromEnv, RETRY_TIMING, retryTimingFrom, ServiceClient, ServiceError, type RetryTiming } from '../../lib/migrate/service';

/** Waits of a millisecond or two: the tries, not the time, are what is checked. */
const FAST: RetryTiming = { baseMs: 1, maxMs: 2, busyForMs: 2_000 };

/** A service that answers each request with the next status of `statuses` (the last one ever after). */
async function serviceAnswering(statuses: number[]): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    const status = statuses[Math.min(n++, statuses.length - 1)];
    req.resume();
    res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'text/plain' });
    res.end(status === 200 ? '{"status":"OK"}' : status === 503 ? 'Service is busy, try again later (request id x)' : 'Internal error (request id x)');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, requests: () => n, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Runs `check` against a service answering `statuses` (see `serviceAnswering`), then closes it. */
async function withService(statuses: number[], check: (service: Awaited<ReturnType<typeof serviceAnswering>>) => Promise<void>): Promise<void> {
  const service = await serviceAnswering(statuses);
  try {
    await check(service);
  } finally {
    await service.close();
  }
}

/**
 * The migration command's HTTP client: 429 and 503 are back-pressure (the stage throttle, the
 * service or its table busy) and are tried again for as long as `busyForMs`; any other 5xx, and a
 * network error, 4 times more. A staging request answered busy for a while must get through, not
 * end its 1,000 users as `service-error`.
 */
describe('ServiceClient retries', () => {
  it('keeps trying a request answered 503 or 429 well past the 5 tries other errors get, and returns its answer', async () => {
    await withService([503, 429, 503, 503, 429, 503, 503, 503, 503, 503, 503, 200], async (service) => {
      const res = await new ServiceClient(service.url, 'key', 5_000, FAST).request('POST', '/bulk-import/users', { users: [] });
      expect([res.status, res.json]).toEqual([200, { status: 'OK' }]);
      expect(service.requests()).toBe(12);
    });
  });

  it('gives a request that stays busy up after busyForMs, saying so', async () => {
    await withService([503], async (service) => {
      const started = Date.now();
      const client = new ServiceClient(service.url, 'key', 5_000, { ...FAST, busyForMs: 300 });
      await expect(client.request('GET', '/bulk-import/users/count')).rejects.toThrow(
        /^GET \/bulk-import\/users\/count was refused as busy for \d+ s \(HTTP 503\)$/,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(service.requests()).toBeGreaterThan(5);
    });
  });

  it('tries a 500 five times in all, then fails', async () => {
    await withService([500], async (service) => {
      const client = new ServiceClient(service.url, 'key', 5_000, FAST);
      const err = await client.request('POST', '/bulk-import/users', { users: [] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as Error).message).toBe('POST /bulk-import/users failed 5 times (HTTP 500)');
      expect(service.requests()).toBe(5);
    });
  });

  it('returns a 4xx at once: the caller reads it', async () => {
    await withService([400], async (service) => {
      const res = await new ServiceClient(service.url, 'key', 5_000, FAST).request('POST', '/bulk-import/users', { users: [] });
      expect(res.status).toBe(400);
      expect(service.requests()).toBe(1);
    });
  });

  it('tries a refused connection five times in all, then fails naming the cause', async () => {
    const service = await serviceAnswering([200]);
    await service.close();
    const err = await new ServiceClient(service.url, 'key', 5_000, FAST).request('GET', '/hello').catch((e: unknown) => e);
    expect((err as Error).message).toBe('GET /hello failed 5 times (ECONNREFUSED)');
  });
});

/** The command's waits from its environment (`MIGRATE_RETRY_BASE_MS`, `MIGRATE_POLL_MS`): knobs the tests turn down. */
describe('the waits from the environment', () => {
  it('takes a whole number of milliseconds within bounds, and the default for anything else', () => {
    expect(msFromEnv({}, 'MIGRATE_POLL_MS', 1000, 10, 60_000)).toBe(1000);
    expect(msFromEnv({ MIGRATE_POLL_MS: '100' }, 'MIGRATE_POLL_MS', 1000, 10, 60_000)).toBe(100);
    for (const bad of ['', 'fast', '2.5', '5', '60001', '-100'])
      expect([bad, msFromEnv({ MIGRATE_POLL_MS: bad }, 'MIGRATE_POLL_MS', 1000, 10, 60_000)]).toEqual([bad, 1000]);
  });

  it('shortens the first retry wait only: the doubling limit and the time a busy service is waited for stay', () => {
    expect(retryTimingFrom({})).toEqual(RETRY_TIMING);
    expect(retryTimingFrom({ MIGRATE_RETRY_BASE_MS: '25' })).toEqual({ ...RETRY_TIMING, baseMs: 25 });
  });
});
