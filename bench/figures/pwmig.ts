import { randomUUID } from 'node:crypto';
import { DEFAULT_OWN_HASH_PARAMS, hashPassword } from '../../lib/password';
import { startApi } from '../../test/support/api';
import { percentile, round, table, timed } from '../stats';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookSignature, webhookSource } from '../../lib/password-migration/sources';
import type { Figure, Report } from '../figure';

export const figure: Figure = { name: 'pwmig', number: 9, needs: 'dynamodb', run: passwordMigration };

/**
 * Password migration at sign-in (SPEC §16): the first sign-in of a user imported without a hash
 * (a signed call to a webhook on loopback, the own Argon2id hash, one transaction) against a later
 * sign-in of the same user (own hash), the webhook's round trip alone and the own hash alone, all
 * interleaved per user.
 */
async function passwordMigration({ say, results }: Report): Promise<void> {
  const secret = 'bench-webhook-secret-0123456789';
  const password = 'bench-Old-password-1';
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const ok = req.headers['x-signature'] === webhookSignature(secret, body) && JSON.parse(body).password === password;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'password_match' : 'password_mismatch' }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/check`;
  const api = await startApi({ PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: url, PASSWORD_MIGRATION_WEBHOOK_SECRET: secret });
  const source = webhookSource({ url, secret });
  const N = 40;
  const first: number[] = [];
  const later: number[] = [];
  const webhook: number[] = [];
  const ownHash: number[] = [];
  const signIn = async (email: string, into: number[]) => {
    const r = await timed(() => api.post('/recipe/signin', { email, password }));
    if (r.value.json?.status !== 'OK') throw new Error(`sign-in failed: ${r.value.text}`);
    into.push(r.ms);
  };
  for (let i = 0; i < N + 3; i++) {
    const email = `pwmig-${randomUUID()}@bench.example`;
    const imported = await api.post('/recipe/user/passwordhash/import', { email, migratePasswordOnSignIn: true });
    if (imported.json?.status !== 'OK') throw new Error(`import failed: ${imported.text}`);
    // The first 3 users warm up both paths and are not counted.
    const keep = i >= 3;
    const w = await timed(() => source.check({ email, password, tenantId: 'public', userId: imported.json.user.id }));
    if (w.value.kind !== 'match') throw new Error(`webhook said ${JSON.stringify(w.value)}`);
    const h = await timed(() => hashPassword(password, DEFAULT_OWN_HASH_PARAMS));
    await signIn(email, keep ? first : []);
    await signIn(email, keep ? later : []);
    if (keep) {
      webhook.push(w.ms);
      ownHash.push(h.ms);
    }
  }
  const pending = (await api.get('/recipe/user/passwordmigration/count')).json.count;
  await api.stop();
  await new Promise((r) => hook.close(r));
  if (pending !== 0) throw new Error(`${pending} users still waiting after their sign-in`);
  const p50 = (v: number[]) => percentile(v, 50);
  const yardstick = p50(later) + p50(webhook) + p50(ownHash);
  const ratio = p50(first) / yardstick;
  results.passwordMigration = {
    users: N,
    firstSignInP50Ms: p50(first),
    firstSignInP95Ms: percentile(first, 95),
    laterSignInP50Ms: p50(later),
    webhookP50Ms: p50(webhook),
    ownHashP50Ms: p50(ownHash),
    ratio: round(ratio),
  };
  say(`\n### 9. Password migration at sign-in (${N} users imported without a hash, a webhook on loopback)\n`);
  say(
    table(
      ['first sign-in p50 / p95 ms', 'later sign-in p50 ms', 'webhook alone p50 ms', 'own Argon2id hash alone p50 ms', 'first / (later + webhook + hash)'],
      [[`${round(p50(first))} / ${round(percentile(first, 95))}`, round(p50(later)), round(p50(webhook)), round(p50(ownHash)), round(ratio)]],
    ),
  );
}
