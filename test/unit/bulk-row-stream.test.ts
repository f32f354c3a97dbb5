import { matchesFilterPattern, passesWorkerFilter } from '../../infra/worker-stream';
import { bulkRowFromImage, bulkRowHandOversOf, type BulkRowStreamRecord } from '../../lib/storage/dynamo/bulk-row-stream';
import { bulkRowItem } from '../../lib/storage/dynamo/dynamo-bulk-import-store';
import type { BulkImportRow } from '../../lib/storage/model';

/**
 * The table's stream as the worker reads it (SPEC §15): which records hand a row to the worker,
 * and the row each shows, from the adapter's own row items; and the event source mapping's filter
 * (`infra/worker-stream.ts`, which the local stream poller and the worker apply too) giving them.
 */
const STAGED_AT = 1_700_000_000_000;

function row(id: string, over: Partial<BulkImportRow> = {}): BulkImportRow {
  return {
    user: {
      id,
      externalUserId: `ext-${id.slice(0, 4)}`,
      loginMethods: [
        {
          superTokensUserId: id,
          recipeId: 'passwordless',
          tenantIds: ['public'],
          isVerified: false,
          isPrimary: false,
          timeJoined: STAGED_AT,
          email: `${id.slice(0, 4)}@example.com`,
        },
      ],
    },
    status: 'NEW',
    createdAt: STAGED_AT,
    updatedAt: STAGED_AT,
    ...over,
  };
}

/** An item as the stream's image carries it (DynamoDB's JSON); a row item holds only strings and numbers. */
function imageOf(item: Record<string, unknown>): Record<string, { S?: string; N?: string }> {
  const image: Record<string, { S?: string; N?: string }> = {};
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    if (typeof value === 'string') image[name] = { S: value };
    else if (typeof value === 'number') image[name] = { N: String(value) };
    else throw new Error(`${name}: a row item holds strings and numbers only`);
  }
  return image;
}

/** A record of the table's stream (view `NEW_IMAGE`) for a change of `item`. */
function record(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', item: Record<string, unknown>, sequenceNumber: string): BulkRowStreamRecord {
  const { pk, sk } = item as { pk: string; sk: string };
  return {
    eventName,
    dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } }, ...(eventName === 'REMOVE' ? {} : { NewImage: imageOf(item) }), SequenceNumber: sequenceNumber },
  };
}

const A = '0a2b3c4d-0000-4000-8000-000000000001';
const B = 'ff2b3c4d-0000-4000-8000-000000000002';
const staged = row(A);
const failed = row(A, { status: 'FAILED', errorMessage: 'E006: …', updatedAt: STAGED_AT + 5, attempts: 2 });

/** Every kind of change of the table's stream near a row, and whether it hands the row to the worker. */
const CHANGES: [string, BulkRowStreamRecord, boolean][] = [
  ['a row staged', record('INSERT', bulkRowItem(staged), '100'), true],
  [
    'a row the sweeper hands on (redriveAt set)',
    record('MODIFY', { ...bulkRowItem(row(A, { status: 'PROCESSING', attempts: 1 })), redriveAt: STAGED_AT + 9 }, '101'),
    true,
  ],
  ['a row the worker marked PROCESSING (redriveAt removed)', record('MODIFY', bulkRowItem(row(A, { status: 'PROCESSING', attempts: 1 })), '102'), false],
  ['a row the worker failed', record('MODIFY', bulkRowItem(failed), '103'), false],
  ['a row deleted (imported or removed)', record('REMOVE', bulkRowItem(staged), '104'), false],
  ['a lane counter', record('MODIFY', { pk: 'BULKCOUNT#LANE#10', sk: 'COUNT', type: 'bulkCounter', NEW: 1 }, '105'), false],
  ['a staged mark', record('INSERT', { pk: `BULKSTAGED#${A}`, sk: 'CHUNK', type: 'bulkStaged', id: A, rows: 1 }, '106'), false],
  ['a user item', record('INSERT', { pk: `USER#${A}`, sk: `LM#${A}`, type: 'loginMethod' }, '107'), false],
];

describe('the rows the table stream hands to the worker', () => {
  it.each(CHANGES)('%s', (_name, change, handsOver) => {
    expect(bulkRowHandOversOf([change]).length).toBe(handsOver ? 1 : 0);
  });

  it('gives each row its id, its lane, the record that names it, and the row as the record shows it', () => {
    expect(bulkRowHandOversOf([record('INSERT', bulkRowItem(staged), '100')])).toEqual([{ id: A, lane: 0x0a, recordId: '100', seen: staged }]);
    // Every field of a row comes back, numbers as numbers.
    const handedOn = { ...bulkRowItem(failed), status: 'PROCESSING', redriveAt: STAGED_AT + 9 };
    expect(bulkRowHandOversOf([record('MODIFY', handedOn, '7')])[0].seen).toEqual({ ...failed, status: 'PROCESSING' });
  });

  it('keeps stream order, across lanes and within one', () => {
    const records = [
      record('INSERT', bulkRowItem(row(B)), '1'),
      record('INSERT', bulkRowItem(staged), '2'),
      record('MODIFY', { ...bulkRowItem(staged), redriveAt: 1 }, '3'),
    ];
    expect(bulkRowHandOversOf(records).map((h) => [h.id, h.lane, h.recordId])).toEqual([
      [B, 0xff, '1'],
      [A, 0x0a, '2'],
      [A, 0x0a, '3'],
    ]);
  });

  it('hands over a row whose image is not a whole row without it (the worker reads the row), and no key that is not a row id', () => {
    const { user: _user, ...partial } = bulkRowItem(staged);
    expect(bulkRowHandOversOf([record('INSERT', partial, '1')])).toEqual([{ id: A, lane: 0x0a, recordId: '1' }]);
    expect(bulkRowFromImage(imageOf({ ...bulkRowItem(staged), user: '{not json' }))).toBeUndefined();
    expect(bulkRowHandOversOf([record('INSERT', { ...bulkRowItem(staged), sk: 'ROW#not-a-uuid' }, '1')])).toEqual([]);
  });
});

describe("the event source mapping's filter (infra/worker-stream.ts), as the stack and the local poller apply it", () => {
  it.each(CHANGES)('passes exactly the records the worker takes: %s', (_name, change, handsOver) => {
    expect(passesWorkerFilter(change)).toBe(handsOver);
  });

  it('judges the rules it knows as Lambda does, and refuses any other rule', () => {
    expect(matchesFilterPattern({ a: { b: 'x' } }, { a: { b: ['y', 'x'] } })).toBe(true);
    expect(matchesFilterPattern({ a: { b: 'x' } }, { a: { b: ['y'] } })).toBe(false);
    expect(matchesFilterPattern({ a: {} }, { a: { b: [{ exists: false }] } })).toBe(true);
    expect(matchesFilterPattern({}, { a: { b: [{ exists: true }] } })).toBe(false);
    expect(() => matchesFilterPattern({ a: 'x' }, { a: [{ prefix: 'x' } as unknown as { exists: boolean }] })).toThrow('is not one this stand-in knows');
  });
});
