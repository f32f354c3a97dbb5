import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger, sentOf } from '../../lib/migrate/ledger';
import type { MapOptions } from '../../lib/migrate/model';
import { SOURCES } from '../../lib/migrate/sources';
import { companionArgs, dryRun } from './dry-run';
import { GENERATORS } from '.';

/**
 * A re-run's memory (SPEC §17c, bounded memory: the ledger): for a source and some sizes, the
 * bench's generator writes the export, a ledger is written as a first run that imported every
 * importable user would leave it, and the built command (`dist/cli/migrate.js`, `npm run build`
 * first; `MIGRATE_CLI` another build of it) runs `--dry-run --offline` on the export again, every
 * user answered by the ledger, while its peak resident memory is followed (`dryRun`).
 *
 * `npx tsx bench/migrate/re-run.ts firebase 250000 1000000` prints one JSON line per size.
 */

async function main(source: string, sizes: number[]): Promise<void> {
  const generator = GENERATORS.find((g) => g.source === source);
  const definition = SOURCES.find((s) => s.name === source);
  if (!generator || !definition) throw new Error(`no generator for ${source}`);
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `re-run-${source}-`));
    try {
      const written = await generator.write(dir, n);
      const report = join(dir, 'report.json');
      const ledger = new Ledger(Ledger.pathFor(report, { source, url: 'http://localhost:3567', tenant: 'public' }));
      const map: MapOptions = { tenant: 'public', noHash: definition.noHash ?? 'passwordless', includeDisabled: false };
      let recorded = 0;
      for await (const m of (await definition.open(written.file, map, written.companions)).users()) {
        if (m.notImported || !m.user) continue;
        ledger.record(m.sourceId, m.user.externalUserId ?? m.sourceId, sentOf(m.user));
        recorded++;
      }
      ledger.close();
      const companions = companionArgs(written.companions);
      const run = await dryRun([source, written.file, ...companions, '--dry-run', '--offline', '--report', report]);
      if (run.status !== 0 && run.status !== 1) throw new Error(`migrate exited ${run.status}: ${run.stderr}`);
      const out = {
        source,
        users: n,
        inLedger: recorded,
        node: process.version,
        peakRssMb: Math.round(run.peakRssBytes / 1e6),
        seconds: Math.round(run.ms / 100) / 10,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (require.main === module) {
  const [source, ...sizes] = process.argv.slice(2);
  main(source, sizes.map(Number)).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
