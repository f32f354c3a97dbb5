import { build, version as esbuildVersion, type BuildOptions } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Builds only the bundles whose inputs or options changed since the last build into the same
 * place. esbuild's metafile names every input of a bundle; a state file beside the bundles keeps,
 * per bundle, a key of its options and the content hash of each of its inputs, and the files it
 * wrote. A bundle whose key and inputs are the same and whose files are all there is left as it
 * is; any other is removed and built again. Content hashes, not times: a checkout or `touch` that
 * leaves a file's bytes alone rebuilds nothing.
 */

/** One bundle: `dir` is its own (only its files are there), `options` what esbuild builds it with. */
export interface BuildJob {
  readonly id: string;
  readonly dir: string;
  readonly options: BuildOptions;
}

/** What a build did, by bundle id. */
export interface BuildReport {
  readonly built: string[];
  readonly unchanged: string[];
  /** Bundles of an earlier build that are no longer asked for: their folders were removed. */
  readonly removed: string[];
}

interface BundleState {
  /** The options (and whatever `keyOf` adds) the bundle was built with. */
  readonly key: string;
  /** Input name (as the metafile writes it) → sha256 of its content, or of the name for an input a plugin made up. */
  readonly inputs: Record<string, string>;
  /** The files in `dir` after the build, relative to it. */
  readonly outputs: string[];
}

interface State {
  readonly version: 1;
  readonly bundles: Record<string, BundleState>;
}

const STATE_VERSION = 1;

export interface IncrementalOptions {
  /** Where esbuild runs (its `absWorkingDir`): metafile input names are relative to it. */
  readonly root: string;
  /** The state file (one per set of jobs). */
  readonly stateFile: string;
  /**
   * What else decides the output beside each job's options, e.g. the source of the plugins or the
   * lockfile: when it changes, every bundle is built again.
   */
  readonly salt: string;
  /** A folder whose every sub-folder is a job's `dir`: sub-folders of no job are removed. */
  readonly pruneDir?: string;
}

export async function buildIncrementally(jobs: readonly BuildJob[], opts: IncrementalOptions): Promise<BuildReport> {
  const previous = readState(opts.stateFile);
  const hashes = new Map<string, string | undefined>();
  const hashOf = (input: string) => {
    if (!hashes.has(input)) hashes.set(input, hashInput(opts.root, input));
    return hashes.get(input);
  };

  const next: Record<string, BundleState> = {};
  const stale: BuildJob[] = [];
  const unchanged: string[] = [];
  for (const job of jobs) {
    const key = keyOf(job.options, opts.salt);
    const before = previous.bundles[job.id];
    const upToDate =
      before !== undefined &&
      before.key === key &&
      Object.entries(before.inputs).every(([input, hash]) => hashOf(input) === hash) &&
      before.outputs.length > 0 &&
      before.outputs.every((file) => existsSync(join(job.dir, file)));
    if (upToDate) {
      next[job.id] = before;
      unchanged.push(job.id);
    } else {
      stale.push(job);
    }
  }

  // Forget the bundles about to be built before touching their folders: a build killed half way
  // leaves no entry that would pass a half-written file as up to date next time.
  writeState(opts.stateFile, { version: STATE_VERSION, bundles: next });

  const removed: string[] = Object.keys(previous.bundles).filter((id) => !jobs.some((j) => j.id === id));
  if (opts.pruneDir && existsSync(opts.pruneDir)) {
    const kept = new Set(jobs.map((j) => resolve(j.dir)));
    for (const entry of readdirSync(opts.pruneDir, { withFileTypes: true })) {
      const path = resolve(opts.pruneDir, entry.name);
      if (!entry.isDirectory() || kept.has(path)) continue;
      rmSync(path, { recursive: true, force: true });
      if (!removed.includes(entry.name)) removed.push(entry.name);
    }
  }

  // Every build settles before a failure is reported, so none is still writing when it is.
  const results = await Promise.allSettled(
    stale.map(async (job) => {
      rmSync(job.dir, { recursive: true, force: true });
      const result = await build({ ...job.options, absWorkingDir: opts.root, metafile: true });
      const inputs: Record<string, string> = {};
      for (const input of Object.keys(result.metafile.inputs)) {
        hashes.delete(input); // read again: it may have changed since the check above
        // A file gone since esbuild read it never matches again: the next build rebuilds the bundle.
        inputs[input] = hashOf(input) ?? 'missing';
      }
      next[job.id] = { key: keyOf(job.options, opts.salt), inputs, outputs: filesUnder(job.dir) };
    }),
  );
  writeState(opts.stateFile, { version: STATE_VERSION, bundles: next });
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return { built: stale.map((j) => j.id), unchanged, removed };
}

/** The options that decide the output, as text: plugins by name (their source belongs in `salt`). */
function keyOf(options: BuildOptions, salt: string): string {
  const { plugins, metafile: _metafile, ...rest } = options;
  return sha256(JSON.stringify({ esbuild: esbuildVersion, salt, options: rest, plugins: plugins?.map((p) => p.name) ?? [] }));
}

/**
 * The hash of one metafile input: a file's content, read from `root`. An input esbuild or a plugin
 * made up (`<define:AUTH_CORE_ROUTE>`, from the options; `sdk-stub:event streams`, from a plugin's
 * source) hashes its name, as what it holds is in the key; a plugin's namespace naming a file
 * (`phone-metadata:/…/metadata.json`) hashes that file. Undefined when a file input is gone.
 */
function hashInput(root: string, input: string): string | undefined {
  if (/^<[^>]*>$/.test(input)) return sha256(`virtual:${input}`);
  const namespaced = /^([\w-]+):(.+)$/.exec(input);
  if (namespaced && namespaced[1] !== 'file') {
    const behind = resolve(root, namespaced[2]);
    return isFile(behind) ? sha256(readFileSync(behind)) : sha256(`virtual:${input}`);
  }
  const file = resolve(root, namespaced ? namespaced[2] : input);
  return isFile(file) ? sha256(readFileSync(file)) : undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function readState(file: string): State {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as State;
    if (state.version === STATE_VERSION && state.bundles && typeof state.bundles === 'object') return state;
  } catch {
    // none yet, or unreadable: build everything
  }
  return { version: STATE_VERSION, bundles: {} };
}

/** Written whole or not at all (a rename), so a killed build never leaves half a state file. */
function writeState(file: string, state: State): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}

/** The sha256 of files' contents together (missing files count as empty), for `salt`. */
export function hashFiles(paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const path of paths) {
    hash.update(path).update('\0');
    if (isFile(path)) hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex');
}
