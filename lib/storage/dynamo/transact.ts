import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  type QueryCommandInput,
  type QueryCommandOutput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { sleep } from '../../pool';
import { sideEffectsAllowed } from '../../side-effect-gate';
import { isThrottlingError, MAX_TRANSACTION_ITEMS } from '../errors';
import { keyId, type Key } from '../keys';
import * as keys from '../keys';

/** The document client and the table every adapter works on. */
export interface DynamoContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** The DynamoDB operations that change the table. */
const WRITE_COMMANDS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

/**
 * Makes every write of `client` wait for the current request's side-effect gate (see
 * `lib/side-effect-gate.ts`), and fail with its error; reads go at once. The document client
 * shares the client's middleware stack, so its commands pass here too.
 */
function awaitGateBeforeWrites(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITE_COMMANDS.has(context.commandName ?? '')) await sideEffectsAllowed();
      return next(args);
    },
    { step: 'initialize', name: 'awaitSideEffectGate', override: true },
  );
}

/** Creates the DynamoDB context. `AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB Local. */
export function createDynamoContext(tableName: string, client = new DynamoDBClient({})): DynamoContext {
  awaitGateBeforeWrites(client);
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { doc, tableName };
}

/**
 * Sends a query page after page (following `LastEvaluatedKey`), from `from` or the start, and
 * hands each page to `visit` before the next is asked; stops after the last page, or after a page
 * once `goOn()` says no.
 */
export async function forEachPage(
  ctx: DynamoContext,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  visit: (page: QueryCommandOutput) => void | Promise<void>,
  goOn: () => boolean = () => true,
  from?: Record<string, unknown>,
): Promise<void> {
  let startKey = from;
  do {
    const out = await ctx.doc.send(new QueryCommand({ ...input, TableName: ctx.tableName, ExclusiveStartKey: startKey }));
    await visit(out);
    startKey = out.LastEvaluatedKey;
  } while (startKey && goOn());
}

/** Every item a query matches, following `LastEvaluatedKey` across pages. */
export async function queryAll(ctx: DynamoContext, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  await forEachPage(ctx, input, (out) => {
    items.push(...(out.Items ?? []));
  });
  return items;
}

/** One item, read consistently (`undefined` when absent). */
export async function getConsistent(ctx: DynamoContext, key: Key): Promise<Record<string, unknown> | undefined> {
  return (await ctx.doc.send(new GetCommand({ TableName: ctx.tableName, Key: key, ConsistentRead: true }))).Item;
}

/** Every item of a user's partition, read consistently. */
export function readUserPartition(ctx: DynamoContext, userId: string): Promise<Record<string, unknown>[]> {
  return queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
    ConsistentRead: true,
  });
}

/**
 * The expression of an UpdateItem that sets each of `attributes` given a value and removes each
 * given `null`, after the SET clauses of `base` (with the names and values they use).
 */
