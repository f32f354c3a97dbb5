import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Scratch files of the migration command's on-disk indexes (the companion joins, the collision
 * index: SPEC §17c, bounded memory). They live in a private folder (mode 0700, files 0600) under
 * the system's temporary folder (`TMPDIR`), since a companion may hold password hashes or TOTP
 * secrets; each index removes its files as soon as it no longer needs their names, and whatever a
 * run leaves (it stopped half-way) is removed when the process exits.
 */

/**
 * Memory an index may fill before it writes to disk (`MIGRATE_SORT_BUFFER_MB`, default 8): a
 * companion join's sorted run, in characters, and the collision index's hash buffer (a quarter of
 * it in 8-byte hashes per kind). Less memory means more scratch files, not a different answer.
 */
export function sortBufferBytes(): number {
  const mb = Number(process.env.MIGRATE_SORT_BUFFER_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 8) * 2 ** 20;
}

const folders = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
}

/** A new private scratch folder, removed at the latest when the process exits. */
export function scratchFolder(what: string): { readonly dir: string; file: (name: string) => string; remove: () => void } {
  if (!hooked) {
    process.on('exit', removeAll);
    hooked = true;
  }
  const dir = mkdtempSync(join(tmpdir(), `auth-core-migrate-${what}-`));
  folders.add(dir);
  return {
    dir,
    file: (name) => join(dir, name),
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      folders.delete(dir);
    },
  };
}

/** Opens a scratch file for writing, only its owner may read it. */
export const createScratch = (path: string): number => openSync(path, 'w', 0o600);

/** Text written to a file descriptor in chunks of about 1 MB, each line encoded once. */
export class ChunkWriter {
  private readonly chunk = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  /** Bytes written so far (and buffered). */
  bytes = 0;

  constructor(private readonly fd: number) {}

  /** Appends a line (the text must hold no newline); answers its length in bytes with the newline. */
  line(text: string): number {
    // A UTF-16 unit is at most 3 bytes of UTF-8: room for the worst case, or a write of its own.
    if (this.used + text.length * 3 + 1 > this.chunk.length) {
      this.flush();
      if (text.length * 3 + 1 > this.chunk.length) {
        const whole = Buffer.from(`${text}\n`);
        this.writeAll(whole, whole.length);
        this.bytes += whole.length;
        return whole.length;
      }
    }
    const bytes = this.chunk.write(text, this.used) + 1;
    this.chunk[this.used + bytes - 1] = 10;
    this.used += bytes;
    this.bytes += bytes;
    return bytes;
  }

  private writeAll(buffer: Buffer, length: number): void {
    for (let done = 0; done < length; ) done += writeSync(this.fd, buffer, done, length - done);
  }

  flush(): void {
    if (this.used === 0) return;
    this.writeAll(this.chunk, this.used);
    this.used = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** The lines of a file (or of a byte range of one), read synchronously in chunks of `chunkBytes`. */
export function* readLines(fd: number, start = 0, end = Number.POSITIVE_INFINITY, chunkBytes = 1 << 20): Generator<string> {
  const chunk = Buffer.alloc(chunkBytes);
  let position = start;
  let rest = Buffer.alloc(0);
  while (position < end) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - position), position);
    if (n === 0) break;
    position += n;
    // A chunk may end inside a multi-byte character: decode only up to its last newline.
    const last = chunk.lastIndexOf(10, n - 1);
    if (last < 0) {
      rest = Buffer.concat([rest, chunk.subarray(0, n)]);
      continue;
    }
    const lines = (rest.length === 0 ? chunk.toString('utf8', 0, last) : Buffer.concat([rest, chunk.subarray(0, last)]).toString('utf8')).split('\n');
    rest = Buffer.from(chunk.subarray(last + 1, n));
    yield* lines;
  }
  if (rest.length > 0) yield rest.toString('utf8');
}
