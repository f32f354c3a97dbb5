/**
 * How the table's stream feeds the bulk-import worker (SPEC §15): the event source mapping's batch
 * size, parallelization and filter. One definition for the CDK stack
 * (`infra/constructs/bulk-import.ts`), `npm start`'s stream poller (`local/stream-poller.ts`),
 * which stands in for the mapping with DynamoDB Local's stream, and the worker's own check of its
 * records (`lib/storage/dynamo/bulk-row-stream.ts`), so the three cannot drift apart.
 *
 * Data only: no CDK or AWS imports (the local server and the worker's bundle hold it).
 */

/**
 * The mapping's records per invocation, and its concurrent batches per stream shard (records of
 * one partition key, one lane, stay in order).
 */
export const WORKER_BATCH_SIZE = 100;
export const WORKER_PARALLELIZATION = 10;

/** A pattern of Lambda's event filtering: the few rules these patterns use. */
export type FilterPattern = { readonly [field: string]: FilterPattern | readonly FilterValue[] };
type FilterValue = string | number | boolean | null | { readonly exists: boolean };

/**
 * The records the worker takes (Lambda's filter syntax): a bulk row inserted (staged), or modified
 * with a `redriveAt` (the sweeper's hand-on; every other write of a row drops it). The worker
 * checks its records against them again (`bulkRowHandOversOf` in
 * `lib/storage/dynamo/bulk-row-stream.ts`).
 */
export const WORKER_FILTER_PATTERNS: readonly FilterPattern[] = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['bulkRow'] } } } },
  { eventName: ['MODIFY'], dynamodb: { NewImage: { type: { S: ['bulkRow'] }, redriveAt: { N: [{ exists: true }] } } } },
];

function matchesValue(value: unknown, allowed: readonly FilterValue[]): boolean {
  return allowed.some((rule) => {
    if (rule !== null && typeof rule === 'object') {
      if (Object.keys(rule).length !== 1 || typeof rule.exists !== 'boolean')
        throw new Error(`Filter rule ${JSON.stringify(rule)} is not one this stand-in knows`);
      return (value !== undefined) === rule.exists;
    }
    return value === rule;
  });
}

/**
 * Whether a record passes a pattern, as Lambda's event filtering decides it for the rules these
 * patterns use (a field equal to one of the values, or present or absent); any other rule throws,
 * so a pattern this stand-in cannot judge fails the tests instead of passing records Lambda would not.
 */
export function matchesFilterPattern(record: unknown, pattern: FilterPattern): boolean {
  const fields = record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : {};
  return Object.entries(pattern).every(([name, rule]) => {
    const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
    return Array.isArray(rule) ? matchesValue(value, rule as readonly FilterValue[]) : matchesFilterPattern(value, rule as FilterPattern);
  });
}

/** Whether the mapping hands a record of the table's stream to the worker (any of its patterns). */
export function passesWorkerFilter(record: unknown): boolean {
  return WORKER_FILTER_PATTERNS.some((pattern) => matchesFilterPattern(record, pattern));
}
