import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { passesWorkerFilter, WORKER_BATCH_SIZE, WORKER_PARALLELIZATION } from '../infra/worker-stream';
import { sleep } from '../lib/pool';

/** The worker bundle's handler: Lambda's DynamoDB stream event in, batch item failures out. */
export type StreamHandler = (event: { Records: unknown[] }) => Promise<{ batchItemFailures?: { itemIdentifier: string }[] } | void>;

export interface StreamPollerOptions {
  readonly tableName: string;
  readonly handler: StreamHandler;
  /** Records per invocation (the event source mapping's batch size). */
  readonly batchSize?: number;
  /** Batches of one shard handled at once (the mapping's parallelization factor). */
  readonly parallelization?: number;
  /** Pause between polls of a shard that had nothing new. */
  readonly idleMs?: number;
  /** Times a failing record is handed over again before it is skipped (the mapping's retry limit, then its DLQ). */
  readonly maxRetries?: number;
  readonly log?: (message: string) => void;
}

/** The earliest of some stream sequence numbers (decimal strings of any length). */
function earliest(sequenceNumbers: readonly (string | undefined)[]): string | undefined {
  return sequenceNumbers.filter((s): s is string => s !== undefined).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0))[0];
}

/** FNV-1a: spreads partition keys over the parallel batches. */
function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * The batches Lambda makes of a shard's records with a parallelization factor: the records are
 * split by partition key into up to `parallelization` groups (all the records of one key in one
 * group, in stream order), and each group is cut into batches of at most `batchSize`. The groups
 * are handled at once, each group's batches one after another, so one lane's rows stay in order.
 */
export function parallelBatches<T>(records: readonly T[], keyOf: (record: T) => string, parallelization: number, batchSize: number): T[][][] {
  const groups = new Map<number, T[]>();
  for (const record of records) {
    const group = keyHash(keyOf(record)) % parallelization;
    const members = groups.get(group);
    if (members) members.push(record);
    else groups.set(group, [record]);
  }
  return [...groups.values()].map((members) =>
    Array.from({ length: Math.ceil(members.length / batchSize) }, (_, i) => members.slice(i * batchSize, (i + 1) * batchSize)),
  );
}

/** A record of the Streams API in the shape Lambda hands it to a function. */
function asLambdaRecord(record: StreamRecord, streamArn: string): Record<string, unknown> {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...record,
    eventSource: 'aws:dynamodb',
    eventSourceARN: streamArn,
    dynamodb: { ...record.dynamodb, ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}) },
  };
}

/**
 * The local stand-in for Lambda's event source mapping on the table's stream: polls DynamoDB
 * Local's Streams API, keeps the records the mapping's filter keeps (`passesWorkerFilter`, on the
 * very patterns the stack gives the mapping), and invokes the worker bundle with Lambda's event
 * shape, up to `parallelization` batches of a shard at once with one partition key's records in
 * order (`parallelBatches`), as the mapping's parallelization factor does. A batch item failure makes it hand the stream over again from the
 * earliest failed record (as Lambda does; records after it that were handled are handed over
 * again, and the worker skips their rows), up to `maxRetries` times, then skip it (in AWS it would
 * go to the dead-letter queue; the sweeper picks its row up again).
 */
