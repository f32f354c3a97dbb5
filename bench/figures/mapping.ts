import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { round, table } from '../stats';
import { SOURCES } from '../../lib/migrate/sources';
import { GENERATORS } from '../migrate';
import { measureInChild, PINNED_CPU, type MappingResult } from '../migrate/measure';
import type { Figure, Report } from '../figure';

export const figure: Figure = { name: 'mapping', number: 16, needs: 'nothing', run: mappingThroughput };

/** Users of each source's export in the mapping figure (`BENCH_MAPPING_USERS`). */
const MAPPING_USERS = 100_000;

/**
 * Figure 16, mapping (issue #37): the migration command's read + map throughput per source, in
 * process, no service. For each source of `SOURCES`, each of its generators (bench/migrate/)
 * writes `BENCH_MAPPING_USERS` (100,000) users of one population in the source's own format; then,
 * each in a fresh Node process pinned to one CPU (bench/migrate/measure.ts): the source's `open`
 * (its companions read) and one read of `users()` to the end, and the command's plan (`open`, the
 * collision index pass, the decide pass). A source without a generator is listed as such.
 */
async function mappingThroughput({ say, results }: Report): Promise<void> {
  const n = Number(process.env.BENCH_MAPPING_USERS ?? MAPPING_USERS);
  const dir = mkdtempSync(join(tmpdir(), 'bench-mapping-'));
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown>[] = [];
  const s = (ms: number) => round(ms / 1000, 1);
  const mb = (bytes: number) => round(bytes / 1e6, 1);
  try {
    // `BENCH_MAPPING_SOURCES=cognito,clerk`: measure only these (a row again after a change).
    const only = process.env.BENCH_MAPPING_SOURCES?.split(',');
    for (const definition of SOURCES.filter((d) => !only || only.includes(d.name))) {
      const generators = GENERATORS.filter((g) => g.source === definition.name);
      if (generators.length === 0) {
        rows.push([definition.name, 'no generator', '', '', '', '', '', '', '', '']);
        figures.push({ source: definition.name, generator: null });
      }
      for (const generator of generators) {
        const sub = mkdtempSync(join(dir, `${generator.source}-`));
        const written = await generator.write(sub, n);
        const files = [written.file, ...Object.values(written.companions).filter((v): v is string => typeof v === 'string')];
        const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
        const job = { source: generator.source, file: written.file, companions: written.companions };
        const read = measureInChild({ ...job, pass: 'read' });
        const plan = measureInChild({ ...job, pass: 'plan' });
        rmSync(sub, { recursive: true, force: true });
        if (read.users !== n || plan.users !== n) throw new Error(`${generator.source} (${generator.format}) read ${read.users} / ${plan.users} users of ${n}`);
        // Per second of wall time, and per second of the process's CPU time (what the core gives when not shared).
        const perSecond = (r: MappingResult) => `${round(n / (r.ms / 1000), 0)} (${round(n / (r.cpuMs / 1000), 0)})`;
        figures.push({ source: generator.source, format: generator.format, users: n, bytes, read, plan, pinnedCpu: PINNED_CPU ?? null });
        rows.push([
          definition.name,
          generator.format,
          mb(bytes),
          perSecond(read),
          round(bytes / 1e6 / (read.ms / 1000), 1),
          `${s(read.ms)} (${s(read.cpuMs)})`,
          perSecond(plan),
          `${s(plan.ms)} (${s(plan.cpuMs)})`,
          `${mb(read.rssGrowthBytes)} / ${mb(plan.rssGrowthBytes)}`,
          `${plan.imported} / ${plan.skipped} / ${plan.failed}`,
        ]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  results.mapping = figures;
  const pinned = PINNED_CPU === undefined ? 'not pinned (no taskset)' : `pinned to CPU ${PINNED_CPU}`;
  say(`\n### 16. Mapping throughput per source (${n} users each; open + read + map in a fresh Node process ${pinned}; no service)\n`);
  say(
    table(
      [
        'source',
        'export (+ companions)',
        'MB read',
        'read: users/s (per CPU s)',
        'read: MB/s',
        'read: s (CPU s)',
        'plan: users/s (per CPU s)',
        'plan: s (CPU s)',
        'peak RSS growth MB, read / plan',
        'plan: imported / skipped / failed',
      ],
      rows,
    ),
  );
}
