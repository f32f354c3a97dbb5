import { createHash } from 'node:crypto';
import { accessSync, constants, createReadStream, openSync, readdirSync, readSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/Pick';
import { parser as jsonlParser } from 'stream-json/jsonl/Parser';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { streamValues } from 'stream-json/streamers/StreamValues';
import { UsageError } from './errors';

/**
 * stream-json's parser emitting whole values only (no per-character string and number tokens):
 * the streamers below assemble users from them a quarter faster (37 MB of auth:export JSON in
 * 2.2 s instead of 3.1 s on this machine).
 */
export const PARSER_OPTIONS = { streamValues: false } as const;

/** A token of stream-json's parser (`startObject`, `keyValue`, …). */
interface JsonToken {
  readonly name: string;
  readonly value?: unknown;
}

/** What a JSON export must be beyond an object with a `users` array (`usersArray`'s options). */
export interface ExportShape {
  /** Top-level keys it must also have (a Keycloak file's `realm`). */
  readonly required?: readonly string[];
  /** Whether a document without `users` is still one (a Keycloak realm file exported without its users). */
  readonly usersOptional?: boolean;
  /** Called with each top-level string, number or boolean as it streams by (before the users that follow it). */
  readonly onScalar?: (key: string, value: unknown) => void;
  /** Called once the document has been read whole, with whether it had a `users` array. */
  readonly onEnd?: (hadUsers: boolean) => void;
}

/** Tokens of a top-level scalar (the parser emits whole values only: `PARSER_OPTIONS`). */
const SCALARS = new Set(['stringValue', 'numberValue', 'trueValue', 'falseValue', 'nullValue']);

/**
 * Checks, as the tokens stream by, that a document is an object with a top-level array under
 * `key` (`users`; Cognito's `Users`) and `shape`'s keys, throwing a sentence saying what it is
 * instead (a Firebase hash config, `{}`, a bare array), so that a file that is not an export is
 * refused instead of read as zero users. The keys seen at the top level are named in the sentence
 * (at most 5). Each of several concatenated documents (`jsonStreaming`) is checked alike;
 * `documents()` counts them.
 */
function topLevelArray(key: string, shape: ExportShape = {}): { check: (token: JsonToken) => JsonToken; documents: () => number } {
  let depth = 0;
  let current: unknown;
  let found = false;
  let documents = 0;
  const keys: string[] = [];
  const seen = new Set<string>();
  const named = () => (keys.length === 0 ? 'no key at all' : `only ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`);
  const check = (token: JsonToken): JsonToken => {
    if (depth === 0) {
      if (token.name !== 'startObject') throw new Error(`it is ${token.name === 'startArray' ? 'a JSON array' : 'not a JSON object'}, not {"${key}":[…]}`);
      // A document's own object.
      documents++;
      found = false;
      keys.length = 0;
      seen.clear();
    }
    if (depth === 1 && token.name === 'keyValue') {
      current = token.value;
      seen.add(String(current));
      if (keys.length < 6) keys.push(String(current));
    } else if (depth === 1 && current === key) {
      if (token.name !== 'startArray') throw new Error(`its "${key}" is not an array`);
      found = true;
      current = undefined;
    } else if (depth === 1 && SCALARS.has(token.name)) {
      shape.onScalar?.(String(current), token.value);
    }
    if (token.name === 'startObject' || token.name === 'startArray') depth++;
    if (token.name === 'endObject' || token.name === 'endArray') {
      depth--;
      if (depth === 0) {
        const which = documents > 1 ? `its document ${documents}` : 'it';
        if (!found && !shape.usersOptional) throw new Error(`${which} has no top-level "${key}" array (${named()})`);
        const missing = (shape.required ?? []).filter((k) => !seen.has(k));
        if (missing.length > 0) throw new Error(`${which} has no top-level ${missing.map((k) => `"${k}"`).join(', ')} (${named()})`);
        shape.onEnd?.(found);
      }
    }
    return token;
  };
  return { check, documents: () => documents };
}

/**
 * The elements of the `users` array of a JSON file (`{"users":[…]}`: Firebase's `auth:export`, a
 * SuperTokens bulk file, a Keycloak export file), streamed one at a time with their index; the file
 * is never loaded whole. A document that is not such an object throws while it is read
 * (`topLevelArray`).
 */
export function usersArray(file: string, shape: ExportShape = {}): AsyncIterable<{ key: number; value: unknown }> {
  return chain([
    createReadStream(file),
    parser(PARSER_OPTIONS),
    topLevelArray('users', shape).check,
    pick({ filter: 'users' }),
    streamArray(),
  ]) as AsyncIterable<{
    key: number;
    value: unknown;
  }>;
}

/**
 * The elements of the top-level `key` arrays of every JSON document of a file: one document,
 * several concatenated or one per line (`aws … list-users` pages: `{"Users":[…]}`), streamed one
 * element at a time (`key` counts them across documents; the file is never loaded whole). A
 * document without that array throws as `usersArray` does; a file with no document at all throws
 * `it is empty`.
 */
export async function* documentsArrays(file: string, key: string): AsyncGenerator<{ key: number; value: unknown }> {
  const shape = topLevelArray(key);
  const elements = (stack: readonly unknown[]) => stack.length === 2 && stack[0] === key;
  yield* chain([openText(file), parser({ ...PARSER_OPTIONS, jsonStreaming: true }), shape.check, pick({ filter: elements }), streamValues()]) as AsyncIterable<{
    key: number;
    value: unknown;
  }>;
  if (shape.documents() === 0) throw new Error('it is empty');
}

/**
 * Throws the usage error (exit code 2) for a file the command cannot read; with `directory`, a
 * readable folder is accepted too (a Keycloak export directory).
 */
export function assertReadableFile(file: string, what: string, { directory = false } = {}): void {
  try {
    accessSync(file, constants.R_OK);
    const stat = statSync(file);
    if (!stat.isFile() && !(directory && stat.isDirectory())) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}.`);
  }
}

/** The `*.json` files of a folder (not its subfolders), in name order with numbers compared as numbers (`-users-2` before `-users-10`). */
export function jsonFilesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.json$/i.test(entry.name))
    .map((entry) => entry.name)
    .sort(new Intl.Collator('en', { numeric: true }).compare)
    .map((name) => join(dir, name));
}

/** Whether a file starts with gzip's magic bytes (Auth0 delivers its export gzipped). */
function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** The bytes of a file, gunzipped on the fly when it is gzipped. */
export function openText(file: string): Readable {
  const raw = createReadStream(file);
  return isGzip(file) ? raw.pipe(createGunzip()) : raw;
}

/**
 * What an export is, by content: the SHA-256 of its bytes, gunzipped when it is gzipped, so the
 * same export renamed, moved, or as `.ndjson` and as `.gz` is one (the ledger's key). Reads the
 * file once more, streamed: about 0.1 s per 37 MB here. A folder (a Keycloak export directory) is
 * the SHA-256 of its `*.json` files' own ids, sorted: the same files under other names are one.
 */
export async function contentId(file: string): Promise<string> {
  const hash = createHash('sha256');
  if (statSync(file).isDirectory()) {
    // One file at a time: kc.sh export writes a file per 50 users, thousands for a large realm.
    const ids: string[] = [];
    for (const member of jsonFilesOf(file)) ids.push(await contentId(member));
    hash.update(ids.sort().join('\n'));
    return hash.digest('hex');
  }
  for await (const chunk of openText(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** One line of an NDJSON file: its parsed value, or the error when it is not JSON. */
export type NdjsonLine = { readonly index: number; readonly value: unknown } | { readonly index: number; readonly error: string };

const UNREADABLE = Symbol('unreadable');

/** The lines of an NDJSON file (plain or gzipped), streamed; a line that is not JSON is reported, not fatal. */
export async function* ndjsonLines(file: string): AsyncGenerator<NdjsonLine> {
  // `errorIndicator` (stream-json ≥ 1.8) turns a line that is not JSON into a value; the bundled types predate it.
  const options = { errorIndicator: (err: Error) => ({ [UNREADABLE]: err.message }) } as Parameters<typeof jsonlParser>[0];
  const pipeline = chain([openText(file), jsonlParser(options)]);
  try {
    for await (const { key, value } of pipeline as AsyncIterable<{ key: number; value: unknown }>) {
      const bad = value !== null && typeof value === 'object' ? (value as Record<symbol, string>)[UNREADABLE] : undefined;
      yield bad !== undefined ? { index: key, error: bad } : { index: key, value };
    }
  } catch (err) {
    throw new UsageError(`${file} cannot be read as NDJSON: ${(err as Error).message}`);
  }
}
