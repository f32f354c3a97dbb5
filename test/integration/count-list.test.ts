import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/create-table';
import { standaloneUser } from '../../lib/storage/auth-user';
import { COUNT_QUERIES_IN_FLIGHT, countList, timeSpans } from '../../lib/storage/dynamo/count-list';
import { scanList, type ScanListOptions } from '../../lib/storage/dynamo/scan-list';
import { createDynamoContext, createDynamoStores, type DynamoContext } from '../../lib/storage/dynamo';
import { itemsOfUser } from '../../lib/storage/dynamo/user-items';
import { ATTR, timeSortKey, USER_LIST_SHARDS } from '../../lib/storage/keys';
import * as keys from '../../lib/storage/keys';
import type { UserRecord } from '../../lib/storage/model';

/**
 * Counting a list longer than one Query page (`countList`): the rest of each partition is cut by
 * time into spans counted at once. Small pages (`pageLimit`) stand in for DynamoDB's 1 MB ones,
 * which a test table would need about 27,000 users to fill across 16 shards.
 */
const tableName = `test-count-${randomBytes(4).toString('hex')}`;
let ctx: DynamoContext;

const DAY = 86_400_000;
let phones = 0;
const lm = (recipeId: UserRecord['recipeId'], timeJoined: number, extra: Partial<UserRecord> = {}): UserRecord => {
  const userId = randomUUID();
  return {
    userId,
    recipeId,
    tenantIds: ['public'],
    timeJoined,
    verifiedEmails: [],
    phoneVerified: false,
    version: 1,
    ...(recipeId === 'thirdparty'
      ? { email: `${userId}@example.com`, thirdParty: { id: 'google', userId } }
      : recipeId === 'passwordless'
        ? { phoneNumber: `+1415555${String(phones++).padStart(4, '0')}` }
        : { email: `${userId}@example.com`, passwordHash: '$2a$04$abcdefghijklmnopqrstuuGhpW9dIc0e0YCD6x5Gj/5HAPsmjxsN6' }),
    ...extra,
  };
};
/** Email-password users a week apart over years, third-party ones joined in the same millisecond, passwordless ones in the first milliseconds of 1970, some waiting for a password. */
const users: UserRecord[] = [
  ...Array.from({ length: 150 }, (_, i) =>
    lm(
      'emailpassword',
      1_500_000_000_000 + i * 7 * DAY,
      i % 5 === 0 ? { passwordHash: undefined, passwordMigration: { markedAt: 1_790_000_000_000 + i } } : {},
    ),
  ),
  ...Array.from({ length: 60 }, () => lm('thirdparty', 1_600_000_000_000)),
  ...Array.from({ length: 40 }, (_, i) => lm('passwordless', i)),
];
const tenantList = Array.from({ length: USER_LIST_SHARDS }, (_, shard) => keys.usersOfTenant('public', shard));
const onlyThirdParty = { FilterExpression: 'contains(#recipes, :r0)', names: { '#recipes': 'listRecipeIds' }, values: { ':r0': 'thirdparty' } };

async function put(items: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    await ctx.doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
}

/** List entries of one partition with these positions (no user behind them: `countList` counts entries). */
const entries = (pk: string, positions: string[]) =>
  positions.map((position, i) => ({ pk: `COUNT-TEST#${pk}`, sk: String(i), [ATTR.gsi1pk]: pk, [ATTR.gsi1sk]: position }));

