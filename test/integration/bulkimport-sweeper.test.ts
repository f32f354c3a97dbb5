import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoContext, createDynamoStores } from '../../lib/storage/dynamo';
import { bulkRowHandOversOf } from '../../lib/storage/dynamo/bulk-row-stream';
import type { BulkImportRow } from '../../lib/storage/model';
import { MAX_ATTEMPTS, processRecords, sweepRows } from '../../lib/recipes/bulkimport/worker';
import { configFromEnv } from '../../lib/config/config';
import type { Logger } from '../../lib/log/logger';
import { ensureTable } from '../../local/create-table';

/**
 * The sweeper (SPEC §15: a row left `NEW` or `PROCESSING` is picked up again within minutes), on
 * the bulk store over DynamoDB Local: a stale row is handed over again, and a row whose import
 * already ended in an internal error `MAX_ATTEMPTS` times is failed with a sentence saying so. And
 * the worker on a stream record that shows its row as it was before it moved.
 */
const client = new DynamoDBClient({
  endpoint: process.env.TEST_DYNAMODB_ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const tableName = `test-sweeper-${randomUUID().slice(0, 8)}`;
const stores = createDynamoStores(createDynamoContext(tableName, client));
const { bulkImport, bulkWorker } = stores;
const STAGED_AT = 1_700_000_000_000;

function row(email: string): BulkImportRow {
  const id = randomUUID();
  return {
    user: {
      id,
      loginMethods: [
        { superTokensUserId: id, recipeId: 'passwordless', tenantIds: ['public'], isVerified: false, isPrimary: false, timeJoined: STAGED_AT, email },
      ],
    },
    status: 'NEW',
    createdAt: STAGED_AT,
    updatedAt: STAGED_AT,
  };
}

beforeAll(() => ensureTable(client, tableName, { stream: false }));
afterAll(() => client.destroy());

describe('the bulk-import sweeper', () => {
  it(`fails a row that ended in an internal error ${MAX_ATTEMPTS} times with the sentence saying so, and hands a row with fewer attempts over again`, async () => {
    const given = row('given-up@example.com');
    const retried = row('retried@example.com');
    await bulkImport.stageRows([given, retried]);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await bulkWorker.markProcessing({ id: given.user.id, status: attempt === 1 ? 'NEW' : 'PROCESSING' }, STAGED_AT + attempt)).toBe('OK');
    }
    expect(await bulkWorker.markProcessing({ id: retried.user.id, status: 'NEW' }, STAGED_AT + 1)).toBe('OK');

    const later = STAGED_AT + 60_000;
    expect(await sweepRows({ bulkWorker, clock: { now: () => later } }, 30_000)).toEqual({ redriven: 1, failed: 1 });

    const failed = await bulkWorker.getRow(given.user.id);
    expect([failed?.status, failed?.errorMessage]).toEqual([
      'FAILED',
      `The import of this user ended in an internal error ${MAX_ATTEMPTS} times: see the worker's log for the row id, then stage the user again.`,
    ]);
    const redriven = await bulkWorker.getRow(retried.user.id);
    expect([redriven?.status, redriven?.errorMessage, redriven?.attempts]).toEqual(['PROCESSING', undefined, 1]);
    expect(await bulkImport.countRows('FAILED')).toBe(1);
  });
});

describe('the bulk-import worker on a stream record older than its row', () => {
  const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent };
  const deps = { ...stores, config: configFromEnv({ ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1' }, {}), clock: { now: () => Date.now() } };
  /** The INSERT record the stream keeps handing over: the row as staged (`NEW`). */
  const insertRecord = (r: BulkImportRow) => ({
    eventName: 'INSERT',
    dynamodb: {
      Keys: { pk: { S: `BULK#${parseInt(r.user.id.slice(0, 2), 16)}` }, sk: { S: `ROW#${r.user.id}` } },
      NewImage: {
        type: { S: 'bulkRow' },
        id: { S: r.user.id },
        status: { S: 'NEW' },
        user: { S: JSON.stringify(r.user) },
        createdAt: { N: String(r.createdAt) },
        updatedAt: { N: String(r.updatedAt) },
      },
      SequenceNumber: '1',
    },
  });

  it('imports a row an earlier attempt left PROCESSING (its record still says NEW), and fails one that conflicts and one whose role is gone, each counted once', async () => {
    const moved = row('moved@example.com');
    // The same email under another external id: not the same user again (a re-run), a conflict.
    const staged = row('moved@example.com');
    const conflicting: BulkImportRow = { ...staged, user: { ...staged.user, externalUserId: 'someone-else' } };
    // A role that does not exist: failed before any write, so the failing itself meets the old status.
    const roleless = row('roleless@example.com');
    const noRole: BulkImportRow = { ...roleless, user: { ...roleless.user, userRoles: [{ role: 'never-made', tenantIds: ['public'] }] } };
    await bulkImport.stageRows([moved, conflicting, noRole]);
    for (const r of [moved, conflicting, noRole]) expect(await bulkWorker.markProcessing({ id: r.user.id, status: 'NEW' }, STAGED_AT + 1)).toBe('OK');
    const before = await bulkImport.countRowsByStatus();

    // In order, as one lane would see them if both were in it: the first imports, the second finds its email taken.
    for (const r of [moved, conflicting, noRole])
      expect(await processRecords(deps, bulkRowHandOversOf([insertRecord(r)]), silent)).toEqual({ batchItemFailures: [] });

    expect(await bulkWorker.getRow(moved.user.id)).toBeUndefined();
    expect((await stores.users.getUser(moved.user.id))?.loginMethods.map((lm) => lm.email)).toEqual(['moved@example.com']);
    const failed = await bulkWorker.getRow(conflicting.user.id);
    expect([failed?.status, failed?.errorMessage]).toEqual(['FAILED', 'E006: A user with email moved@example.com already exists in passwordless loginMethod.']);
    const gone = await bulkWorker.getRow(noRole.user.id);
    expect([gone?.status, gone?.errorMessage]).toEqual([
      'FAILED',
      'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
    ]);
    const after = await bulkImport.countRowsByStatus();
    expect([after.PROCESSING, after.FAILED]).toEqual([before.PROCESSING - 3, before.FAILED + 2]);
    // Handed over once more (the stream may), the record changes nothing.
    expect(await processRecords(deps, bulkRowHandOversOf([insertRecord(moved)]), silent)).toEqual({ batchItemFailures: [] });
    expect(await bulkImport.countRowsByStatus()).toEqual(after);
  });
});
