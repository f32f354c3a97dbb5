import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../figure';
import { cpuMsOf } from '../stats';
import { GENERATORS } from '.';
import { measureInChild } from './measure';

/**
 * The bounded-memory measurement of the migration command (issue #47, SPEC §17c): for a source
 * and some sizes, the bench's generator writes the export and its companions, then the built
 * command (`dist/cli/migrate.js`, `npm run build` first) runs `--dry-run --offline` on them in a
 * child process while its whole process tree's peak resident memory is followed in /proc (the
 * sum of each process's own peak, `VmHWM`: exact for one process, an upper bound for several);
 * and figure 16's read and plan passes measure users/s in a fresh process pinned to one CPU.
 *
 * `npx tsx bench/migrate/dry-run.ts auth0 250000 1000000` prints one JSON line per size
 * (`MEASURE=dry-run` or `MEASURE=passes`: only the one; `MIGRATE_CLI=<another build>/dist/cli/migrate.js`:
 * the dry run of that build). Figure 17 (`bench/figures/scale.ts`) is the dry run for every source. `npx tsx` runs it on the Node of the
 * `node` devDependency (22), as the figures.
 */

/** The pids of a process and all its descendants, from /proc. */
function tree(root: number): number[] {
  const parent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = parent.get(ppid) ?? [];
      list.push(Number(entry));
      parent.set(ppid, list);
    } catch {
      // Gone meanwhile.
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(parent.get(out[i]) ?? []));
  return out;
}

const hwmKb = (pid: number): number | undefined => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The built command a measurement runs: `MIGRATE_CLI` (another build's `dist/cli/migrate.js`, to
 * measure before and after a change with the same bench), else this repository's.
 */
export const migrateCli = (): string => process.env.MIGRATE_CLI ?? join(ROOT, 'dist', 'cli', 'migrate.js');

/**
 * Runs the command (`cli`: another build of it; `node`: Node's own flags), following its tree's
 * peak RSS and CPU time every 20 ms (the CPU time of a process is its last sample: up to 20 ms short).
 */
export function dryRun(
  args: string[],
  { env = {}, cli = migrateCli(), node = [] }: { env?: Record<string, string>; cli?: string; node?: string[] } = {},
): Promise<{ status: number | null; ms: number; cpuMs: number; peakRssBytes: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [...node, cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, ...env } });
    const peaks = new Map<number, number>();
    const cpu = new Map<number, number>();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    const sample = () => {
      for (const pid of tree(child.pid!)) {
        const kb = hwmKb(pid);
        if (kb !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, kb));
        const ms = cpuMsOf(pid);
        if (ms !== undefined) cpu.set(pid, ms);
      }
    };
    const timer = setInterval(sample, 20);
    child.on('error', reject);
    child.on('exit', (status) => {
      clearInterval(timer);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
      resolve({ status, ms, cpuMs: sum(cpu), peakRssBytes: sum(peaks) * 1024, stderr });
    });
  });
}

/** The report's summary, its second line (the report of a million users is not read whole). */
export function reportSummary(file: string): unknown {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    const line = head.toString('utf8', 0, readSync(fd, head, 0, head.length, 0)).split('\n')[1];
    return JSON.parse(`{${line.replace(/,$/, '')}}`).summary;
  } finally {
    closeSync(fd);
  }
}

const FLAGS: Record<string, string> = {
  hashConfig: '--hash-config',
  hashes: '--hashes',
  identities: '--identities',
  groups: '--groups',
  mfaFactors: '--mfa-factors',
  usermeta: '--usermeta',
  webauthnCredentials: '--webauthn-credentials',
};

/** A generated export's companions as the command's options (each a file). */
export const companionArgs = (companions: object): string[] =>
  Object.entries(companions).flatMap(([k, v]) => (typeof v === 'string' && FLAGS[k] ? [FLAGS[k], v] : []));

async function main(source: string, sizes: number[], stages: string): Promise<void> {
  const generator = GENERATORS.find((g) => g.source === source);
  if (!generator) throw new Error(`no generator for ${source}`);
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `dry-run-${source}-`));
    try {
      const written = await generator.write(dir, n, { secondFactors: true });
      const companions = companionArgs(written.companions);
      const out: Record<string, unknown> = { source, users: n, node: process.version };
      if (stages !== 'passes') {
        const run = await dryRun([source, written.file, ...companions, '--dry-run', '--offline', '--report', join(dir, 'report.json')]);
        if (run.status !== 0 && run.status !== 1) throw new Error(`migrate exited ${run.status}: ${run.stderr}`);
        const summary = reportSummary(join(dir, 'report.json'));
        out.dryRun = {
          peakRssMb: Math.round(run.peakRssBytes / 1e6),
          seconds: Math.round(run.ms / 100) / 10,
          usersPerSecond: Math.round(n / (run.ms / 1000)),
          usersPerCpuSecond: Math.round(n / (run.cpuMs / 1000)),
          summary,
        };
      }
      if (stages !== 'dry-run') {
        const job = { source, file: written.file, companions: written.companions };
        const perCpu = (r: { cpuMs: number }) => Math.round(n / (r.cpuMs / 1000));
        for (const pass of ['read', 'plan'] as const) {
          const r = measureInChild({ ...job, pass });
          out[pass] = { usersPerCpuSecond: perCpu(r), usersPerSecond: Math.round(n / (r.ms / 1000)), rssGrowthMb: Math.round(r.rssGrowthBytes / 1e6) };
        }
      }
      process.stdout.write(`${JSON.stringify(out)}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (require.main === module) {
  const [source, ...sizes] = process.argv.slice(2);
  main(source, sizes.map(Number), process.env.MEASURE ?? 'both').catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
