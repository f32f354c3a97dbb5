import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Temporary folders that go away after the test file that made them. Every `npm test` run made
 * ~400 MB of such folders and left them (the CDK suites' cloud assemblies, 24 MB each).
 */

/** The folders made by this test file (jest loads this module once per test file). */
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new folder under the system's temporary directory, removed with everything in it after this test file. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
