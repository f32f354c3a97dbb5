import { randomUUID } from 'node:crypto';
import { startApi } from '../../test/support/api';
import { percentile, round, table, timed } from '../stats';
import { BCRYPT_HASH, type Figure, type Report } from '../figure';

export const figure: Figure = { name: 'load', number: 10, needs: 'dynamodb', run: loadMix };

/**
 * Sustained mixed traffic (issue #15): `BENCH_LOAD_CONCURRENCY` (32) clients for
 * `BENCH_LOAD_SECONDS` (60) or `BENCH_LOAD_MAX_OPS` (20,000) operations, whichever ends first,
 * each taking the next of: import (a new user with a BCrypt hash), sign-in (a user signed up
 * before, own Argon2id), passwordless create code + consume, read (`GET /user/id`). Throughput,
 * p50/p99 per operation, every 5xx counted; the consistency checker runs on the table afterwards
 * (the server's stop fails the figure if it finds anything).
 */
async function loadMix({ say, results }: Report): Promise<void> {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
  const concurrency = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 32);
  const maxOps = Number(process.env.BENCH_LOAD_MAX_OPS ?? 20_000);
  const api = await startApi({});
  const password = 'load-Password-1';
  const members = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const email = `load-member-${i}-${randomUUID()}@bench.example`;
      const res = await api.post('/recipe/signup', { email, password });
      return { email, id: res.json.user.id as string };
    }),
  );
  const latencies = new Map<string, number[]>();
  const statuses = new Map<string, Map<number, number>>();
  let serverErrors = 0;
  const record = (op: string, ms: number, status: number) => {
    if (!latencies.has(op)) latencies.set(op, []);
    latencies.get(op)!.push(ms);
    const byStatus = statuses.get(op) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    statuses.set(op, byStatus);
    if (status >= 500) serverErrors++;
  };
  const call = async (op: string, request: () => Promise<{ status: number; json?: any }>) => {
    const r = await timed(request);
    record(op, r.ms, r.value.status);
    return r.value;
  };
  const kinds = ['import', 'signin', 'passwordless', 'read'] as const;
  let next = 0;
  let done = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until && done < maxOps) {
        const kind = kinds[next++ % kinds.length];
        const member = members[next % members.length];
        if (kind === 'import')
          await call('import (BCrypt hash)', () =>
            api.post('/recipe/user/passwordhash/import', { email: `load-${randomUUID()}@bench.example`, passwordHash: BCRYPT_HASH }),
          );
        if (kind === 'signin') await call('sign-in (own Argon2id)', () => api.post('/recipe/signin', { email: member.email, password }));
        if (kind === 'read') await call('read user', () => api.get(`/user/id?userId=${member.id}`));
        if (kind === 'passwordless') {
          const code = await call('passwordless create code', () => api.post('/recipe/signinup/code', { email: `load-pl-${randomUUID()}@bench.example` }));
          if (code.json?.status === 'OK')
            await call('passwordless consume', () =>
              api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.json.preAuthSessionId, linkCode: code.json.linkCode }),
            );
        }
        done++;
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  // Stops the server and runs the consistency checker on its table: throws on any problem.
  await api.stop();
  const total = [...latencies.values()].reduce((n, v) => n + v.length, 0);
  const rows = [...latencies].map(([op, v]) => [
    op,
    v.length,
    round(v.length / elapsed, 1),
    round(percentile(v, 50)),
    round(percentile(v, 99)),
    [...(statuses.get(op) ?? [])].map(([st, n]) => `${st}×${n}`).join(' '),
  ]);
  results.load = {
    seconds: elapsed,
    concurrency,
    requests: total,
    requestsPerSecond: total / elapsed,
    serverErrors,
    checkerClean: true,
    operations: [...latencies].map(([op, v]) => ({ op, count: v.length, p50Ms: percentile(v, 50), p99Ms: percentile(v, 99) })),
  };
  say(
    `\n### 10. Mixed load (${concurrency} clients, ${round(elapsed, 1)} s, ${total} requests, ${round(total / elapsed, 1)} requests/s, ${serverErrors} answers 5xx; consistency checker clean)\n`,
  );
  say(table(['operation', 'requests', 'per s', 'p50 ms', 'p99 ms', 'statuses'], rows));
  if (serverErrors > 0) throw new Error(`${serverErrors} answers were 5xx under load`);
}
