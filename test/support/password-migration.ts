import type { TestApi } from './api';

/** What the password migration tests (SPEC §16, §16b) share. */

/** The own Argon2id made cheap, for the hash a match stores. */
export const CHEAP_OWN_HASH = { ARGON2_MEMORY_KIB: '4096', ARGON2_ITERATIONS: '3', ARGON2_PARALLELISM: '1' };
/** The 503's text when the source cannot say. */
export const SOURCE_UNAVAILABLE = 'Password migration source is unavailable, try again later';
export const IMPORT_PATH = '/recipe/user/passwordhash/import';
export const COUNT_PATH = '/recipe/user/passwordmigration/count';

/** Whether a line the server wrote matches, waiting up to 5 s for its stdout to come through the pipe. */
export async function waitForLog(on: TestApi, match: (line: string) => boolean): Promise<boolean> {
  const until = Date.now() + 5000;
  while (!on.logs.some(match) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return on.logs.some(match);
}
