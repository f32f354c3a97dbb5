import { randomUUID } from 'node:crypto';
import { createDynamoContext } from '../../lib/storage/dynamo';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { startApi } from '../../test/support/api';
import { FAMILY_VECTORS } from '../../test/fixtures/hash-family-vectors';
import { FAMILIES } from '../../lib/password/families';
import { FORM_CHECKS } from '../../lib/password/checks';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { percentile, round, table, timed } from '../stats';
import type { Figure, Report } from '../figure';

export const figure: Figure = { name: 'hashes', number: 15, needs: 'dynamodb', run: hashFamilies };

/**
 * Figure 15, hashes (SPEC §7b, issue #36): per password-hash family, a typical vector and, where
 * one exists, a vector at or near the §7b bound (all made by independent tools). The bare check
 * (the form's parse, then its check from FORM_CHECKS) against `POST /recipe/signin` of a user
 * imported with that hash, interleaved with the bare check + one GetItem of the email guard (the
 * floor of a sign-in). `PASSWORD_REHASH_ON_SIGNIN=false`, so every sign-in pays the imported hash.
 * `BENCH_HASH_N` (default 20) rounds; a vector whose check takes over 200 ms gets 5.
 */
async function hashFamilies({ say, results }: Report, endpoint: string): Promise<void> {
  const N = Number(process.env.BENCH_HASH_N ?? 20);
  const proxy = await startCountingProxy(endpoint);
  const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, PASSWORD_REHASH_ON_SIGNIN: 'false' });
  const floorClient = new DynamoDBClient({ endpoint: proxy.endpoint });
  const floorCtx = createDynamoContext(api.tableName, floorClient);
  const getGuard = (email: string) =>
    floorCtx.doc.send(new GetCommand({ TableName: api.tableName, Key: keys.emailGuard('public', 'emailpassword', email), ConsistentRead: true }));
  // SHA-crypt at rounds=1000000, phpass/Drupal count characters F–Z (2^17 and up): near the bound.
  const nearBound = (hash: string) => hash.includes('rounds=1000000') || /^\$[PHS]\$[F-Z]/.test(hash);
  const vectors = FAMILY_VECTORS.filter((v) => v.family !== null).map((v) => ({
    algorithm: v.family as string,
    hash: v.hash,
    password: v.password,
    atBound: v.note?.includes('max') === true || nearBound(v.hash),
  }));
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown>[] = [];
  for (const family of FAMILIES) {
    const own = vectors.filter((v) => v.algorithm === family.value);
    // Typical: the family's own first form where it has a vector (WordPress's `$wp$`, not phpass's `$P$`).
    const typical = own.find((v) => !v.atBound && family.forms[0].parse(v.hash).ok) ?? own.find((v) => !v.atBound);
    const picks = [typical, own.find((v) => v.atBound)].filter((v): v is (typeof own)[number] => v !== undefined);
    for (const v of picks) {
      const found = family.forms.map((form) => ({ form, parsed: form.parse(v.hash) })).find((f) => f.parsed.ok);
      const check = found && FORM_CHECKS.get(found.form);
      if (!found || !found.parsed.ok || !check) throw new Error(`no form of ${family.value} parses ${v.hash.slice(0, 12)}…`);
      const bare = async () => {
        const parsed = found.form.parse(v.hash);
        if (!parsed.ok || !(await check(v.password, parsed.params))) throw new Error(`bare check of ${family.value} failed`);
      };
      const email = `hash-${randomUUID()}@bench.example`;
      const imported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: v.hash, hashingAlgorithm: family.value });
      if (imported.json?.status !== 'OK') throw new Error(`import failed: ${imported.status} ${imported.text.slice(0, 200)}`);
      const signIn = () => api.post('/recipe/signin', { email, password: v.password });
      const first = await timed(bare);
      const n = first.ms > 200 ? Math.min(N, 5) : N;
      const warm = await signIn();
      if (warm.json?.status !== 'OK') throw new Error(`sign-in failed: ${warm.status} ${warm.text.slice(0, 200)}`);
      const ms = { bare: [] as number[], signIn: [] as number[], floor: [] as number[] };
      let calls: Record<string, number> = {};
      // Interleaved, so all three see the same machine load.
      for (let i = 0; i < n; i++) {
        ms.bare.push((await timed(bare)).ms);
        proxy.reset();
        const s = await timed(signIn);
        if (s.value.json?.status !== 'OK') throw new Error(`sign-in failed: ${s.value.status}`);
        ms.signIn.push(s.ms);
        calls = Object.fromEntries(proxy.counts);
        // The floor: the guard's GetItem (which carries the hash), then the check.
        ms.floor.push(
          (
            await timed(async () => {
              await getGuard(email);
              await bare();
            })
          ).ms,
        );
      }
      const p = (x: number[]) => round(percentile(x, 50));
      const label = `${family.name}${v.atBound ? ' (at/near bound)' : ''}`;
      const shown = v.hash.length > 28 ? `${v.hash.slice(0, 28)}…` : v.hash;
      const ratio = round(percentile(ms.signIn, 50) / percentile(ms.floor, 50));
      figures.push({
        family: family.value,
        hash: shown,
        atBound: v.atBound,
        n,
        bareP50Ms: p(ms.bare),
        signInP50Ms: p(ms.signIn),
        floorP50Ms: p(ms.floor),
        ratioP50: ratio,
        dynamoCalls: calls,
      });
      rows.push([label, `\`${shown}\``, n, p(ms.bare), p(ms.signIn), p(ms.floor), ratio]);
    }
  }
  floorClient.destroy();
  await api.stop();
  await proxy.close();
  results.hashes = figures;
  say(`\n### 15. Password-hash families (SPEC §7b; per vector N rounds, sequential; PASSWORD_REHASH_ON_SIGNIN=false)\n`);
  say(table(['family', 'vector', 'N', 'bare check p50 ms', 'sign-in p50 ms (local server)', 'check + GetItem p50 ms', 'sign-in / (check + GetItem)'], rows));
}
