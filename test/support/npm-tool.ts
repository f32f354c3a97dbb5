import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../local/dynamodb-local';

/**
 * The npm tools some tests run (the Firebase Auth emulator's firebase-tools, cognito-local) without
 * being dependencies of the project: each is installed from the registry on first use into a cache
 * outside the repository, shared by every checkout, so `npm ci` never pays for them. No registry:
 * the install resolves to one sentence why, and the caller's tests skip with it.
 */

/** A pinned npm package and the executable of it the tests run. */
export interface NpmTool {
  readonly name: string;
  readonly version: string;
  /** Its executable's name under `node_modules/.bin`. */
  readonly bin: string;
  /** What cannot run without it, for the skip sentence, e.g. `the Firebase Auth emulator tests`. */
  readonly purpose: string;
}

/** Where a tool is cached: outside the repository, so `npm ci` never sees it and every checkout shares it. */
export function npmToolCacheDir(tool: NpmTool): string {
  return join(homedir(), '.cache', 'auth-core-tests', `${tool.name}-${tool.version}`);
}

const binPromises = new Map<string, Promise<{ bin: string } | { skip: string }>>();

/**
 * The path of the tool's cached executable, installing it into `cache` on first use. Resolves to
 * `{ skip }` (one sentence why) when it cannot be installed, e.g. with no registry; the caller
 * decides whether that skips or fails. Memoised per process: a jest worker installs or checks at
 * most once per cache.
 */
export function npmToolBin(tool: NpmTool, cache: string = npmToolCacheDir(tool)): Promise<{ bin: string } | { skip: string }> {
  let p = binPromises.get(cache);
  if (!p) binPromises.set(cache, (p = findOrInstall(tool, cache)));
  return p;
}

/**
 * An npm install of firebase-tools takes 20-28 s here (cognito-local about 25 s), and minutes on a
 * loaded machine (one was killed at 90 s by a fixed limit). It is given the time it needs while npm
 * makes progress (uses CPU, see `progressWatch`); one that does nothing for a minute is hung (a
 * registry that never answers), and none may take longer than this however busy the machine.
 */
export const INSTALL_LIMIT_MS = 10 * 60_000;
/**
 * npm's own defaults retry an unreachable registry for ~70 s (2 retries, 10-60 s back-off) and wait
 * 5 min on a silent one; these make "no registry" a skip in seconds (refused) or ~1 min (silent).
 */
const NPM_NETWORK_FLAGS = ['--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000', '--fetch-timeout=30000'];
/** A lock whose owner cannot be checked (another host) is stale past this: no install lasts so long. */
const STALE_LOCK_MS = INSTALL_LIMIT_MS + 30_000;
/** No CPU time and no output for this long: the install or the tool it runs is hung, not slow. */
const STALL_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two jest workers (or two checkouts) may start at once, so the install is guarded twice: a lock
 * directory (`mkdir` is atomic) makes one of them install while the others wait, and the install
 * goes into a temporary sibling folder that is renamed into place only once npm succeeded, so the
 * cache folder either holds a complete install or does not exist, even if a worker is killed
 * mid-install. The lock names its owner's pid, so a lock left by a killed worker is taken over at
 * once (or, when the pid cannot be checked, once it is older than any install may last). A failed
 * install leaves its reason in `<cache>.failed`, so the workers that waited for it skip with that
 * reason instead of each paying for another failing install.
 */
