import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { round, table } from '../stats';
import { SOURCES } from '../../lib/migrate/sources';
import { GENERATORS } from '../migrate';
import { companionArgs, dryRun, migrateCli, reportSummary } from '../migrate/dry-run';
import type { Figure, Report } from '../figure';

export const figure: Figure = { name: 'scale', number: 17, needs: 'nothing', run: scaleDryRun };

/** Users of each export in the scale figure (`BENCH_SCALE_USERS`, a comma-separated list). */
const SCALE_USERS = [250_000, 1_000_000];

/**
 * Figure 17, bounded memory (issue #47, SPEC §17c): the built command's `--dry-run --offline` on
 * exports of a quarter of a million and a million users, per source. For each source of `SOURCES`
 * with a generator (the first of its generators: Firebase's JSON), at each size, the generator
 * writes the export and its companions into a temporary folder; the command (`dist/cli/migrate.js`,
 * or `MIGRATE_CLI`: another build's) reads, maps and plans it in a child process while its process
 * tree's peak RSS and CPU time are followed in /proc (`bench/migrate/dry-run.ts`). Each export is
 * removed once measured. The ratio is a build's peak at each size over its peak at the smallest.
 * `BENCH_SCALE_BEFORE` names another build that runs each export too, just before this one.
 */
async function scaleDryRun({ say, results }: Report): Promise<void> {
  const sizes = (process.env.BENCH_SCALE_USERS?.split(',').map(Number) ?? SCALE_USERS).sort((a, b) => a - b);
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('BENCH_SCALE_USERS must be a comma-separated list of user counts');
  // `BENCH_SCALE_SOURCES=auth0,supabase`: measure only these.
  const only = process.env.BENCH_SCALE_SOURCES?.split(',');
  // `BENCH_SCALE_BEFORE=<another build>/dist/cli/migrate.js`: that build runs each export too, just before this one.
  const builds = [
    ...(process.env.BENCH_SCALE_BEFORE ? [{ build: 'before', cli: process.env.BENCH_SCALE_BEFORE }] : []),
    { build: process.env.BENCH_SCALE_BEFORE ? 'after' : 'this', cli: migrateCli() },
  ];
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown>[] = [];
  // In the order `BENCH_SCALE_SOURCES` names them, else `SOURCES`'.
  const definitions = only ? only.flatMap((name) => SOURCES.filter((d) => d.name === name)) : SOURCES;
  for (const definition of definitions) {
    const generator = GENERATORS.find((g) => g.source === definition.name);
    if (!generator) {
      rows.push([definition.name, 'no generator', '', '', '', '', '', '', '']);
      figures.push({ source: definition.name, generator: null });
      continue;
    }
    const peaks = new Map<string, number>();
    for (const n of sizes) {
      const dir = mkdtempSync(join(tmpdir(), `bench-scale-${definition.name}-`));
      try {
        const written = await generator.write(dir, n);
        const files = [written.file, ...Object.values(written.companions).filter((v): v is string => typeof v === 'string')];
        const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
        const companions = companionArgs(written.companions);
        for (const { build, cli } of builds) {
          const report = join(dir, `report-${build}.json`);
          const run = await dryRun([definition.name, written.file, ...companions, '--dry-run', '--offline', '--report', report], { cli });
          if (run.status !== 0 && run.status !== 1) throw new Error(`migrate ${definition.name} (${n} users, ${cli}) exited ${run.status}: ${run.stderr}`);
          const summary = reportSummary(report);
          const peakMb = round(run.peakRssBytes / 1e6, 0);
          const smallest = peaks.get(build);
          if (smallest === undefined) peaks.set(build, peakMb);
          const ratio = smallest === undefined ? null : round(peakMb / smallest, 2);
          const measured = {
            source: definition.name,
            format: generator.format,
            build,
            cli,
            users: n,
            bytes,
            peakRssMb: peakMb,
            seconds: round(run.ms / 1000, 1),
            cpuSeconds: round(run.cpuMs / 1000, 1),
            usersPerSecond: round(n / (run.ms / 1000), 0),
            usersPerCpuSecond: round(n / (run.cpuMs / 1000), 0),
            rssRatio: ratio,
            summary,
          };
          figures.push(measured);
          // A line per run as it ends: a run of every source takes a while.
          process.stderr.write(`${JSON.stringify({ ...measured, summary: undefined })}\n`);
          rows.push([
            definition.name,
            build,
            n,
            round(bytes / 1e6, 0),
            peakMb,
            `${round(run.ms / 1000, 1)} (${round(run.cpuMs / 1000, 1)})`,
            `${round(n / (run.ms / 1000), 0)} (${round(n / (run.cpuMs / 1000), 0)})`,
            ratio ?? '',
            generator.format,
          ]);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  results.scale = { builds, sizes, runs: figures };
  const which = builds.map((b) => `${b.build}: ${b.cli}`).join('; ');
  say(`\n### 17. Bounded memory: \`--dry-run --offline\` at ${sizes.join(' and ')} users per source (${which}; no service)\n`);
  say(table(['source', 'build', 'users', 'MB read', 'peak RSS MB', 's (CPU s)', 'users/s (per CPU s)', `RSS ÷ at ${sizes[0]}`, 'export (+ companions)'], rows));
}