export function setOrRemove(
  attributes: Readonly<Record<string, unknown>>,
  base: { readonly set: readonly string[]; readonly names: Readonly<Record<string, string>>; readonly values: Readonly<Record<string, unknown>> },
): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> } {
  const names = { ...base.names };
  const values = { ...base.values };
  const set = [...base.set];
  const remove: string[] = [];
  Object.entries(attributes).forEach(([attribute, value], i) => {
    names[`#a${i}`] = attribute;
    if (value === null) {
      remove.push(`#a${i}`);
    } else {
      set.push(`#a${i} = :a${i}`);
      values[`:a${i}`] = value;
    }
  });
  return {
    UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** A write's condition: the item is not there yet. */
export const ifAbsent = { ConditionExpression: 'attribute_not_exists(pk)' } as const;

/** A write's condition: the item holds this version (optimistic locking). */
export const ifVersion = (version: number) => ({
  ConditionExpression: '#version = :version',
  ExpressionAttributeNames: { '#version': 'version' },
  ExpressionAttributeValues: { ':version': version },
});

/** BatchGetItem reads at most 100 keys per call. */
const BATCH_GET_KEYS = 100;

/**
 * The items of these keys that exist, read consistently with BatchGetItem in calls of 100 keys,
 * sent together (keys DynamoDB did not get to, `UnprocessedKeys`, are asked again). Duplicate
 * keys are read once. The calls are separate reads whichever order they go in, so sending them
 * at once costs one round trip instead of one per 100 keys (the 256 lane counters of bulk import
 * are three calls).
 */
export async function batchGetAll(ctx: DynamoContext, itemKeys: readonly { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  const unique = [...new Map(itemKeys.map((k) => [keyId(k), { pk: k.pk, sk: k.sk }])).values()];
  const chunks = Array.from({ length: Math.ceil(unique.length / BATCH_GET_KEYS) }, (_, i) => unique.slice(i * BATCH_GET_KEYS, (i + 1) * BATCH_GET_KEYS));
  const read = async (chunk: typeof unique): Promise<Record<string, unknown>[]> => {
    const items: Record<string, unknown>[] = [];
    let request: BatchGetCommandInput['RequestItems'] = { [ctx.tableName]: { Keys: chunk, ConsistentRead: true } };
    while (request && Object.keys(request).length > 0) {
      const out: BatchGetCommandOutput = await ctx.doc.send(new BatchGetCommand({ RequestItems: request }));
      items.push(...(out.Responses?.[ctx.tableName] ?? []));
      request = out.UnprocessedKeys;
    }
    return items;
  };
  return (await Promise.all(chunks.map(read))).flat();
}

/** How many items a query matches (`Select: COUNT`), following `LastEvaluatedKey` across pages. */
export async function countAll(
  ctx: DynamoContext,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Select'>,
  /** Where to go on from (a page's `LastEvaluatedKey`); the start when absent. */
  from?: Record<string, unknown>,
): Promise<number> {
  let count = 0;
  await forEachPage(
    ctx,
    { ...input, Select: 'COUNT' },
    (out) => {
      count += out.Count ?? 0;
    },
    undefined,
    from,
  );
  return count;
}

/**
 * Deletes items in transactions of at most 100, in the order given (so an item listed after
 * another is never gone before it). Each transaction is all or none; the whole is not.
 */
export async function deleteInChunks(ctx: DynamoContext, itemKeys: readonly { pk: string; sk: string }[]): Promise<void> {
  const deletes = itemKeys.map((Key) => ({ item: { Delete: { TableName: ctx.tableName, Key } }, onConditionFailed: 'NONE' }));
  for (let i = 0; i < deletes.length; i += MAX_TRANSACTION_ITEMS) await writeAtomically(ctx, deletes.slice(i, i + MAX_TRANSACTION_ITEMS));
}

export type TxItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One write of a transaction and what it means when its condition fails. */
export interface TaggedWrite<T> {
  readonly item: TxItem;
  readonly onConditionFailed: T;
}

export { MAX_TRANSACTION_ITEMS };

/**
 * How often a transaction cancelled without a failed condition, by `TransactionConflict` (another
 * transaction touching the same item at that moment) or for capacity (`isThrottlingError`), is
 * tried again. Conditions are evaluated anew each time, so a retry never lets two racing writers
 * both win.
 */
const CONFLICT_RETRIES = 4;

/** A conditional write refused because its condition failed (not an outage). */
export function isConditionFailure(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConditionalCheckFailedException';
}

/**
 * Runs writes atomically: all or none. Returns `{ ok: true }`, or the tag of the first write whose
 * condition failed. A single write is sent as a plain conditional write (half the write units of a
 * transaction); several as one TransactWriteItems.
 */
export async function writeAtomically<T>(ctx: DynamoContext, writes: readonly TaggedWrite<T>[]): Promise<{ ok: true } | { ok: false; failed: T }> {
  if (writes.length === 0) return { ok: true };
  if (writes.length > MAX_TRANSACTION_ITEMS) throw new Error(`A transaction holds at most ${MAX_TRANSACTION_ITEMS} items`);
  if (writes.length === 1) {
    const { item, onConditionFailed } = writes[0];
    try {
      if (item.Put) await ctx.doc.send(new PutCommand(item.Put));
      else if (item.Delete) await ctx.doc.send(new DeleteCommand(item.Delete));
      else if (item.Update) await ctx.doc.send(new UpdateCommand(item.Update));
      else return { ok: true };
      return { ok: true };
    } catch (err) {
      if (isConditionFailure(err)) return { ok: false, failed: onConditionFailed };
      throw err;
    }
  }
  for (let attempt = 0; ; attempt++) {
    try {
      await ctx.doc.send(new TransactWriteCommand({ TransactItems: writes.map((w) => w.item) }));
      return { ok: true };
    } catch (err) {
      if (!(err instanceof Error) || err.name !== 'TransactionCanceledException') throw err;
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      const failedAt = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failedAt >= 0) return { ok: false, failed: writes[failedAt].onConditionFailed };
      const throttled = isThrottlingError(err);
      if (!(throttled || reasons.some((r) => r.Code === 'TransactionConflict')) || attempt >= CONFLICT_RETRIES) throw err;
      // A conflict clears in milliseconds; a table or index short of capacity (which the SDK
      // does not retry inside a transaction) in tenths of a second, as the SDK waits for a throttled call.
      await sleep((throttled ? 50 : 10) * 2 ** attempt * (0.5 + Math.random()));
    }
  }
}
