import { hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { createScratch, scratchFolder, sortBufferBytes } from './spill';

/**
 * Which 48-bit hashes were added twice or more (the collision index's first look: SPEC §17,
 * §17c bounded memory). Hashes are kept in a buffer of about 262,000 (2 MB, `sortBufferBytes`); once it is full, they
 * are sorted and spread by their top bits over 64 scratch files (`./spill.ts`), each later read, sorted and
 * scanned alone: memory stays at the buffer and one sixty-fourth of the hashes, and only the
 * repeated ones (a few per thousand users) are kept once every hash has been added. The answer
 * is found on the first question (`twice`, `candidate`); adding after it is a programming error.
 */

const PARTITIONS = 64;
const TOP = 2 ** 42;

/** The repeated values of a sorted array, once each. */
function repeated(sorted: Float64Array, into: Set<number>): void {
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) into.add(sorted[i]);
}

export class SeenTwiceHashes {
  private buffer: Float64Array | undefined = new Float64Array(16);
  private length = 0;
  private spilled: { fds: number[]; remove: () => void; files: string[] } | undefined;
  private found: Set<number> | undefined;

  /** `capacity`: hashes held before they go to disk (fewer in tests). */
  constructor(private readonly capacity = Math.floor(sortBufferBytes() / 32)) {}

  add(h: number): void {
    if (this.buffer === undefined) throw new Error('SeenTwiceHashes: a hash added after the repeated ones were found');
    this.buffer[this.length++] = h;
    if (this.length < this.buffer.length) return;
    if (this.length < this.capacity) {
      // Grown by doubling up to the full buffer: a small export never takes all of it.
      const grown = new Float64Array(Math.min(this.capacity, this.length * 2));
      grown.set(this.buffer);
      this.buffer = grown;
    } else this.spill();
  }

  private spill(): void {
    if (!this.spilled) {
      const scratch = scratchFolder('collisions');
      const files = Array.from({ length: PARTITIONS }, (_, i) => scratch.file(`part-${i}`));
      this.spilled = { fds: files.map((f) => createScratch(f)), remove: scratch.remove, files };
    }
    // Sorted, each partition's hashes (by their top bits) are one range of the buffer.
    const sorted = this.buffer!.subarray(0, this.length).sort();
    let from = 0;
    while (from < sorted.length) {
      const p = Math.floor(sorted[from] / TOP) % PARTITIONS;
      let to = from + 1;
      while (to < sorted.length && Math.floor(sorted[to] / TOP) % PARTITIONS === p) to++;
      writeSync(this.spilled.fds[p], new Uint8Array(sorted.buffer, from * 8, (to - from) * 8));
      from = to;
    }
    this.length = 0;
  }

  /** The hashes added twice or more. */
  get twice(): ReadonlySet<number> {
    if (this.found) return this.found;
    const found = new Set<number>();
    if (!this.spilled) {
      repeated(this.buffer!.subarray(0, this.length).sort(), found);
    } else {
      this.spill();
      const { fds, files, remove } = this.spilled;
      this.buffer = undefined;
      try {
        fds.forEach((fd) => closeSync(fd));
        for (const file of files) {
          const fd = openSync(file, 'r');
          const bytes = fstatSync(fd).size;
          const part = new Float64Array(bytes / 8);
          readSync(fd, new Uint8Array(part.buffer), 0, bytes, 0);
          closeSync(fd);
          repeated(part.sort(), found);
        }
      } finally {
        remove();
      }
    }
    this.buffer = undefined;
    this.found = found;
    return found;
  }

  has(h: number): boolean {
    return this.twice.has(h);
  }
}

const hash48 = (text: string): number => hash('sha1', text, 'buffer').readUIntBE(0, 6);

/** Texts seen once, and those seen twice or more (the candidates for an exact look), by their 48-bit hashes. */
export class SeenTwice {
  private readonly hashes = new SeenTwiceHashes();

  add(text: string): void {
    this.hashes.add(hash48(text));
  }

  candidate(text: string): boolean {
    return this.hashes.has(hash48(text));
  }
}
