import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX } from '../keys';
import type { ListFilter } from './count-list';
import type { DynamoContext } from './transact';

/**
 * Entries each partition's first Query of a walk reads (before the filter); every later round
 * reads twice as many, and from `UNLIMITED_AFTER` on as many as DynamoDB gives (1 MB, about 1,700
 * users). So a walk that finds what it needs near the start of a list reads little, and one over
 * a whole list of millions takes few rounds.
 */
export const SCAN_FIRST_PAGE = 250;
const UNLIMITED_AFTER = 4000;

export interface ScanListOptions {
  /** gsi1 list partitions, each sorted by `<time>#<id>` (a tenant's users over their shards). */
  readonly partitions: readonly string[];
  readonly order: 'ASC' | 'DESC';
  readonly filter?: ListFilter;
  /** The first round's `Limit` (the tests' small pages); `SCAN_FIRST_PAGE` when absent. */
  readonly firstPage?: number;
}

interface Cursor {
  readonly pk: string;
  /** Read but not yet handed out, in the walk's order. */
  entries: Record<string, unknown>[];
  /** Where the partition was read up to (its last evaluated position); `undefined` before the first read. */
  readTo?: string;
  startKey?: Record<string, unknown>;
  done: boolean;
}

const positionOf = (item: Record<string, unknown> | undefined): string => item?.[ATTR.gsi1sk] as string;

/**
 * The entries of gsi1 list partitions merged in order (`<time>#<id>`, newest first for `DESC`),
 * `filter` applied, in batches: every round reads the next page of each partition not yet read to
 * its end, all at once, then hands out, in order, every entry up to the place all of them were
 * read to (what comes after it may still sit in a partition read less far). A consumer that has
 * what it needs stops iterating, and nothing more is read. Each entry is handed out once.
 */
export async function* scanList(ctx: DynamoContext, options: ScanListOptions): AsyncGenerator<Record<string, unknown>[]> {
  const asc = options.order === 'ASC';
  const before = (a: string, b: string) => (asc ? a < b : a > b);
  const filter = options.filter ?? { names: {}, values: {} };
  const cursors: Cursor[] = options.partitions.map((pk) => ({ pk, entries: [], done: false }));
  let limit: number | undefined = options.firstPage ?? SCAN_FIRST_PAGE;
  for (;;) {
    const reading = cursors.filter((c) => !c.done);
    await Promise.all(
      reading.map(async (c) => {
        const out = await ctx.doc.send(
          new QueryCommand({
            TableName: ctx.tableName,
            IndexName: INDEX.usersByTenant,
            KeyConditionExpression: '#pk = :pk',
            ...(filter.FilterExpression ? { FilterExpression: filter.FilterExpression } : {}),
            ExpressionAttributeNames: { '#pk': ATTR.gsi1pk, ...filter.names },
            ExpressionAttributeValues: { ':pk': c.pk, ...filter.values },
            ScanIndexForward: asc,
            ...(limit !== undefined ? { Limit: limit } : {}),
            ...(c.startKey ? { ExclusiveStartKey: c.startKey } : {}),
          }),
        );
        c.entries.push(...(out.Items ?? []));
        c.startKey = out.LastEvaluatedKey;
        // The last evaluated key is where the read got to, also when the filter dropped every item of the page.
        if (c.startKey) c.readTo = positionOf(c.startKey);
        else c.done = true;
      }),
    );
    limit = limit !== undefined && limit * 2 < UNLIMITED_AFTER ? limit * 2 : undefined;
    // Every partition still being read has been read up to at least `bound`: what lies up to it is final.
    const open = cursors.filter((c) => !c.done).map((c) => c.readTo as string);
    const bound = open.reduce<string | undefined>((b, p) => (b === undefined || before(p, b) ? p : b), undefined);
    const batch: Record<string, unknown>[] = [];
    for (const c of cursors) {
      const cut = bound === undefined ? c.entries.length : c.entries.findIndex((e) => before(bound, positionOf(e)));
      const end = cut === -1 ? c.entries.length : cut;
      batch.push(...c.entries.slice(0, end));
      c.entries = c.entries.slice(end);
    }
    batch.sort((a, b) => (before(positionOf(a), positionOf(b)) ? -1 : before(positionOf(b), positionOf(a)) ? 1 : 0));
    if (batch.length > 0) yield batch;
    if (bound === undefined) return;
  }
}