beforeAll(async () => {
  const client = new DynamoDBClient({
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(client, tableName);
  ctx = createDynamoContext(tableName, client);
  await put(users.flatMap((u) => itemsOfUser(standaloneUser(u)).map((d) => JSON.parse(JSON.stringify(d.item)) as Record<string, unknown>)));
});

afterAll(() => ctx.doc.destroy());

describe('countList', () => {
  it.each([1, 2, 3, 7, 1000])('counts every user of the list once with pages of %i entries', async (pageLimit) => {
    expect(await countList(ctx, tenantList, undefined, pageLimit)).toBe(users.length);
    expect(await countList(ctx, tenantList, onlyThirdParty, pageLimit)).toBe(users.filter((u) => u.recipeId === 'thirdparty').length);
  });

  it('agrees with the store, which counts with DynamoDB pages, for users and for users waiting for a password', async () => {
    const stores = createDynamoStores(ctx);
    expect(await stores.userLists.countUsers('public')).toBe(users.length);
    expect(await stores.userLists.countUsers('public', ['passwordless'])).toBe(40);
    const waiting = users.filter((u) => u.passwordMigration).length;
    expect(waiting).toBe(30);
    expect(await stores.userLists.countPasswordMigrations('public')).toBe(waiting);
    const waitingList = Array.from({ length: USER_LIST_SHARDS }, (_, shard) => keys.usersWaitingForPassword('public', shard));
    expect(await countList(ctx, waitingList, undefined, 2)).toBe(waiting);
  });

  it('counts the spans of long partitions at once, as many queries in flight as it allows', async () => {
    const send = ctx.doc.send.bind(ctx.doc);
    let spansInFlight = 0;
    let most = 0;
    /** The key condition of each span's first call. */
    const spanStarts: string[] = [];
    type Input = { KeyConditionExpression?: string; ExclusiveStartKey?: unknown };
    const spy = jest.spyOn(ctx.doc, 'send').mockImplementation((async (command: { input: Input }) => {
      const { KeyConditionExpression = '', ExclusiveStartKey } = command.input;
      if (ExclusiveStartKey === undefined) spanStarts.push(KeyConditionExpression);
      // A span: a time condition, or the first one going on from where its partition's page stopped.
      const span = KeyConditionExpression.includes('#sk') || ExclusiveStartKey !== undefined;
      if (span) most = Math.max(most, ++spansInFlight);
      try {
        return await send(command as never);
      } finally {
        if (span) spansInFlight--;
      }
    }) as never);
    try {
      expect(await countList(ctx, tenantList, undefined, 1)).toBe(users.length);
    } finally {
      spy.mockRestore();
    }
    // About 16 entries after each partition's first page of 1, over years: 16 spans each.
    expect(most).toBe(COUNT_QUERIES_IN_FLIGHT);
    expect(spanStarts.filter((c) => c.includes('BETWEEN')).length).toBeGreaterThan(USER_LIST_SHARDS);
    expect(spanStarts.filter((c) => c.includes('#sk >= :lo')).length).toBe(USER_LIST_SHARDS);
  });

  it('goes on page after page where entries share one time, or positions do not start with a time', async () => {
    const sameTime = Array.from({ length: 11 }, () => `${timeSortKey(1_700_000_000_000)}#${randomUUID()}`);
    const noTime = Array.from({ length: 9 }, (_, i) => `name-${i}#${randomUUID()}`);
    const endsWithoutTime = [`${timeSortKey(5)}#a`, `${timeSortKey(6)}#b`, `${timeSortKey(7)}#c`, 'zzz'];
    await put([...entries('COUNT#SAME', sameTime), ...entries('COUNT#NOTIME', noTime), ...entries('COUNT#MIXED', endsWithoutTime)]);
    for (const pageLimit of [1, 2, 4]) {
      expect(await countList(ctx, ['COUNT#SAME'], undefined, pageLimit)).toBe(sameTime.length);
      expect(await countList(ctx, ['COUNT#NOTIME'], undefined, pageLimit)).toBe(noTime.length);
      expect(await countList(ctx, ['COUNT#MIXED'], undefined, pageLimit)).toBe(endsWithoutTime.length);
      expect(await countList(ctx, ['COUNT#SAME', 'COUNT#NOTIME', 'COUNT#EMPTY'], undefined, pageLimit)).toBe(sameTime.length + noTime.length);
    }
  });
});

describe('timeSpans', () => {
  it.each([
    [0, 0, 16],
    [5, 9, 16],
    [5, 20, 16],
    [1_500_000_000_000, 1_800_000_000_123, 16],
    [7, 1_000_007, 3],
  ])('cuts [%i, %i] into at most %i spans of at least a millisecond that cover it exactly', (from, to, n) => {
    const bounds = timeSpans(from, to, n);
    expect(bounds[0]).toBe(from);
    expect(bounds[bounds.length - 1]).toBe(to + 1);
    expect(bounds.length - 1).toBe(Math.min(n, to - from + 1));
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]).toBeGreaterThan(bounds[i - 1]);
  });
});

