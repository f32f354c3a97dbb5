import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { inPool } from '../../pool';
import { ATTR, INDEX, timeSortKey } from '../keys';
import { countAll, type DynamoContext } from './transact';

/**
 * Time spans the rest of one list partition is cut into when it is longer than one Query page:
 * counted at once, so a count's time follows the pages divided by `COUNT_QUERIES_IN_FLIGHT`,
 * not the longest partition's pages one after another.
 */
export const COUNT_SPANS_PER_PARTITION = 16;
/** Queries of one count in flight at once: under the SDK's 50 sockets per client. */
export const COUNT_QUERIES_IN_FLIGHT = 48;

/** A filter on the counted entries (a Query's `FilterExpression` with its names and values). */
export interface ListFilter {
  readonly FilterExpression?: string;
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/** The time a list position starts with (`<15 digits>#<id>`, `timeSortKey`), if it does. */
function timeOfPosition(position: unknown): number | undefined {
  const m = typeof position === 'string' ? /^(\d{15})#/.exec(position) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * The spans `[from, to]` (whole milliseconds) is cut into, as the `n + 1` bounds between them:
 * at most `n`, each at least one millisecond, together exactly `[from, to]`.
 */
export function timeSpans(from: number, to: number, n: number): number[] {
  const spans = Math.max(1, Math.min(n, to - from + 1));
  return Array.from({ length: spans + 1 }, (_, i) => from + Math.floor((i * (to + 1 - from)) / spans));
}

/**
 * Counts the entries of gsi1 list partitions (`partitions`, each sorted by
 * `<time>#<id>`: a tenant's users, or its users waiting for a password), `filter` applied.
 *
 * A Query reads at most 1 MB a call (`pageLimit` items, when given: the tests' small pages), so
 * a partition of 600,000 users (a tenant of 10 million over 16 shards) takes about 370 calls, and
 * one after another they outlast a function's timeout. So each partition's first page is counted
 * (the only call for a list up to a page), and the rest of a longer one is cut by time
 * (`timeSpans`, between where the page stopped and the partition's last entry) into spans
 * counted at once, `COUNT_QUERIES_IN_FLIGHT` calls in flight across the partitions. The spans
 * are disjoint and leave nothing out: an entry is counted once. A partition whose positions do
 * not start with a time is counted on from its first page, page after page. DynamoDB charges
 * the same either way (the items read).
 */
export async function countList(
  ctx: DynamoContext,
  partitions: readonly string[],
  filter: ListFilter = { names: {}, values: {} },
  pageLimit?: number,
): Promise<number> {
  const query = (
    pk: string,
    sortKey?: { condition: string; values: Record<string, string> },
  ): Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Select'> => ({
    IndexName: INDEX.usersByTenant,
    KeyConditionExpression: sortKey ? `#pk = :pk AND ${sortKey.condition}` : '#pk = :pk',
    ...(filter.FilterExpression ? { FilterExpression: filter.FilterExpression } : {}),
    ExpressionAttributeNames: { '#pk': ATTR.gsi1pk, ...(sortKey ? { '#sk': ATTR.gsi1sk } : {}), ...filter.names },
    ExpressionAttributeValues: { ':pk': pk, ...sortKey?.values, ...filter.values },
    ...(pageLimit !== undefined ? { Limit: pageLimit } : {}),
  });
  const rest: (() => Promise<number>)[] = [];
  const firstPages = await Promise.all(
    partitions.map(async (pk) => {
      const first = await ctx.doc.send(new QueryCommand({ ...query(pk), TableName: ctx.tableName, Select: 'COUNT' }));
      const stoppedAt = first.LastEvaluatedKey;
      if (!stoppedAt) return first.Count ?? 0;
      const last = await ctx.doc.send(
        new QueryCommand({
          TableName: ctx.tableName,
          IndexName: INDEX.usersByTenant,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': ATTR.gsi1pk, '#sk': ATTR.gsi1sk },
          ExpressionAttributeValues: { ':pk': pk },
          ProjectionExpression: '#sk',
          ScanIndexForward: false,
          Limit: 1,
        }),
      );
      const from = timeOfPosition(stoppedAt[ATTR.gsi1sk]);
      const to = timeOfPosition(last.Items?.[0]?.[ATTR.gsi1sk]);
      const bounds = from !== undefined && to !== undefined && to >= from ? timeSpans(from, to, COUNT_SPANS_PER_PARTITION) : [0, 0];
      const spans = bounds.length - 1;
      for (let i = 0; i < spans; i++) {
        const lo = { ':lo': timeSortKey(bounds[i]) };
        const hi = { ':hi': timeSortKey(bounds[i + 1]) };
        // Positions are `<time>#<id>`, so `<time>` alone sorts before every entry of that time:
        // the first span goes on from where the page stopped up to its end, the last has no end
        // (entries written since the last one was read), and the ones between are their times.
        const sortKey =
          spans === 1
            ? undefined
            : i === 0
              ? { condition: '#sk < :hi', values: hi }
              : i === spans - 1
                ? { condition: '#sk >= :lo', values: lo }
                : { condition: '#sk BETWEEN :lo AND :hi', values: { ...lo, ...hi } };
        rest.push(() => countAll(ctx, query(pk, sortKey), i === 0 ? stoppedAt : undefined));
      }
      return first.Count ?? 0;
    }),
  );
  const spans: number[] = [];
  await inPool(rest, COUNT_QUERIES_IN_FLIGHT, async (count) => {
    spans.push(await count());
  });
  return [...firstPages, ...spans].reduce((a, b) => a + b, 0);
}
