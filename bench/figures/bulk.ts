import { randomUUID } from 'node:crypto';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { createDynamoContext, createDynamoStores } from '../../lib/storage/dynamo';
import { ensureTable } from '../../local/create-table';
import {
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type PutItemCommandInput,
  type TransactWriteItemsCommandInput,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { startApi } from '../../test/support/api';
import { VENDOR_SCRYPT_PROJECT } from '../../test/fixtures/password-vectors';
import { cpuMsOf, ownCpuMs, round, runPool, table, timed } from '../stats';
import { mixedUser } from '../../test/support/bulk-users';
import { configFromEnv } from '../../lib/config/config';
import { cryptoRandom, systemClock, type Deps } from '../../lib/recipes/deps';
import { parseBulkUser } from '../../lib/recipes/bulkimport/bulk-user';
import { importBulkUser } from '../../lib/recipes/bulkimport/import-user';
import { validationContext } from '../../lib/recipes/bulkimport/stage-users';
import { LANES_IN_FLIGHT } from '../../lib/recipes/bulkimport/worker';
import type { Figure, Report } from '../figure';
import { untilNoRowLeft } from '../server';

export const figure: Figure = { name: 'bulk', number: 6, needs: 'dynamodb', run: bulkImport };

/** Users of the bulk figure (`BENCH_BULK_USERS`). */
const BULK_USERS = 5000;

/**
 * Bulk import end to end: users/s from the first `POST /bulk-import/users` until no row is `NEW`
 * or `PROCESSING` (staging, the stream, the worker bundle), against the same users imported by the
 * same engine in-process straight into DynamoDB Local at the worker's concurrency, on a DynamoDB
 * Local of its own (its streams start empty: DynamoDB Local slows every write as they fill).
 */
async function bulkImport({ say, results }: Report): Promise<void> {
  const users = Number(process.env.BENCH_BULK_USERS ?? BULK_USERS);
  // Each side on a DynamoDB Local of its own, both tables with a stream: the second side would
  // otherwise write into a DynamoDB Local the first one has already filled.
  const dynamo = await startDynamoDbLocal();
  const directDynamo = await startDynamoDbLocal();
  const rawDynamo = await startDynamoDbLocal();
  const env = { ARGON2_MEMORY_KIB: '19456' };
  // One batch of the stream at a time (16 lanes in flight, `LANES_IN_FLIGHT`): the concurrency of
  // the baseline. With the mapping's factor of 10, as `npm start` runs, up to 160 rows are in
  // flight; measured on 2 cores it imports no faster (both sides use the two cores whole).
  const api = await startApi({
    ...env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    BULK_WORKER: 'on',
    BULK_STREAM_PARALLELIZATION: '1',
    VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey,
  });
  const client = new DynamoDBClient({ endpoint: directDynamo.endpoint });
  const rawClient = new DynamoDBClient({ endpoint: rawDynamo.endpoint });
  // Every write the in-process side commits, as sent: the baseline the issue names (the same user
  // items written straight with the SDK) is these, sent again into a fresh table.
  const WRITES = { PutItemCommand, UpdateItemCommand, TransactWriteItemsCommand } as const;
  const committed: { command: keyof typeof WRITES; input: unknown }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName && context.commandName in WRITES)
        committed.push({ command: context.commandName as keyof typeof WRITES, input: structuredClone(args.input) });
      return out;
    },
    { step: 'build', name: 'benchRecordCommittedWrites' },
  );
  const resend = async (w: (typeof committed)[number]): Promise<void> => {
    if (w.command === 'PutItemCommand') await rawClient.send(new PutItemCommand(w.input as PutItemCommandInput));
    else if (w.command === 'UpdateItemCommand') await rawClient.send(new UpdateItemCommand(w.input as UpdateItemCommandInput));
    else await rawClient.send(new TransactWriteItemsCommand(w.input as TransactWriteItemsCommandInput));
  };
  try {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop' });
    await api.put('/recipe/role', { role: 'member' });
    const count = async (status: string) => (await api.get(`/bulk-import/users/count?status=${status}`)).json.count as number;

    const staged = Array.from({ length: users }, (_, i) => mixedUser('bulk', i).user);
    // CPU each side uses per user, DynamoDB Local's (java) apart from Node's: both sides keep the
    // two cores busy, so their rates stand in about the inverse ratio of their CPU per user.
    const cpu = (java: number | undefined, ...node: (number | undefined)[]) => ({
      java,
      node: node.reduce<number | undefined>((a, b) => (a === undefined || b === undefined ? undefined : a + b), 0),
    });
    const bulkCpu0 = cpu(cpuMsOf(dynamo.pid), cpuMsOf(api.pid), ownCpuMs());
    const { ms: bulkMs } = await timed(async () => {
      for (let i = 0; i < staged.length; i += 1000) {
        const res = await api.post('/bulk-import/users', { users: staged.slice(i, i + 1000) });
        if (res.status !== 200) throw new Error(`staging failed: ${res.status} ${res.text.slice(0, 200)}`);
      }
      await untilNoRowLeft(count);
    });
    const bulkCpu1 = cpu(cpuMsOf(dynamo.pid), cpuMsOf(api.pid), ownCpuMs());
    const failed = await count('FAILED');

    // The same users, imported by the same engine in-process into a table of their own.
    await ensureTable(client, 'bench-bulk-direct');
    const ctx = createDynamoContext('bench-bulk-direct', client);
    const deps: Deps = {
      ...createDynamoStores(ctx),
      config: configFromEnv(env, { signerKey: VENDOR_SCRYPT_PROJECT.signerKey }),
      clock: systemClock,
      random: cryptoRandom,
    };
    await deps.tenants.putTenant('shop', Date.now());
    await deps.roles.createRole({ role: 'member', roleUid: randomUUID() });
    const direct = Array.from({ length: users }, (_, i) => mixedUser('direct', i).user);
    const vctx = await validationContext(deps, direct);
    const parsed = direct.map((u) => {
      const r = parseBulkUser(u, vctx);
      if (!r.ok) throw new Error(r.errors.join(' '));
      return r.user;
    });
    const setup = committed.splice(0);
    const directCpu0 = cpu(cpuMsOf(directDynamo.pid), ownCpuMs());
    const { ms: directMs } = await timed(() =>
      runPool(parsed.length, LANES_IN_FLIGHT, async (i) => {
        const outcome = await importBulkUser(deps, parsed[i]);
        if (outcome.status !== 'OK') throw new Error(`direct import failed: ${JSON.stringify(outcome)}`);
      }),
    );
    const directCpu1 = cpu(cpuMsOf(directDynamo.pid), ownCpuMs());
    // The same user items, written straight: each user's committed transaction sent again with
    // the SDK, at the same concurrency, into a table of the same shape on a fresh DynamoDB Local.
    const userWrites = committed.splice(0);
    if (userWrites.length !== users || userWrites.some((w) => w.command !== 'TransactWriteItemsCommand')) {
      throw new Error(`recorded ${userWrites.length} writes for ${users} users, not one transaction each`);
    }
    await ensureTable(rawClient, 'bench-bulk-direct');
    for (const w of setup) await resend(w);
    const rawCpu0 = cpu(cpuMsOf(rawDynamo.pid), ownCpuMs());
    const { ms: rawMs } = await timed(() => runPool(userWrites.length, LANES_IN_FLIGHT, (i) => resend(userWrites[i])));
    const rawCpu1 = cpu(cpuMsOf(rawDynamo.pid), ownCpuMs());
    const perUser = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) => ({
      javaMs: a.java === undefined || b.java === undefined ? undefined : round((b.java - a.java) / users, 1),
      nodeMs: a.node === undefined || b.node === undefined ? undefined : round((b.node - a.node) / users, 1),
    });
    const cpuPerUser = { bulk: perUser(bulkCpu0, bulkCpu1), direct: perUser(directCpu0, directCpu1), raw: perUser(rawCpu0, rawCpu1) };
    const cpuCells = (c: { javaMs?: number; nodeMs?: number }) => [c.javaMs ?? '', c.nodeMs ?? ''];

    const bulkRate = users / (bulkMs / 1000);
    const directRate = users / (directMs / 1000);
    const rawRate = users / (rawMs / 1000);
    results.bulkImport = {
      users,
      concurrency: LANES_IN_FLIGHT,
      bulkUsersPerSecond: round(bulkRate, 0),
      rawItemsUsersPerSecond: round(rawRate, 0),
      ratio: round(bulkRate / rawRate),
      directUsersPerSecond: round(directRate, 0),
      ratioToEngine: round(bulkRate / directRate),
      failedRows: failed,
      cpuMsPerUser: cpuPerUser,
    };
    say(`\n### 6. Bulk import (${users} mixed users: every recipe and hash format, linked, external ids, metadata, roles)\n`);
    say(
      table(
        ['path', 'users/s', 'seconds', 'CPU ms per user: DynamoDB Local', 'CPU ms per user: Node'],
        [
          ['staged in requests of 1,000, imported by the worker through the stream', round(bulkRate, 0), round(bulkMs / 1000, 1), ...cpuCells(cpuPerUser.bulk)],
          [
            `the same user items written straight with the SDK (each user's transaction), ${LANES_IN_FLIGHT} at a time`,
            round(rawRate, 0),
            round(rawMs / 1000, 1),
            ...cpuCells(cpuPerUser.raw),
          ],
          ['ratio (target ≥ 0.7)', round(bulkRate / rawRate), '', '', ''],
          [
            `same users, same engine in-process (reads, Argon2id of plain-text passwords, the transaction), ${LANES_IN_FLIGHT} at a time`,
            round(directRate, 0),
            round(directMs / 1000, 1),
            ...cpuCells(cpuPerUser.direct),
          ],
          ['ratio to the engine in-process', round(bulkRate / directRate), '', '', ''],
        ],
      ),
    );
  } finally {
    client.destroy();
    rawClient.destroy();
    await rawDynamo.stop();
    await api.stop();
    await dynamo.stop();
    await directDynamo.stop();
  }
}