async function findOrInstall(tool: NpmTool, cache: string): Promise<{ bin: string } | { skip: string }> {
  const bin = join(cache, 'node_modules', '.bin', tool.bin);
  const lock = `${cache}.lock`;
  const failed = `${cache}.failed`;
  try {
    mkdirSync(dirname(cache), { recursive: true });
  } catch (err) {
    return { skip: `the ${tool.name} cache folder ${dirname(cache)} cannot be created (${(err as Error).message}).` };
  }
  let waitedSince: number | undefined;
  for (;;) {
    if (existsSync(bin)) {
      sweepDeadInstalls(cache);
      return { bin };
    }
    if (waitedSince !== undefined) {
      const reason = readIfNewer(failed, waitedSince);
      if (reason) return { skip: reason };
    }
    try {
      mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        return { skip: `the ${tool.name} cache lock ${lock} cannot be created (${(err as Error).message}).` };
      }
      waitedSince ??= Date.now();
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
      continue;
    }
    try {
      writeFileSync(join(lock, 'owner'), `${hostname()} ${process.pid}`);
      if (existsSync(bin)) return { bin }; // installed by the lock's previous holder
      const result = await install(tool, cache, bin);
      if ('skip' in result) writeFileSync(failed, result.skip);
      else rmSync(failed, { force: true });
      return result;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Whether the install holding `lock` is dead: its process is gone, or (unknown owner) it is too old. */
function lockIsStale(lock: string): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(lock).mtimeMs;
  } catch {
    return false; // just released: the next round takes it
  }
  let owner: string;
  try {
    owner = readFileSync(join(lock, 'owner'), 'utf8');
  } catch {
    return age > 5_000; // the owner dies between its mkdir and writing its name, or never wrote it
  }
  const [host, pid] = owner.split(' ');
  if (host !== hostname()) return age > STALE_LOCK_MS;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The text of `file` if it was written at or after `since`, else undefined. */
function readIfNewer(file: string, since: number): string | undefined {
  try {
    if (statSync(file).mtimeMs + 1000 < since) return undefined; // + 1 s: coarse file-system clocks
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs npm into a temporary sibling of `cache`, then renames it into place. Called under the lock. */
async function install(tool: NpmTool, cache: string, bin: string): Promise<{ bin: string } | { skip: string }> {
  // Leftovers of installs that were killed: nobody else holds the lock, so none is in use.
  for (const name of readdirSync(dirname(cache))) {
    if (name.startsWith(`${basename(cache)}.tmp-`)) rmSync(join(dirname(cache), name), { recursive: true, force: true });
  }
  const tmp = `${cache}.tmp-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(tmp);
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: `${tool.name}-cache`, private: true, dependencies: { [tool.name]: tool.version } }, null, 2));
  // `npx jest` hands its own npm context down (npm_config_prefix=/usr, npm_config_local_prefix=<repo>,
  // npm_package_*). Dropped, so that npm installs into `tmp`, never into the repository or globally.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_(local_prefix|prefix|global_prefix)$)/.test(k) || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  const started = Date.now();
  const result = await new Promise<{ code: number | null; output: string; error?: Error; killedFor?: string }>((resolve) => {
    // Scripts off: neither tool needs one, and none run from the registry.
    const npm = spawn(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--ignore-scripts', '--no-update-notifier', '--loglevel=error', ...NPM_NETWORK_FLAGS],
      {
        cwd: tmp,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let outputBytes = 0;
    const keep = (d: Buffer) => ((outputBytes += d.length), (output = (output + d.toString()).slice(-8000)));
    npm.stdout?.on('data', keep);
    npm.stderr?.on('data', keep);
    const watch = progressWatch(npm.pid, () => outputBytes);
    let killedFor: string | undefined;
    const timer = setInterval(() => {
      killedFor = watch.verdict(INSTALL_LIMIT_MS);
      if (killedFor) npm.kill('SIGKILL');
    }, 1000);
    npm.on('error', (error) => (clearInterval(timer), resolve({ code: null, output, error })));
    npm.on('close', (code) => (clearInterval(timer), resolve({ code, output, killedFor })));
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.error || result.code !== 0 || !existsSync(join(tmp, 'node_modules', '.bin', tool.bin))) {
    rmSync(tmp, { recursive: true, force: true });
    const why =
      result.error?.message ??
      (result.code === null
        ? `npm was killed after ${seconds} s: ${result.killedFor ?? 'a signal'}`
        : lastErrorLine(result.output) || `npm exited with ${result.code}`);
    return { skip: `${tool.name}@${tool.version} could not be installed into ${cache} (${why}), so ${tool.purpose} cannot run.` };
  }
  // Whatever sits at `cache` has no executable (we checked under the lock): an incomplete folder from elsewhere.
  rmSync(cache, { recursive: true, force: true });
  renameSync(tmp, cache);
  process.stderr.write(`${tool.name}@${tool.version} installed into ${cache} in ${seconds} s\n`);
  return { bin };
}

/**
 * Removes the temporary folders of installs whose worker was killed. Its npm child outlives a
 * SIGKILLed worker and finishes into the folder (242 MB) after the next worker took the lock over,
 * so the sweep under the lock alone would miss it.
 */
function sweepDeadInstalls(cache: string): void {
  const prefix = `${basename(cache)}.tmp-${hostname()}-`;
  for (const name of readdirSync(dirname(cache))) {
    const pid = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{8}$/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid === undefined) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(dirname(cache), name), { recursive: true, force: true });
    }
  }
}

/** The most telling line of npm's output (its `npm error code …` / message lines), for a one-sentence reason. */
function lastErrorLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^npm (warn|error) (A complete log|Unknown user config|This will stop)/i.test(l));
  const errors = lines.filter((l) => /^npm (error|ERR!)/.test(l) && !/^npm (error|ERR!) (code|errno|syscall)\b/.test(l));
  return (errors[0] ?? lines[lines.length - 1] ?? '').replace(/^npm (error|ERR!)\s*/, '');
}

export function progressWatch(pid: number | undefined, outputLength: () => number): { verdict(limitMs: number): string | undefined } {
  const started = Date.now();
  let last = { cpu: cpuTicks(pid), output: outputLength(), at: started };
  return {
    verdict: (limitMs) => {
      const now = Date.now();
      const seen = { cpu: cpuTicks(pid), output: outputLength(), at: now };
      if (seen.cpu !== last.cpu || seen.output !== last.output) last = seen;
      if (now - last.at > STALL_MS) return `no CPU time and no output for ${Math.round((now - last.at) / 1000)} s`;
      if (now - started > limitMs) return `still not done after ${Math.round((now - started) / 1000)} s`;
      return undefined;
    },
  };
}

/** utime + stime + cutime + cstime of a process in clock ticks, or undefined (not Linux, gone). */
function cpuTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command name, which is in parentheses and may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  } catch {
    return undefined;
  }
}

/** `n` different free ports: `freePort` may hand back a port it gave a moment ago. */
export async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** How long `stop` waits for a clean exit before it kills the process group. */
const STOP_GRACE_MS = 5_000;

/** A tool's process started by `startTool`, answering on its port. */
export interface ToolProcess {
  /** Its stdout and stderr so far (the last 64 kB). */
  logs(): string;
  /** Stops it (`signal`, then SIGKILL to its process group after 5 s) and removes its folder. Safe to call twice. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Runs `node <args>` in its own process group (detached, so `stop` kills everything it started,
 * not only the CLI) with `dir` as its working folder, and resolves once `readyUrl` answers 2xx
 * (polled every 200 ms). Rejects with its output, after killing it and removing `dir`, if it exits
 * first, or makes no progress (CPU time or output) for a minute, or is not ready within `limitMs`.
 * A worker that dies (or forgets `stop`) leaves nothing behind: the group is killed at its exit.
 */
export async function startTool(
  what: string,
  args: string[],
  opts: { dir: string; env: NodeJS.ProcessEnv; readyUrl: string; limitMs: number },
): Promise<ToolProcess> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: opts.dir, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let outputBytes = 0;
  const keep = (d: Buffer) => ((outputBytes += d.length), (output = (output + d.toString()).slice(-64_000)));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  const exitedPromise = new Promise<void>((r) => child.on('exit', (code, signal) => ((exited = signal ?? String(code)), r())));
  child.on('error', (err) => (exited ??= err.message));
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', killGroup);

  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) =>
    (stopping ??= (async () => {
      process.off('exit', killGroup);
      if (exited === undefined && child.pid !== undefined) {
        child.kill(signal);
        const timer = setTimeout(killGroup, STOP_GRACE_MS);
        await exitedPromise;
        clearTimeout(timer);
      }
      killGroup();
      rmSync(opts.dir, { recursive: true, force: true });
    })());

  const watch = progressWatch(child.pid, () => outputBytes);
  for (;;) {
    if (exited !== undefined) {
      await stop('SIGKILL');
      throw new Error(`${what} exited (${exited}) before it answered:\n${output.trim()}`);
    }
    try {
      const res = await fetch(opts.readyUrl, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    const stuck = watch.verdict(opts.limitMs);
    if (stuck) {
      await stop('SIGKILL');
      throw new Error(`${what} did not answer on ${new URL(opts.readyUrl).origin}: ${stuck}:\n${output.trim()}`);
    }
    await sleep(200);
  }
  return { logs: () => output, stop };
}

/** A response's status and body: the JSON parsed, else the text (undefined when empty). */
export async function statusAndBody(res: Response): Promise<{ status: number; body: any }> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

/**
 * One tool for the tests of a file (started in `beforeAll`, then `setUp` with it, stopped in
 * `afterAll`), and `it` that runs a test against it: when the tool cannot be installed (no
 * registry), the reason is printed once and the tests pass without running, except in CI
 * (`CI=true`), where the suite fails with it. `limitMs` bounds the
 * `beforeAll` (install, start and set-up), past the tool's own limits, so the harness, not jest,
 * says what ran out.
 */
export function useTool<T extends { stop(): Promise<void> }>(
  what: string,
  start: () => Promise<T | { skip: string }>,
  limitMs: number,
  setUp: (tool: T) => Promise<void> = async () => {},
): (name: string, fn: (tool: T) => Promise<void>) => void {
  let tool: T | undefined;
  let skipped: string | undefined;
  beforeAll(async () => {
    const started = await start();
    if ('skip' in started) {
      // CI installs from the registry it ran `npm ci` with: there a tool that cannot be installed is a
      // failure, never a suite that passes without running.
      if (process.env.CI === 'true') throw new Error(`${what} cannot run in CI: ${started.skip}`);
      skipped = started.skip;
      console.warn(`${what} skipped: ${skipped}`);
      return;
    }
    tool = started;
    await setUp(tool);
  }, limitMs);
  afterAll(async () => {
    await tool?.stop();
  });
  return (name, fn) =>
    it(name, async () => {
      if (skipped !== undefined) return;
      await fn(tool as T);
    });
}
