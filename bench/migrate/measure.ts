import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { CollisionIndex, decideUsers } from '../../lib/migrate/collisions';
import type { Companions, MapOptions } from '../../lib/migrate/model';
import { SOURCES } from '../../lib/migrate/sources';

/**
 * One measurement of the mapping figure (bench/README.md, figure 16), in a Node process of its
 * own so that each starts from the same heap and its peak RSS is its own: the source's `open`
 * (which reads the companions) and then either one read of `users()` to the end (`read`), or the
 * command's plan (`plan`: the collision index pass, then the decide pass, as
 * `runMigration` makes them before anything is staged). Options are the command's defaults.
 */
export interface MappingJob {
  readonly source: string;
  readonly file: string;
  readonly companions: Companions;
  readonly pass: 'read' | 'plan';
}

export interface MappingResult {
  readonly users: number;
  readonly imported: number;
  readonly skipped: number;
  readonly failed: number;
  readonly ms: number;
  /** CPU time of the process (user + system, every thread) over the same span. */
  readonly cpuMs: number;
  /** Peak RSS of the process less its RSS just before `open`. */
  readonly rssGrowthBytes: number;
}

export async function measureMapping(job: MappingJob): Promise<MappingResult> {
  const definition = SOURCES.find((s) => s.name === job.source);
  if (!definition) throw new Error(`no source ${job.source}`);
  const map: MapOptions = { tenant: 'public', noHash: definition.noHash ?? 'passwordless', includeDisabled: false };
  const count = { users: 0, imported: 0, skipped: 0, failed: 0 };
  const rssBefore = process.memoryUsage.rss();
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const source = await definition.open(job.file, map, job.companions);
  if (job.pass === 'read') {
    for await (const m of source.users()) {
      count.users++;
      count[m.notImported?.outcome ?? 'imported']++;
    }
  } else {
    const index = new CollisionIndex();
    for await (const m of source.users()) index.add(m);
    for await (const { verdict } of decideUsers(source.users(), index, 'fail')) {
      count.users++;
      count[verdict?.outcome ?? 'imported']++;
    }
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  return { ...count, ms, cpuMs: (cpu.user + cpu.system) / 1000, rssGrowthBytes: process.resourceUsage().maxRSS * 1024 - rssBefore };
}

/** The CPU a measurement is pinned to (`taskset`, the last one), or undefined where there is no taskset. */
export const PINNED_CPU = existsSync('/usr/bin/taskset') ? cpus().length - 1 : undefined;

/** Runs one measurement in a fresh Node process (this one's loader, so TypeScript runs), pinned to one CPU. */
export function measureInChild(job: MappingJob): MappingResult {
  const node = [process.execPath, ...process.execArgv, __filename, JSON.stringify(job)];
  const [command, ...args] = PINNED_CPU === undefined ? node : ['taskset', '-c', String(PINNED_CPU), ...node];
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(`measuring ${job.source} (${job.pass}) exited ${run.status}: ${run.stderr.slice(-800)}`);
  return JSON.parse(run.stdout.trim().split('\n').slice(-1)[0]);
}

if (require.main === module) {
  measureMapping(JSON.parse(process.argv[2])).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