export function startStreamPoller(opts: StreamPollerOptions): { stop(): Promise<void> } {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const dynamo = new DynamoDBClient({});
  const streams = new DynamoDBStreamsClient(endpoint ? { endpoint } : {});
  const batchSize = opts.batchSize ?? WORKER_BATCH_SIZE;
  const parallelization = opts.parallelization ?? WORKER_PARALLELIZATION;
  const idleMs = opts.idleMs ?? 250;
  const maxRetries = opts.maxRetries ?? 3;
  const log = opts.log ?? (() => undefined);
  let stopped = false;

  const pollShard = async (streamArn: string, shardId: string): Promise<void> => {
    const iteratorAt = async (type: 'TRIM_HORIZON' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER', seq?: string) =>
      (
        await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, ...(seq ? { SequenceNumber: seq } : {}) }),
        )
      ).ShardIterator;
    /** Where to go on from when the iterator is lost (an error): after the last record handled, or the start. */
    let resumeAfter: string | undefined;
    let iterator: string | undefined;
    const retries = new Map<string, number>();
    while (!stopped) {
      try {
        iterator ??= resumeAfter ? await iteratorAt('AFTER_SEQUENCE_NUMBER', resumeAfter) : await iteratorAt('TRIM_HORIZON');
        if (!iterator) return; // the shard is closed and read to its end
        const asked = Date.now();
        // GetRecords takes at most 1,000 records a call.
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: Math.min(1000, batchSize * parallelization) }));
        if (process.env.BULK_POLLER_DEBUG) log(`GetRecords ${Date.now() - asked} ms, ${out.Records?.length ?? 0} records`);
        const all = out.Records ?? [];
        const records = all.filter(passesWorkerFilter);
        let next = out.NextShardIterator;
        let failed: string | undefined;
        if (records.length > 0) {
          /** One invocation: the earliest record it failed, if any. */
          const invoke = async (batch: readonly StreamRecord[]): Promise<string | undefined> => {
            try {
              const result = await opts.handler({ Records: batch.map((r) => asLambdaRecord(r, streamArn)) });
              return earliest(result?.batchItemFailures?.map((f) => f.itemIdentifier) ?? []);
            } catch (err) {
              log(`bulk worker invocation failed: ${err instanceof Error ? err.message : String(err)}`);
              return batch[0].dynamodb?.SequenceNumber;
            }
          };
          const groups = parallelBatches(records, (r) => r.dynamodb?.Keys?.pk?.S ?? '', parallelization, batchSize);
          const groupFailures = await Promise.all(
            groups.map(async (batches) => {
              for (const batch of batches) {
                const failure = await invoke(batch);
                if (failure) return failure;
              }
              return undefined;
            }),
          );
          failed = earliest(groupFailures);
        }
        if (failed) {
          const tries = (retries.get(failed) ?? 0) + 1;
          retries.set(failed, tries);
          if (tries <= maxRetries) {
            // As Lambda does: the batch is handed over again from the failed record.
            await sleep(idleMs * tries);
            next = await iteratorAt('AT_SEQUENCE_NUMBER', failed);
            resumeAfter = undefined;
          } else {
            log(`bulk worker: record ${failed} failed ${tries} times, skipped (the sweeper hands its row over again)`);
            next = await iteratorAt('AFTER_SEQUENCE_NUMBER', failed);
            resumeAfter = failed;
          }
        } else {
          resumeAfter = all.at(-1)?.dynamodb?.SequenceNumber ?? resumeAfter;
        }
        if (all.length === 0) await sleep(idleMs);
        if (!next) return;
        iterator = next;
      } catch (err) {
        // An expired iterator, a throttled call, DynamoDB Local busy: wait, then go on after the
        // last record handled (records are handled at least once, as in AWS).
        log(`bulk stream poller: ${err instanceof Error ? err.message : String(err)}`);
        iterator = undefined;
        await sleep(idleMs * 4);
      }
    }
  };

  const run = async (): Promise<void> => {
    let streamArn: string | undefined;
    while (!stopped && !streamArn) {
      streamArn = await dynamo
        .send(new DescribeTableCommand({ TableName: opts.tableName }))
        .then((table) => table.Table?.LatestStreamArn)
        .catch(() => undefined);
      if (!streamArn) await sleep(idleMs * 4);
    }
    if (!streamArn) return;
    const polled = new Map<string, Promise<void>>();
    while (!stopped) {
      // New shards appear as DynamoDB rolls them over; a child is read once its parent is done.
      const shards = await streams
        .send(new DescribeStreamCommand({ StreamArn: streamArn }))
        .then((out) => out.StreamDescription?.Shards ?? [])
        .catch(() => []);
      for (const shard of shards) {
        const id = shard.ShardId;
        if (!id || polled.has(id)) continue;
        const parent = shard.ParentShardId ? polled.get(shard.ParentShardId) : undefined;
        if (shard.ParentShardId && !parent && shards.some((s) => s.ShardId === shard.ParentShardId)) continue;
        polled.set(
          id,
          (parent ?? Promise.resolve()).then(() => pollShard(streamArn, id)),
        );
      }
      for (let i = 0; i < 20 && !stopped; i++) await sleep(idleMs);
    }
    await Promise.allSettled(polled.values());
  };

  const running = run().catch((err: unknown) => {
    if (!stopped) log(`bulk stream poller stopped: ${err instanceof Error ? err.message : String(err)}`);
  });
  return {
    stop: async () => {
      stopped = true;
      await running;
      dynamo.destroy();
      streams.destroy();
    },
  };
}