describe('scanList (the dashboard search walks a list with it)', () => {
  const positionsOf = (items: Record<string, unknown>[]) => items.map((i) => i[ATTR.gsi1sk] as string);
  const inOrder = (list: UserRecord[], order: 'ASC' | 'DESC') => {
    const asc = list.map((u) => keys.userListPosition(u.timeJoined, u.userId)).sort();
    return order === 'ASC' ? asc : asc.reverse();
  };
  /** Every batch, and the `Limit` of every Query sent. */
  async function walk(options: Omit<ScanListOptions, 'partitions'>, take = Infinity) {
    const send = ctx.doc.send.bind(ctx.doc);
    const limits: (number | undefined)[] = [];
    const spy = jest.spyOn(ctx.doc, 'send').mockImplementation(((command: { input: { Limit?: number } }) => {
      limits.push(command.input.Limit);
      return send(command as never);
    }) as never);
    const batches: Record<string, unknown>[][] = [];
    try {
      for await (const batch of scanList(ctx, { partitions: tenantList, ...options })) {
        batches.push(batch);
        if (batches.length >= take) break;
      }
    } finally {
      spy.mockRestore();
    }
    return { batches, entries: batches.flat(), limits };
  }

  it.each([
    [1, 'ASC'],
    [3, 'ASC'],
    [7, 'DESC'],
    [1000, 'DESC'],
  ] as const)('hands out every entry once, merged in order across the shards, with first pages of %i (%s)', async (firstPage, order) => {
    const { entries } = await walk({ order, firstPage });
    expect(positionsOf(entries)).toEqual(inOrder(users, order));
    const { entries: thirdParty } = await walk({ order, firstPage, filter: onlyThirdParty });
    expect(positionsOf(thirdParty)).toEqual(
      inOrder(
        users.filter((u) => u.recipeId === 'thirdparty'),
        order,
      ),
    );
  });

  it('reads one page of each shard a round, twice as many entries each round, and nothing after the consumer stops', async () => {
    const { limits, batches } = await walk({ order: 'ASC', firstPage: 1 });
    const rounds = [...new Set(limits)];
    expect(rounds.slice(0, 4)).toEqual([1, 2, 4, 8]);
    for (const limit of rounds) expect(limits.filter((l) => l === limit).length).toBeLessThanOrEqual(USER_LIST_SHARDS);
    expect(batches.length).toBeGreaterThan(1);
    const first = await walk({ order: 'ASC', firstPage: 1 }, 1);
    expect(first.limits).toEqual(Array(USER_LIST_SHARDS).fill(1));
    expect(positionsOf(first.entries)).toEqual(inOrder(users, 'ASC').slice(0, first.entries.length));
  });

  it("the store's scanUsers keeps what its test accepts, up to its maximum, in order", async () => {
    const stores = createDynamoStores(ctx);
    const thirdParty = inOrder(
      users.filter((u) => u.recipeId === 'thirdparty'),
      'DESC',
    );
    const found = await stores.userSearch.scanUsers('public', { order: 'DESC', accept: (u) => u.loginMethods[0].recipeId === 'thirdparty', max: 7 });
    expect(found.map((u) => keys.userListPosition(u.loginMethods[0].timeJoined, u.id))).toEqual(thirdParty.slice(0, 7));
    const passwordless = await stores.userSearch.scanUsers('public', { order: 'ASC', withRecipes: ['passwordless'], accept: () => true, max: 1000 });
    expect(passwordless).toHaveLength(40);
    expect(await stores.userSearch.scanUsers('public', { order: 'ASC', withRecipes: ['passwordless', 'thirdparty'], accept: () => true, max: 1000 })).toEqual(
      [],
    );
  });

  it("the store's loginFilter has DynamoDB send only the login methods whose email or phone number can match", async () => {
    const stores = createDynamoStores(ctx);
    const send = ctx.doc.send.bind(ctx.doc);
    let sent = 0;
    const scan = async (loginFilter: { emailPrefixes?: string[]; phonePrefixes?: string[] }) => {
      sent = 0;
      const spy = jest.spyOn(ctx.doc, 'send').mockImplementation((async (command: never) => {
        const out = (await send(command)) as { Items?: unknown[] };
        sent += out.Items?.length ?? 0;
        return out;
      }) as never);
      try {
        return await stores.userSearch.scanUsers('public', { order: 'ASC', loginFilter, accept: () => true, max: 1000 });
      } finally {
        spy.mockRestore();
      }
    };
    const phones = await scan({ phonePrefixes: ['+1415555001', '+14155550039'] });
    expect(phones.map((u) => u.loginMethods[0].phoneNumber)).toEqual([...Array.from({ length: 10 }, (_, i) => `+141555500${10 + i}`), '+14155550039']);
    expect(sent).toBe(11);
    const target = users[7];
    expect((await scan({ emailPrefixes: [target.email!.slice(0, 13)] })).map((u) => u.id)).toEqual([target.userId]);
    expect(sent).toBe(1);
    // The domain: `@` and the value anywhere in the email (a superset of the domain's start, which `accept` checks).
    expect(await scan({ emailPrefixes: ['example'] })).toHaveLength(210);
    expect(await scan({ emailPrefixes: ['example'], phonePrefixes: ['+1'] })).toHaveLength(0);
    expect(sent).toBe(0);
    // Too many values for one filter expression: DynamoDB sends every entry, `accept` decides.
    expect(await scan({ emailPrefixes: Array.from({ length: 30 }, (_, i) => `nobody-${i}`) })).toHaveLength(users.length);
    expect(sent).toBe(users.length);
  });
});
