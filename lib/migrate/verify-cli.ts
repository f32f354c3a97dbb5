import { resolve } from 'node:path';
import { exportCommand, openExport, parseArgs, progressReporter, type CliIo, type ExportOptions } from './command';
import { InterruptedBeforeWriting, UsageError } from './errors';
import { Ledger } from './ledger';
import { runVerify } from './verify';
import { DiskExportIds, TERMINAL_LINES, VerifyReport } from './verify-report';

/**
 * `auth-core-migrate verify <source> <file> [companions…] [options]` (SPEC §17c): the export's
 * arguments and mapping options exactly as the import takes them, `--extra`, and a report. Exit
 * code 0 when every user is `match` or `absent-as-planned` (and, with `--extra`, the service has
 * no user the export lacks), 1 otherwise, 2 on a usage or configuration error.
 */

interface Options extends ExportOptions {
  extra?: boolean;
}

function program() {
  return exportCommand(
    'auth-core-migrate verify',
    'Compares the service with an export, user by user, by external id; writes nothing to the service. ' +
      'Give it the export and the options the import was given.',
    'users checked at once (each: GET /user/id, and one read per kind of mapped data: metadata, roles, TOTP devices)',
  )
    .option('--extra', "also list the tenant's users that are not in the export (GET /users, every page)")
    .option('--report <file>', 'the report (default verify-<source>-<timestamp>.json)');
}

export async function verifyMain(argv: readonly string[], io: CliIo): Promise<number> {
  const cmd = program();
  const parsed = parseArgs(cmd, argv, io);
  if (parsed !== undefined) return parsed;
  const opts = cmd.opts<Options>();
  try {
    const opened = await openExport(cmd, opts, io);
    const { sourceName, file, map, tenant, service } = opened;
    await service.preflight(tenant);
    const reportFile = resolve(io.cwd, opts.report ?? `verify-${sourceName}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    // Passkeys (SPEC §21): verify cannot ask which RP ids the service imports (a POST); the
    // import's ledger (next to the report, as the import finds it) remembers its answer.
    const rpIds = map.passkeys ? await Ledger.readPasskeyRpIds(Ledger.pathFor(reportFile, { source: sourceName, url: opts.url, tenant })) : undefined;
    if (rpIds) map.passkeys!.remember(rpIds);
    const report = new VerifyReport(reportFile);
    const progress = progressReporter(io);
    let result;
    try {
      result = await runVerify({
        source: opened.source,
        service,
        tenant,
        duplicates: opts.duplicates,
        concurrency: opened.concurrency,
        report,
        ...(opts.extra ? { exportIds: new DiskExportIds() } : {}),
        signal: io.signal,
        onProgress: progress.update,
        about: {
          verify: true,
          source: sourceName,
          file,
          url: opts.url,
          tenant,
          options: { noHash: map.noHash, duplicates: opts.duplicates, includeDisabled: map.includeDisabled, mfa: opts.mfa, extra: opts.extra === true },
        },
      });
    } finally {
      progress.stop();
    }
    const s = result.summary;
    io.out(
      `verify: ${s.total} users: ${s.match} match, ${s.different} different, ${s.missing} missing, ${s.absentAsPlanned} absent as planned, ` +
        `${s.unexpected} unexpected${opts.extra ? `, ${s.extra} extra` : ''}` +
        `${result.interrupted ? ' (interrupted: run it again to check every user)' : ''}\n`,
    );
    if (result.stopped !== undefined) io.out(`  stopped: ${result.stopped}; run it again\n`);
    for (const line of report.lines) io.out(`  ${line}\n`);
    if (report.toLookAt > report.lines.length) io.out(`  … the first ${TERMINAL_LINES} of ${report.toLookAt}: the report has every one\n`);
    io.out(`report: ${reportFile}\n`);
    return result.exitCode;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof InterruptedBeforeWriting) {
      io.err('interrupted while reading the export: nothing was checked\n');
      return 1;
    }
    throw err;
  }
}
