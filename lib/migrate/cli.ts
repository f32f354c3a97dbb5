import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option } from 'commander';
import { exportCommand, openExport, parseArgs, progressReporter, type CliIo, type ExportOptions } from './command';
import { InterruptedBeforeWriting, UsageError } from './errors';
import { Ledger } from './ledger';
import { ReportWriter } from './report';
import { msFromEnv } from './service';
import { runMigration } from './run';
import { verifyMain } from './verify-cli';

export type { CliIo } from './command';

/**
 * `npm run migrate -- <source> <file> [options]` and the `auth-core-migrate` bin (SPEC §17, §17b;
 * the sources: `./sources/index.ts`). Exit code 0 when nothing failed or was skipped for a reason
 * that needs action, 1 otherwise, 2 on a usage or configuration error before anything is written.
 * `verify <source> <file> …` checks an import instead (SPEC §17c, `verify-cli.ts`).
 */

function program() {
  return exportCommand(
    'auth-core-migrate',
    'Moves a user base from another provider (or a SuperTokens bulk file) into the service through its bulk-import API. ' +
      '`auth-core-migrate verify <source> <file> …` compares the service with the export instead (verify --help).',
    'staging requests in flight',
  )
    .option('--dry-run', 'read, map and check everything; write nothing but the report')
    .option('--offline', 'with --dry-run: do not ask the service anything (no existing-user check)')
    .option('--report <file>', 'the report (default migration-report-<timestamp>.json)')
    .option('--overwrite-providers', "with --connections: replace a tenant's provider the service holds under the same id (default: keep it)")
    .option('--batch-size <n>', 'users per staging request (the service takes up to 10,000 and 6 MB)', '1000')
    .addOption(
      new Option('--prefer <side>', 'a re-run: where the export and the service both changed a field since the last run, which one wins')
        .choices(['service', 'export'])
        .default('service'),
    )
    .option('--remove-gone', 'a re-run: remove from the service the users of the last run that the export no longer imports');
}

interface Options extends ExportOptions {
  dryRun?: boolean;
  offline?: boolean;
  batchSize: string;
  overwriteProviders?: boolean;
  prefer: 'service' | 'export';
  removeGone?: boolean;
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'verify') return verifyMain(argv.slice(1), io);
  const cmd = program();
  const parsed = parseArgs(cmd, argv, io);
  if (parsed !== undefined) return parsed;
  const opts = cmd.opts<Options>();
  try {
    const batchUsers = Number(opts.batchSize);
    if (!Number.isInteger(batchUsers) || batchUsers < 1 || batchUsers > 10_000) throw new UsageError('--batch-size must be an integer from 1 to 10000.');
    if (opts.offline && !opts.dryRun) throw new UsageError('--offline goes with --dry-run only: a real run needs the service.');
    const opened = await openExport(cmd, opts, io);
    if (opts.overwriteProviders && !opened.connections) throw new UsageError('--overwrite-providers goes with --connections only.');
    const { sourceName, file, map, tenant, concurrency, source } = opened;
    const service = opts.offline ? undefined : opened.service;
    // Passkeys (SPEC §21): the plan asks this service which RP ids it imports, when a passkey is to be sent.
    map.passkeys?.useService(service);
    const checks = async () => {
      await service?.preflight(tenant);
      if (map.noHash === 'migrate-on-signin' && service && !opts.dryRun && !(await service.migratesPasswords(tenant))) {
        throw new UsageError(
          `--no-hash migrate-on-signin needs password migration at sign-in, which the service at ${opts.url} does not offer (GET /recipe/user/passwordmigration/count): use --no-hash passwordless or skip.`,
        );
      }
    };
    const reportFile = resolve(io.cwd, opts.report ?? `migration-report-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const ledger = new Ledger(Ledger.pathFor(reportFile, { source: sourceName, url: opts.url, tenant }));
    // A re-run (a ledger of this source, service and tenant exists) checks the service at its
    // first request, so that an unchanged export sends none; a first run checks it now.
    if (existsSync(ledger.file) && service) service.deferChecks(checks);
    else await checks();
    const report = new ReportWriter(reportFile);
    const progress = progressReporter(io);
    let result;
    try {
      result = await runMigration({
        source,
        service,
        dryRun: opts.dryRun === true,
        duplicates: opts.duplicates,
        concurrency,
        batchUsers,
        // How often the staged rows are followed (`MIGRATE_POLL_MS`, default 1 s; the tests shorten it).
        pollMs: msFromEnv(io.env, 'MIGRATE_POLL_MS', 1000, 10, 60_000),
        preferExport: opts.prefer === 'export',
        removeGone: opts.removeGone === true,
        ...(map.passkeys ? { passkeys: map.passkeys } : {}),
        report,
        ledger,
        signal: io.signal,
        tenant,
        ...(opened.connections ? { connections: opened.connections, overwriteProviders: opts.overwriteProviders === true } : {}),
        onProgress: progress.update,
        log: (line) => io.err(`${line}\n`),
        about: {
          source: sourceName,
          file,
          url: opts.url,
          tenant,
          options: {
            noHash: map.noHash,
            duplicates: opts.duplicates,
            includeDisabled: map.includeDisabled,
            mfa: opts.mfa,
            prefer: opts.prefer,
            removeGone: opts.removeGone === true,
          },
        },
      });
    } finally {
      progress.stop();
    }
    const { total, imported, skipped, failed } = result.summary;
    io.out(
      `${opts.dryRun ? 'dry run: ' : ''}${total} users: ${imported} ${opts.dryRun ? 'to import' : 'imported'}, ${skipped} skipped, ${failed} failed` +
        `${result.interrupted ? ' (interrupted: run the same command again to finish)' : ''}\n`,
    );
    const { updated, unchanged, conflict, goneFromSource, removed } = result.summary;
    if (unchanged !== undefined)
      io.out(
        `  since the last run: ${unchanged} unchanged, ${updated} updated, ${conflict} conflict, ${goneFromSource} gone from the source, ${removed} removed\n`,
      );
    if (report.fromLedger > 0) io.out(`  ${report.fromLedger} imported by an earlier run (the ledger): nothing sent for them\n`);
    if (report.alreadyInService > 0)
      io.out(`  ${report.alreadyInService} already in the service: a real run changes nothing of them but a changed password hash\n`);
    for (const [outcome, reasons] of Object.entries(report.reasons)) {
      io.out(
        `  ${outcome}: ${Object.entries(reasons)
          .map(([code, n]) => `${code} ${n}`)
          .join(', ')}\n`,
      );
    }
    for (const line of report.lines) io.out(`  ${line}\n`);
    io.out(`report: ${reportFile}\n`);
    return result.exitCode;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof InterruptedBeforeWriting) {
      io.err(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
