import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoContext, createDynamoStores } from '../../lib/storage/dynamo';
import type { BulkImportRow } from '../../lib/storage/model';
import { MAX_ATTEMPTS, sweepRows } from '../../lib/recipes/bulkimport/worker';
import { ensureTable } from '../../local/create-table';

/**
 * The sweeper (SPEC §15: a row left `NEW` or `PROCESSING` is picked up again within minutes), on
 * the bulk store over DynamoDB Local: a stale row is handed over again, and a row whose import
 * already ended in an internal error `MAX_ATTEMPTS` times is failed with a sentence saying so.
 */
const client = new DynamoDBClient({
  endpoint: process.env.TEST_DYNAMODB_ENDPOINT,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const tableName = `test-sweeper-${randomUUID().slice(0, 8)}`;
const { bulkImport } = createDynamoStores(createDynamoContext(tableName, client));
const STAGED_AT = 1_700_000_000_000;

function row(email: string): BulkImportRow {
  const id = randomUUID();
  return {
    user: { id, loginMethods: [{ superTokensUserId: id, recipeId: 'passwordless', tenantIds: ['public'], isVerified: false, isPrimary: false, timeJoined: STAGED_AT, email }] },
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
      expect(await bulkImport.markProcessing({ id: given.user.id, status: attempt === 1 ? 'NEW' : 'PROCESSING' }, STAGED_AT + attempt)).toBe('OK');
    }
    expect(await bulkImport.markProcessing({ id: retried.user.id, status: 'NEW' }, STAGED_AT + 1)).toBe('OK');

    const later = STAGED_AT + 60_000;
    expect(await sweepRows({ bulkImport, clock: { now: () => later } }, 30_000)).toEqual({ redriven: 1, failed: 1 });

    const failed = await bulkImport.getRow(given.user.id);
    expect([failed?.status, failed?.errorMessage]).toEqual([
      'FAILED',
      `The import of this user ended in an internal error ${MAX_ATTEMPTS} times: see the worker's log for the row id, then stage the user again.`,
    ]);
    const redriven = await bulkImport.getRow(retried.user.id);
    expect([redriven?.status, redriven?.errorMessage, redriven?.attempts]).toEqual(['PROCESSING', undefined, 1]);
    expect(await bulkImport.countRows('FAILED')).toBe(1);
  });
});
