import bcrypt from 'bcryptjs';
import { randomUUID } from 'node:crypto';
import { startApi, type TestApi } from '../../test/support/api';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { percentile, round, table, timed } from '../stats';
import type { Figure, Report } from '../figure';

export const figure: Figure = { name: 'linking', number: 5, needs: 'dynamodb', run: accountLinking };

/**
 * What linking costs: creating a primary user and linking a second login method (DynamoDB calls
 * and items written, counted on the wire), and what it adds to a sign-in through a linked login
 * method (one more Query, to follow its link) against a login method on its own, interleaved; and
 * a third-party sign-in of the primary user, unchanged and newly verified (the
 * write beside the read). `BENCH_DYNAMO_LATENCY_MS` adds each call's network round trip.
 */
async function accountLinking({ say, results }: Report, endpoint: string): Promise<void> {
  const latencyMs = Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0);
  const proxy = await startCountingProxy(endpoint, latencyMs);
  const api: TestApi = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, PASSWORD_REHASH_ON_SIGNIN: 'false' });
  const N = 40;
  const password = 'bench-Password-1';
  // A cheap hash (bcrypt cost 4, about 1 ms) so the storage reads, not the hash, show.
  const hash = bcrypt.hashSync(password, 4);
  const ops = [
    'create primary',
    'link',
    'sign-in, login method on its own',
    'sign-in, linked login method',
    'GET /user/id by a linked id',
    'third-party sign-in of the primary user, nothing changed',
    'third-party sign-in of the primary user, email newly verified',
  ] as const;
  const ms: Record<(typeof ops)[number], number[]> = Object.fromEntries(ops.map((o) => [o, []])) as never;
  const calls: Record<string, string> = {};
  const written: Record<string, number> = {};
  const measure = async (op: (typeof ops)[number], warm: boolean, fn: () => Promise<{ status: number; json: any }>) => {
    proxy.reset();
    const t = await timed(fn);
    if (t.value.status !== 200 || t.value.json?.status !== 'OK') throw new Error(`${op} failed: ${t.value.status} ${JSON.stringify(t.value.json)}`);
    if (warm) return;
    ms[op].push(t.ms);
    calls[op] = `${proxy.total()} (${[...proxy.counts].map(([k, v]) => `${v} ${k}`).join(', ')})`;
    written[op] = proxy.writes.transactional;
  };
  for (let i = 0; i < N + 5; i++) {
    const warm = i < 5;
    const email = `al-${i}-${randomUUID()}@bench.example`;
    const alone = `al-alone-${i}-${randomUUID()}@bench.example`;
    const identity = { thirdPartyId: 'google', thirdPartyUserId: randomUUID() };
    const tp = (await api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } })).json.user.id;
    const ep = (await api.post('/recipe/user/passwordhash/import', { email, passwordHash: hash })).json.user.id;
    await api.post('/recipe/user/passwordhash/import', { email: alone, passwordHash: hash });
    await measure('create primary', warm, () => api.post('/recipe/accountlinking/user/primary', { recipeUserId: tp }));
    await measure('link', warm, () => api.post('/recipe/accountlinking/user/link', { recipeUserId: ep, primaryUserId: tp }));
    await measure('sign-in, login method on its own', warm, () => api.post('/recipe/signin', { email: alone, password }));
    await measure('sign-in, linked login method', warm, () => api.post('/recipe/signin', { email, password }));
    await measure('GET /user/id by a linked id', warm, () => api.get(`/user/id?userId=${ep}`));
    await measure('third-party sign-in of the primary user, nothing changed', warm, () =>
      api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } }),
    );
    // The provider verifies again an email taken back meanwhile (not timed): written from the
    // guard's copy beside the read of the user.
    await api.post('/recipe/user/email/verify/remove', { userId: tp, email });
    await measure('third-party sign-in of the primary user, email newly verified', warm, () =>
      api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } }),
    );
  }
  results.accountLinking = {
    latencyMs,
    ...Object.fromEntries(
      ops.map((op) => [op, { p50Ms: percentile(ms[op], 50), p95Ms: percentile(ms[op], 95), dynamoCalls: calls[op], transactionalItemsWritten: written[op] }]),
    ),
  };
  say(
    `\n### 5. Account linking (${N} users of two login methods, sequential; DynamoDB calls and transactional items written counted on the wire; ${latencyMs} ms added to each call)\n`,
  );
  say(
    table(
      ['operation', 'p50 ms', 'p95 ms', 'DynamoDB calls', 'items written in a transaction'],
      ops.map((op) => [op, round(percentile(ms[op], 50)), round(percentile(ms[op], 95)), calls[op], written[op]]),
    ),
  );
  const ratio = percentile(ms['sign-in, linked login method'], 50) / percentile(ms['sign-in, login method on its own'], 50);
  say(
    `\nSign-in through a linked login method / on its own, p50: ${round(ratio)} (both read the email guard; on its own it holds a copy of the login method, so that is all; linked, it names the primary user, whose partition is read while the hash is verified)`,
  );
  await api.stop();
  await proxy.close();
}
