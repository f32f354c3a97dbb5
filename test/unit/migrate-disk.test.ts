import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskJoin } from '../../lib/migrate/disk-join';
import { SeenTwiceHashes } from '../../lib/migrate/seen-twice';
import { readLines } from '../../lib/migrate/spill';
import { random } from '../support/random';

/**
 * The on-disk indexes of the migration command (SPEC §17c, bounded memory): the companion join
 * (sorted runs merged into blocks) and the repeated-hash finder of the collision index, with
 * sizes small enough that a few thousand rows take many runs, blocks and partitions, checked
 * against a plain in-memory answer; their scratch files are gone once they are built.
 */

const scratch = mkdtempSync(join(tmpdir(), 'migrate-disk-'));
const savedTmp = process.env.TMPDIR;
beforeAll(() => {
  process.env.TMPDIR = scratch;
});
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

async function* fromArray<T>(rows: readonly T[]): AsyncGenerator<T> {
  yield* rows;
}

describe('DiskJoin', () => {
  const next = random(47);
  // Keys that sort oddly (multi-byte, quotes, a tab), several rows for some, in no order.
  const keys = Array.from({ length: 1500 }, (_, i) => [`user-${Math.floor(next() * 1e9)}`, `ü${i}\t"x"`, `${i}`][i % 3]);
  const rows = Array.from({ length: 4000 }, (_, i) => ({
    key: keys[Math.floor(next() * keys.length)],
    item: { n: i, text: `row ${i} é\n\u2028 ${'z'.repeat(i % 50)}` },
  }));
  const expected = new Map<string, number[]>();
  for (const r of rows) expected.set(r.key, [...(expected.get(r.key) ?? []), r.item.n]);

  it('finds every row of every key in the order added, across many runs and blocks, and leaves no file', async () => {
    const join = await DiskJoin.build(fromArray(rows), { runChars: 8_000, blockBytes: 300 });
    expect(join.count).toBe(rows.length);
    for (const key of new Set(keys)) expect(join.rows(key).map((r) => r.item.n)).toEqual(expected.get(key) ?? []);
    expect(join.rows('absent')).toEqual([]);
    expect(join.rows('')).toEqual([]);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('tells which rows were never marked', async () => {
    const join = await DiskJoin.build(fromArray(rows), { runChars: 8_000, blockBytes: 300 });
    const marked = new Set<number>();
    for (const key of [...expected.keys()].filter((_, i) => i % 2 === 0)) {
      for (const r of join.rows(key)) {
        join.mark(r.ordinal);
        marked.add(r.item.n);
      }
    }
    const left = [...join.unmarked()].map((r) => r.item.n).sort((a, b) => a - b);
    expect(left).toEqual(rows.map((r) => r.item.n).filter((n) => !marked.has(n)));
    expect(join.unmarkedCount()).toBe(left.length);
    expect([...join.unmarked()].every((r) => expected.get(r.key)?.includes(r.item.n))).toBe(true);
    // Keys marked whole: each key left once, with all its rows in the order they were added.
    const leftKeys = [...expected.keys()].filter((_, i) => i % 2 === 1).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    expect([...join.unmarkedKeys()].map((g) => [g.key, g.items.map((item) => item.n)])).toEqual(leftKeys.map((k) => [k, expected.get(k)]));
    join.unmarkAll();
    expect(join.unmarkedCount()).toBe(rows.length);
  });

  it('answers the same whether the rows come in key order, one run, or in order and then not', async () => {
    const inOrder = [...rows].sort((a, b) => (JSON.stringify(a.key) < JSON.stringify(b.key) ? -1 : JSON.stringify(a.key) > JSON.stringify(b.key) ? 1 : 0));
    const orderOf = (list: typeof rows) => {
      const m = new Map<string, number[]>();
      for (const r of list) m.set(r.key, [...(m.get(r.key) ?? []), r.item.n]);
      return m;
    };
    const half = rows.length / 2;
    // Key order (sorted runs appended, no merge); unsorted in one run; the first half in key order, then every row again.
    const cases = [
      { list: inOrder, sizes: { runChars: 8_000, blockBytes: 300 } },
      { list: rows, sizes: { runChars: 1e9, blockBytes: 300 } },
      { list: [...inOrder.slice(0, half), ...rows], sizes: { runChars: 8_000, blockBytes: 300 } },
    ];
    for (const { list, sizes } of cases) {
      const join = await DiskJoin.build(fromArray(list), sizes);
      const want = orderOf(list);
      expect(join.count).toBe(list.length);
      for (const key of new Set(keys)) expect([key, join.rows(key).map((r) => r.item.n)]).toEqual([key, want.get(key) ?? []]);
      expect([...join.unmarked()].map((r) => `${r.key}/${r.item.n}`)).toEqual(
        [...want.keys()].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)).flatMap((k) => want.get(k)!.map((n) => `${k}/${n}`)),
      );
      expect(readdirSync(scratch)).toEqual([]);
    }
  });

  it('keeps a row longer than its write buffer whole', async () => {
    const long = 'é'.repeat(600_000);
    const join = await DiskJoin.build(
      fromArray([
        { key: 'a', item: 'x' },
        { key: 'b', item: long },
        { key: 'c', item: 'y' },
      ]),
      { blockBytes: 300 },
    );
    expect([join.rows('a')[0].item, join.rows('b')[0].item === long, join.rows('c')[0].item]).toEqual(['x', true, 'y']);
  });

  it('is empty without rows', async () => {
    const join = await DiskJoin.build(fromArray<{ key: string; item: number }>([]));
    expect([join.count, join.rows('a'), [...join.unmarked()]]).toEqual([0, [], []]);
  });
});

it('reads lines whose characters straddle its chunks', () => {
  const file = join(scratch, 'lines.txt');
  const lines = ['ééé', '', 'a€b', 'x'.repeat(30), '😀😀'];
  writeFileSync(file, lines.join('\n'));
  const fd = openSync(file, 'r');
  try {
    for (const chunk of [1, 3, 7, 1 << 20]) expect([...readLines(fd, 0, Number.POSITIVE_INFINITY, chunk)]).toEqual(lines);
  } finally {
    closeSync(fd);
    rmSync(file);
  }
});

describe('SeenTwiceHashes', () => {
  const next = random(2026);
  const values = Array.from({ length: 5000 }, () => Math.floor(next() * 2 ** 48));
  // A hash added twice, one three times, one at both ends.
  const added = [...values, values[10], values[20], values[20], values[0]];
  const repeated = new Set([values[10], values[20], values[0]]);

  it.each([
    ['in memory', 100_000],
    ['spilled to 64 files', 100],
  ])('finds exactly the hashes added twice or more (%s), and leaves no file', (_, capacity) => {
    const seen = new SeenTwiceHashes(capacity);
    for (const h of added) seen.add(h);
    expect(new Set(seen.twice)).toEqual(repeated);
    expect([seen.has(values[20]), seen.has(values[30])]).toEqual([true, false]);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('refuses a hash added after the answer', () => {
    const seen = new SeenTwiceHashes(100);
    seen.add(1);
    expect(seen.twice.size).toBe(0);
    expect(() => seen.add(2)).toThrow(/after the repeated ones/);
  });
});
