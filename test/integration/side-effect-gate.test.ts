import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/create-table';
import { testDynamoClient } from '../support/table';
import { runGated, sideEffectsAllowed } from '../../lib/side-effect-gate';
import { createDynamoContext, type DynamoContext } from '../../lib/storage/dynamo/transact';

/**
 * The side-effect gate on a real DynamoDB Local: a request's writes wait for its gate and fail
 * with its error, its reads do not wait; outside a gated request nothing waits.
 */
const tableName = `test-gate-${randomBytes(4).toString('hex')}`;
let client: DynamoDBClient;
let ctx: DynamoContext;
beforeAll(async () => {
  client = testDynamoClient();
  await ensureTable(client, tableName, { stream: false });
  ctx = createDynamoContext(tableName, client);
  // A second context on the same client adds the middleware once (by name), not twice.
  createDynamoContext(tableName, client);
});
afterAll(() => client.destroy());

const item = (pk: string) => ({ pk, sk: 'X', n: 1 });
const read = async (pk: string) => (await ctx.doc.send(new GetCommand({ TableName: tableName, Key: { pk, sk: 'X' }, ConsistentRead: true }))).Item;

describe('the side-effect gate', () => {
  it("refuses every kind of write of a request whose gate fails, with the gate's error, and sends none of them", async () => {
    await ctx.doc.send(new PutCommand({ TableName: tableName, Item: item('kept') }));
    const refused = new Error('no such tenant');
    const gate = Promise.reject(refused);
    const T = tableName;
    const writes: (() => Promise<unknown>)[] = [
      () => ctx.doc.send(new PutCommand({ TableName: T, Item: item('put') })),
      () =>
        ctx.doc.send(new UpdateCommand({ TableName: T, Key: { pk: 'kept', sk: 'X' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 2 } })),
      () => ctx.doc.send(new DeleteCommand({ TableName: T, Key: { pk: 'kept', sk: 'X' } })),
      () => ctx.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: T, Item: item('tx') } }] })),
      () => ctx.doc.send(new BatchWriteCommand({ RequestItems: { [T]: [{ PutRequest: { Item: item('batch') } }] } })),
    ];
    for (const write of writes) await expect(runGated(gate, write)).rejects.toBe(refused);
    // A read in the same request goes through.
    expect(await runGated(gate, () => read('kept'))).toEqual(item('kept'));
    await expect(runGated(gate, sideEffectsAllowed)).rejects.toBe(refused);
    expect([await read('put'), await read('tx'), await read('batch'), await read('kept')]).toEqual([undefined, undefined, undefined, item('kept')]);
  });

  it('lets a write go once its gate passes, and not before; reads and ungated writes do not wait', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let written = false;
    const write = runGated(gate, async () => {
      expect(await read('late')).toBeUndefined();
      await ctx.doc.send(new PutCommand({ TableName: tableName, Item: item('late') }));
      written = true;
    });
    await ctx.doc.send(new PutCommand({ TableName: tableName, Item: item('ungated') }));
    await new Promise((r) => setTimeout(r, 200));
    expect([written, await read('late'), await read('ungated')]).toEqual([false, undefined, item('ungated')]);
    open();
    await write;
    expect([written, await read('late')]).toEqual([true, item('late')]);
  });
});
