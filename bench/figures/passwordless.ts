import { randomUUID } from 'node:crypto';
import { startApi, type TestApi } from '../../test/support/api';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { percentile, round, table, timed } from '../stats';
import type { Figure, Report } from '../figure';

export const figure: Figure = { name: 'passwordless', number: 3, needs: 'dynamodb', run: passwordlessRoundTrip };

/**
 * Create code and consume, sequential, for the four kinds of consume (interleaved per user): a new
 * user, an existing user on its own, a primary user's login method (found as its item), and a
 * login method linked to it found through an entry (its phone beside its email). DynamoDB calls
 * counted on the wire; `BENCH_DYNAMO_LATENCY_MS` adds each call's network round trip.
 */
async function passwordlessRoundTrip({ say, results }: Report, endpoint: string): Promise<void> {
  const proxy = await startCountingProxy(endpoint, Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0));
  const api: TestApi = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
  const N = 60;
  const ops = [
    'create code (new email)',
    'consume link (new user)',
    'consume link (existing user on its own)',
    "consume link (a primary user's login method)",
    'consume link (linked, through its phone entry)',
  ] as const;
  const ms: Record<(typeof ops)[number], number[]> = Object.fromEntries(ops.map((o) => [o, []])) as never;
  const calls: Partial<Record<(typeof ops)[number], Record<string, number>>> = {};
  const ok = (res: { status: number; json: any; text: string }, what: string) => {
    if (res.status !== 200 || res.json?.status !== 'OK') throw new Error(`${what} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const measure = async (op: (typeof ops)[number], warm: boolean, fn: () => Promise<{ status: number; json: any; text: string }>) => {
    proxy.reset();
    const t = await timed(fn);
    const json = ok(t.value, op);
    if (!warm) {
      ms[op].push(t.ms);
      calls[op] = Object.fromEntries(proxy.counts);
    }
    return json;
  };
  const consume = (code: { preAuthSessionId: string; linkCode: string }) =>
    api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
  const code = async (identity: Record<string, string>) => ok(await api.post('/recipe/signinup/code', identity), 'create code');
  for (let i = 0; i < N + 5; i++) {
    const warm = i < 5;
    const email = `pl-${i}-${randomUUID()}@bench.example`;
    const c = await measure('create code (new email)', warm, () => api.post('/recipe/signinup/code', { email }));
    const owner = (await measure('consume link (new user)', warm, () => consume(c))).user.id as string;
    const again = await code({ email });
    await measure('consume link (existing user on its own)', warm, () => consume(again));
    ok(await api.post('/recipe/accountlinking/user/primary', { recipeUserId: owner }), 'create primary');
    const asPrimary = await code({ email });
    await measure("consume link (a primary user's login method)", warm, () => consume(asPrimary));
    const linkedEmail = `pl-linked-${i}-${randomUUID()}@bench.example`;
    const phoneNumber = `+1415555${String(1000 + i).padStart(4, '0')}`;
    const linked = ok(await consume(await code({ email: linkedEmail })), 'consume').user.id as string;
    ok(await api.put('/recipe/user', { userId: linked, email: linkedEmail, phoneNumber }, { rid: 'passwordless' }), 'add phone');
    ok(await api.post('/recipe/accountlinking/user/link', { recipeUserId: linked, primaryUserId: owner }), 'link');
    const byPhone = await code({ phoneNumber });
    await measure('consume link (linked, through its phone entry)', warm, () => consume(byPhone));
  }
  const describe = (c: Record<string, number> = {}) =>
    `${Object.values(c).reduce((a, b) => a + b, 0)} (${Object.entries(c)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')})`;
  results.passwordless = {
    latencyMs: Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0),
    ...Object.fromEntries(ops.map((op) => [op, { p50Ms: percentile(ms[op], 50), p95Ms: percentile(ms[op], 95), dynamoCalls: calls[op] }])),
  };
  say(`\n### 3. Passwordless round trip (${N} users, sequential, the four kinds of consume interleaved; DynamoDB calls counted on the wire)\n`);
  say(
    table(
      ['operation', 'p50 ms', 'p95 ms', 'DynamoDB calls'],
      ops.map((op) => [op, round(percentile(ms[op], 50)), round(percentile(ms[op], 95)), describe(calls[op])]),
    ),
  );
  await api.stop();
  await proxy.close();
}
