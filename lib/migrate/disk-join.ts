import { closeSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { ChunkWriter, createScratch, readLines, scratchFolder, sortBufferBytes } from './spill';

/**
 * A companion table on disk, asked by key (SPEC §17c, bounded memory): Auth0's hash export by
 * database identity, Supabase's `auth.identities` and `auth.mfa_factors` by user. Its rows are
 * sorted by key in runs of about 8 MB (`sortBufferBytes`), the runs merged into one file in blocks of about 2 KB
 * (a key's rows never split between two blocks), and only the first key of each block is kept in
 * memory: a look-up is a binary search and one read of one block. A companion in key order (an
 * export's usual order: Auth0's hash export by identity) or of one run is not merged: each sorted
 * run that starts at or after the last key written goes straight to the joined file. Memory is the run being sorted
 * while the file is built, then the block keys (about 1/40 of the file) and one bit per row (to
 * tell which rows were joined); the rows stay on disk in a scratch file whose name is removed as
 * soon as it is open (`./spill.ts`). Rows of one key come back in the order they were added.
 */

const BLOCK_BYTES = 2 << 10;

/** A run's characters and a block's bytes (smaller than the defaults in tests). */
export interface JoinSizes {
  readonly runChars?: number;
  readonly blockBytes?: number;
}

/** A row of the join: its number (in key order) and its value. */
export interface JoinedItem<T> {
  readonly ordinal: number;
  readonly item: T;
}

interface Cursor {
  readonly lines: Generator<string>;
  key: string;
  line: string;
  readonly run: number;
}

const keyOf = (line: string): string => line.slice(0, line.indexOf('\t'));
const before = (a: Cursor, b: Cursor): boolean => a.key < b.key || (a.key === b.key && a.run < b.run);

/** The runs' lines in key order (the earlier run first on equal keys): a k-way merge on a binary heap. */
function* merged(fds: readonly number[]): Generator<string> {
  const heap: Cursor[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l], heap[m])) m = l;
      if (r < heap.length && before(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  fds.forEach((fd, run) => {
    // Small reads: a merge of a 10-million-user companion has a hundred runs or more.
    const lines = readLines(fd, 0, Number.POSITIVE_INFINITY, 64 << 10);
    const first = lines.next();
    if (!first.done && first.value !== '') heap.push({ lines, key: keyOf(first.value), line: first.value, run });
  });
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const top = heap[0];
    yield top.line;
    const next = top.lines.next();
    if (next.done || next.value === '') {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    } else {
      top.line = next.value;
      top.key = keyOf(next.value);
    }
    down(0);
  }
}

/** The order that sorts `keys` (stable: equal keys keep theirs), or undefined when they are in order already. */
function sortedOrder(keys: readonly string[]): number[] | undefined {
  let i = 1;
  while (i < keys.length && keys[i - 1] <= keys[i]) i++;
  if (i >= keys.length) return undefined;
  const order = Array.from(keys, (_, j) => j);
  return order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b));
}

/** The joined file being written, in key order, in blocks of about `blockBytes` (a key's rows never split). */
class Joined {
  private readonly out: ChunkWriter;
  readonly firstKeys: string[] = [];
  readonly offsets: number[] = [];
  readonly ordinals: number[] = [];
  count = 0;
  /** The last key written. */
  last: string | undefined;
  private blockStart: number;

  constructor(
    private readonly path: string,
    private readonly blockBytes: number,
  ) {
    this.out = new ChunkWriter(createScratch(path));
    this.blockStart = -blockBytes;
  }

  add(key: string, line: string): void {
    if (key !== this.last && this.out.bytes - this.blockStart >= this.blockBytes) {
      this.blockStart = this.out.bytes;
      // A copy: the key as it is, a slice of the line, would keep the whole chunk read from disk.
      this.firstKeys.push(Buffer.from(key).toString());
      this.offsets.push(this.out.bytes);
      this.ordinals.push(this.count);
    }
    this.last = key;
    this.out.line(line);
    this.count++;
  }

  /** Closes the file and opens it for reading as the first run of a merge. */
  closeAsRun(): number {
    this.out.close();
    return openSync(this.path, 'r');
  }

  /** Closes the file and opens it for reading, its name removed: the file goes with the descriptor, however the run ends. */
  finish(): { fd: number; firstKeys: string[]; offsets: number[]; ordinals: number[]; count: number } {
    this.out.close();
    const fd = openSync(this.path, 'r');
    unlinkSync(this.path);
    return { fd, firstKeys: this.firstKeys, offsets: this.offsets, ordinals: this.ordinals, count: this.count };
  }
}

const closeFd = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

export class DiskJoin<T> {
  /** Rows that were joined (`mark`), one bit each. */
  private marks: Uint8Array;
  private cached = -1;
  private cachedLines: string[] = [];

  private constructor(
    private readonly fd: number,
    private readonly size: number,
    /** Per block: its first key (as JSON), its offset in the file and the number of its first row. */
    private readonly firstKeys: readonly string[],
    private readonly offsets: readonly number[],
    private readonly ordinals: readonly number[],
    /** The last row's key (as JSON). */
    private readonly lastKey: string,
    /** How many rows. */
    readonly count: number,
    /** How many sorted runs the rows were cut into (more than one: they did not fit in memory at once). */
    readonly runs: number,
  ) {
    this.marks = new Uint8Array(Math.ceil(count / 8));
    closeFd.register(this, fd);
  }

