import { spawnSync } from 'node:child_process';
import { DEFAULT_PASSWORD_LIMITS, validateImportedHash } from '../../../lib/password';
import type { PasswordLimits } from '../../../lib/password';

/** Validation options with the default limits and a configured signer key. */
export const OPTS = { limits: DEFAULT_PASSWORD_LIMITS, signerKeyConfigured: true };

/** Limits overridden field by field. */
export function limitsWith(overrides: Partial<PasswordLimits>): PasswordLimits {
  return { ...DEFAULT_PASSWORD_LIMITS, ...overrides };
}

/**
 * Asserts the import is refused with a message containing every fragment and no part of
 * the hash: neither the whole string nor any `$`-separated segment of 16+ characters
 * (salts and digests).
 */
export function expectRefused(hash: string, algorithm: string | undefined, fragments: readonly string[], opts = OPTS): string {
  const result = validateImportedHash(hash, algorithm, opts);
  if (result.ok) {
    throw new Error(`expected a refusal, got ok (${result.algorithm})`);
  }
  for (const fragment of fragments) {
    expect(result.message).toContain(fragment);
  }
  if (hash.length > 0) {
    expect(result.message).not.toContain(hash);
  }
  for (const segment of hash.split('$').filter((part) => part.length >= 16)) {
    expect(result.message).not.toContain(segment);
  }
  return result.message;
}

/** Asserts the import is accepted and returns what would be stored. */
export function expectAccepted(hash: string, algorithm: string | undefined, opts = OPTS): string {
  const result = validateImportedHash(hash, algorithm, opts);
  if (!result.ok) {
    throw new Error(`expected ok, got: ${result.message}`);
  }
  return result.stored;
}

/** Rewrites standard base64 into the URL-safe alphabet without padding. */
export function toUrlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Whether `tool` is on the PATH (false when `which` itself is missing). */
export function toolAvailable(tool: string): boolean {
  const result = spawnSync('which', [tool], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim() !== '';
}

/**
 * `it` when the tool is installed, otherwise `it.skip` after printing why, so a missing
 * tool never fails the suite and a present one always runs the test.
 */
export function itWithTool(tool: string, debianPackage: string): jest.It {
  if (toolAvailable(tool)) {
    return it;
  }
  console.warn(`Skipping tests that need '${tool}': it is not installed (apt-get install -y ${debianPackage})`);
  return it.skip;
}

/** Runs a tool with arguments (no shell) and optional stdin; returns stdout as bytes, throws on failure. */
export function runToolBinary(tool: string, args: readonly string[], input?: string | Buffer): Buffer {
  const result = spawnSync(tool, args, { input });
  if (result.error) {
    throw result.error;
  }
  if (result.status !== 0) {
    throw new Error(`${tool} exited with ${result.status}: ${result.stderr.toString()}`);
  }
  return result.stdout;
}

/** Runs a tool with arguments (no shell) and optional stdin; returns stdout as UTF-8 text. */
export function runTool(tool: string, args: readonly string[], input?: string | Buffer): string {
  return runToolBinary(tool, args, input).toString('utf8');
}