  /** Builds the join from `rows` (key and value: any JSON value); `sizes` smaller than the defaults for tests. */
  static async build<T>(rows: AsyncIterable<{ readonly key: string; readonly item: T }>, sizes: JoinSizes = {}): Promise<DiskJoin<T>> {
    const { runChars = sortBufferBytes(), blockBytes = BLOCK_BYTES } = sizes;
    const scratch = scratchFolder('join');
    try {
      // Sorted runs go straight to the joined file as long as each starts at or after the last
      // key written there (an export in key order, or one run): no run file and no merge. The
      // first run that does not makes that file the first run of a merge.
      let joined: Joined | undefined = new Joined(scratch.file('joined'), blockBytes);
      const runs: number[] = [];
      let keys: string[] = [];
      let lines: string[] = [];
      let chars = 0;
      let sortedRuns = 0;
      const flush = () => {
        if (keys.length === 0) return;
        sortedRuns++;
        const order = sortedOrder(keys);
        const first = order ? keys[order[0]] : keys[0];
        if (joined && (joined.last === undefined || joined.last <= first)) {
          if (order) for (const i of order) joined.add(keys[i], lines[i]);
          else for (let i = 0; i < keys.length; i++) joined.add(keys[i], lines[i]);
        } else {
          if (joined) {
            runs.push(joined.closeAsRun());
            joined = undefined;
          }
          const path = scratch.file(`run-${runs.length}`);
          const out = new ChunkWriter(createScratch(path));
          if (order) for (const i of order) out.line(lines[i]);
          else for (const line of lines) out.line(line);
          out.close();
          runs.push(openSync(path, 'r'));
        }
        keys = [];
        lines = [];
        chars = 0;
      };
      for await (const { key, item } of rows) {
        const k = JSON.stringify(key);
        const line = `${k}\t${JSON.stringify(item)}`;
        keys.push(k);
        lines.push(line);
        chars += line.length + 64;
        if (chars >= runChars) flush();
      }
      flush();

      if (!joined) {
        joined = new Joined(scratch.file('merged'), blockBytes);
        for (const line of merged(runs)) joined.add(keyOf(line), line);
        for (const fd of runs) closeSync(fd);
      }
      const { fd, firstKeys, offsets, ordinals, count } = joined.finish();
      // The last key, copied as the first keys are: a look-up past it reads no block.
      const lastKey = joined.last === undefined ? '' : Buffer.from(joined.last).toString();
      return new DiskJoin<T>(fd, fstatSync(fd).size, firstKeys, offsets, ordinals, lastKey, count, sortedRuns);
    } finally {
      scratch.remove();
    }
  }

  /** The block that may hold `key` (JSON): the last whose first key is not after it. */
  private blockOf(key: string): number {
    let lo = 0;
    let hi = this.firstKeys.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.firstKeys[mid] <= key) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The lines of a block, read once for all the look-ups that land in it (an export in key order: most of them). */
  private blockLines(block: number): string[] {
    if (block !== this.cached) {
      const start = this.offsets[block];
      const end = block + 1 < this.offsets.length ? this.offsets[block + 1] : this.size;
      const buf = Buffer.allocUnsafe(end - start);
      readSync(this.fd, buf, 0, buf.length, start);
      // The block ends with a newline: the last element is empty.
      this.cachedLines = buf.toString('utf8').split('\n');
      this.cached = block;
    }
    return this.cachedLines;
  }

  /** The rows of `key`, in the order they were added (none: `[]`). */
  rows(key: string): JoinedItem<T>[] {
    const k = JSON.stringify(key);
    if (k > this.lastKey) return [];
    const block = this.blockOf(k);
    if (block < 0) return [];
    const lines = this.blockLines(block);
    const prefix = `${k}\t`;
    const out: JoinedItem<T>[] = [];
    let i = 0;
    while (i < lines.length && !lines[i].startsWith(prefix)) i++;
    // The row's number: the block's first, plus the rows before it in the block.
    for (; i < lines.length && lines[i].startsWith(prefix); i++) {
      out.push({ ordinal: this.ordinals[block] + i, item: JSON.parse(lines[i].slice(prefix.length)) as T });
    }
    return out;
  }

  mark(ordinal: number): void {
    this.marks[ordinal >> 3] |= 1 << (ordinal & 7);
  }

  isMarked(ordinal: number): boolean {
    return (this.marks[ordinal >> 3] & (1 << (ordinal & 7))) !== 0;
  }

  /** Forgets every mark. */
  unmarkAll(): void {
    this.marks.fill(0);
  }

  /** The rows not marked, with their keys, in key order (read from the file). */
  *unmarked(): Generator<{ key: string; item: T }> {
    let ordinal = 0;
    for (const line of readLines(this.fd, 0, this.size)) {
      if (line === '') continue;
      if (!this.isMarked(ordinal)) {
        const tab = line.indexOf('\t');
        yield { key: JSON.parse(line.slice(0, tab)) as string, item: JSON.parse(line.slice(tab + 1)) as T };
      }
      ordinal++;
    }
  }

  /**
   * The keys none of whose rows is marked (a caller that marks a key's rows together: a key
   * joined, or never), each once with its items in the order they were added, in key order.
   */
  *unmarkedKeys(): Generator<{ key: string; items: T[] }> {
    let group: { key: string; items: T[] } | undefined;
    for (const { key, item } of this.unmarked()) {
      if (group?.key === key) group.items.push(item);
      else {
        if (group) yield group;
        group = { key, items: [item] };
      }
    }
    if (group) yield group;
  }

  /** How many rows are not marked. */
  unmarkedCount(): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (!this.isMarked(i)) n++;
    return n;
  }
}
