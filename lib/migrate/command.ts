import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { Argument, Command, CommanderError, Option } from 'commander';
import type { DuplicatesMode } from './collisions';
import { Connections } from './connections';
import { UsageError } from './errors';
import type { CompanionName, Companions, MapOptions, MfaMode, NoHashMode, Source, SourceDefinition } from './model';
import type { Progress } from './plan';
import { PasskeyPlan, rpIdOption } from './passkeys';
import { assertReadableFile } from './read';
import { retryTimingFrom, ServiceClient } from './service';
import { SOURCES } from './sources';

/**
 * What the migration command's two forms share (SPEC §17, §17c): the import (`<source> <file>`)
 * and `verify <source> <file>` read an export with the same arguments and options, open it the
 * same way, reach the service the same way and show progress the same way. Each form adds its own
 * options and runs its own pass (`cli.ts`, `verify-cli.ts`).
 */

export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Where relative paths of the arguments start. */
  readonly cwd: string;
  /** Whether stderr is a terminal (a progress bar) or not (a line every 5 s). */
  readonly tty: boolean;
  readonly signal: AbortSignal;
}

/** Each companion's option, and whether it names a file. */
const COMPANION_FLAGS: Record<CompanionName, { flag: string; file: boolean }> = {
  hashConfig: { flag: '--hash-config', file: true },
  hashes: { flag: '--hashes', file: true },
  identities: { flag: '--identities', file: true },
  groups: { flag: '--groups', file: true },
  assumeVerified: { flag: '--assume-verified', file: false },
  mfaFactors: { flag: '--mfa-factors', file: true },
  usermeta: { flag: '--usermeta', file: true },
  connections: { flag: '--connections', file: true },
  webauthnCredentials: { flag: '--webauthn-credentials', file: true },
  webauthnRpId: { flag: '--webauthn-rp-id', file: false },
};

/** The arguments and options that say which export is read, how it is mapped, and where the service is. */
export function exportCommand(name: string, description: string, concurrencyHelp: string): Command {
  return new Command()
    .name(name)
    .description(description)
    .addArgument(new Argument('<source>', 'where the file comes from').choices(SOURCES.map((s) => s.name)))
    .addArgument(new Argument('<file>', `the export: ${SOURCES.map((s) => `${s.file} (${s.name})`).join(', ')}`))
    .option('--url <u>', 'the service', 'http://localhost:3567')
    .option('--api-key <k>', 'the API key (default: env AUTH_CORE_API_KEY, else .data/dev-api-key for a local --url)')
    .option('--hash-config <file>', "firebase: the project's password hash parameters (the console's text or JSON)")
    .option('--hashes <file>', "auth0: the password-hash export (NDJSON), joined to the users on their database identity's id")
    .option('--identities <file>', 'supabase: auth.identities, in the same format as the users file (CSV with header, or JSON)')
    .option('--groups <file>', 'cognito: {"<group>": <list-users-in-group output>, …}; django: a dumpdata auth.group file')
    .option('--assume-verified', 'django, wordpress: mark every imported email verified (neither keeps that fact)')
    .option('--mfa-factors <file>', 'supabase: auth.mfa_factors, in the same format as the users file (CSV with header, or JSON)')
    .option('--usermeta <file>', 'wordpress: wp_usermeta as CSV with a header row (the Two Factor plugin keeps second factors there)')
    .option(
      '--connections <file>',
      'keycloak, auth0, cognito, supabase: {"<connection>": {"tenantId", "thirdPartyId", "clientSecretEnv"?}, …}: enterprise users sign in through that tenant\'s provider',
    )
    .option(
      '--webauthn-credentials <file>',
      'supabase: auth.webauthn_credentials, in the same format as the users file: passkeys carried over (with --webauthn-rp-id)',
    )
    .option('--webauthn-rp-id <id>', "keycloak, supabase: the passkeys' RP ID where the export names none (Keycloak's host; Supabase's GOTRUE_WEBAUTHN_RP_ID)")
    .addOption(
      new Option('--mfa <mode>', 'second factors: carry them over (TOTP devices, SMS phones, required factors), or only report them')
        .choices(['carry', 'report'])
        .default('carry'),
    )
    .option('--tenant <t>', 'the target tenant', 'public')
    .addOption(
      new Option(
        '--no-hash <mode>',
        'a user with an email but no password hash and no social identity (default passwordless; cognito: migrate-on-signin)',
      ).choices(['passwordless', 'migrate-on-signin', 'skip']),
    )
    .addOption(
      new Option('--duplicates <mode>', 'users that share an identity: fail them all, or import the oldest').choices(['fail', 'oldest']).default('fail'),
    )
    .option('--include-disabled', 'import disabled (blocked, banned) users, with userMetadata.disabled = true')
    .option('--concurrency <n>', concurrencyHelp, '8')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
}

/** The options `exportCommand` parses. */
export interface ExportOptions extends Companions {
  url: string;
  apiKey?: string;
  tenant: string;
  hash: true | NoHashMode;
  duplicates: DuplicatesMode;
  mfa: MfaMode;
  includeDisabled?: boolean;
  report?: string;
  concurrency: string;
}

/**
 * Parses the arguments: undefined when the command is to run, else the exit code (help shown: 0;
 * a usage error, shown with the usage: 2).
 */
export function parseArgs(cmd: Command, argv: readonly string[], io: CliIo): number | undefined {
  try {
    cmd.parse([...argv], { from: 'user' });
    return undefined;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help') {
        io.out(cmd.helpInformation());
        return 0;
      }
      io.err(`${err.message}\n${cmd.helpInformation()}`);
      return 2;
    }
    throw err;
  }
}

const isLocal = (url: string) => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);

function apiKeyOf(opts: ExportOptions, io: CliIo): string | undefined {
  if (opts.apiKey) return opts.apiKey;
  if (io.env.AUTH_CORE_API_KEY) return io.env.AUTH_CORE_API_KEY;
  // `npm start`'s development key, where `npm start` keeps it (its folder is the package's).
  const keyFile = resolve(io.env.DATA_DIR?.trim() || '.data', 'dev-api-key');
  if (isLocal(opts.url) && existsSync(keyFile)) return readFileSync(keyFile, 'utf8').trim();
  return undefined;
}

/**
 * The companions given, checked against what the source takes (any other: exit 2) and readable.
 * (The ledger is found by source, service and tenant, not by the files' content: SPEC §17c.)
 */
function companionsOf(source: SourceDefinition, file: string, opts: ExportOptions, cwd: string): Companions {
  assertReadableFile(file, 'the export', { directory: source.directory === true });
  const companions: Record<string, unknown> = {};
  for (const [name, { flag, file: isFile }] of Object.entries(COMPANION_FLAGS) as [CompanionName, { flag: string; file: boolean }][]) {
    const value = opts[name];
    if (value === undefined) continue;
    if (!source.companions.includes(name)) {
      const takers = SOURCES.filter((s) => s.companions.includes(name)).map((s) => s.name);
      throw new UsageError(`${flag} does not apply to ${source.name}: it is for ${takers.join(' and ')}.`);
    }
    // A companion's path is the operator's, from where they typed it, as the export's is.
    const given = isFile ? resolve(cwd, value as string) : value;
    if (isFile) assertReadableFile(given as string, flag);
    companions[name] = given;
  }
  return companions;
}

/** An export opened for reading, as both forms of the command read it. */
export interface OpenedExport {
  readonly sourceName: string;
  readonly file: string;
  readonly definition: SourceDefinition;
  readonly map: MapOptions;
  readonly tenant: string;
  readonly concurrency: number;
  readonly source: Source;
  /** `--connections`, read and checked (SPEC §22). */
  readonly connections?: Connections;
  /** The service client (not yet asked anything). */
  readonly service: ServiceClient;
}

/** Checks the shared options, the export and its companions, and opens the source (usage errors: exit 2). */
export async function openExport(cmd: Command, opts: ExportOptions, io: CliIo): Promise<OpenedExport> {
  const [sourceName, fileArg] = cmd.processedArgs as [string, string];
  const file = resolve(io.cwd, fileArg);
  const concurrency = Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError('--concurrency must be an integer from 1 to 64.');
  try {
    new URL(opts.url);
  } catch {
    throw new UsageError(`--url ${opts.url} is not a URL.`);
  }
  const tenant = opts.tenant.trim().toLowerCase();
  const definition = SOURCES.find((s) => s.name === sourceName)!;
  const companions = companionsOf(definition, file, opts, io.cwd);
  const connections = companions.connections !== undefined ? Connections.read(companions.connections, io.env) : undefined;
  const map: MapOptions = {
    tenant,
    noHash: opts.hash === true ? (definition.noHash ?? 'passwordless') : opts.hash,
    includeDisabled: opts.includeDisabled === true,
    mfa: opts.mfa,
    ...(connections ? { connections } : {}),
    ...(definition.companions.includes('webauthnRpId') ? { passkeys: new PasskeyPlan(rpIdOption(companions.webauthnRpId)) } : {}),
  };
  const source: Source = await definition.open(file, map, companions);
  return {
    sourceName,
    file,
    definition,
    map,
    tenant,
    concurrency,
    source,
    ...(connections ? { connections } : {}),
    service: new ServiceClient(opts.url, apiKeyOf(opts, io), undefined, retryTimingFrom(io.env)),
  };
}

/** Progress on a terminal: a bar; otherwise one line every 5 s. */
export function progressReporter(io: CliIo): { update: (p: Progress) => void; stop: () => void } {
  const started = Date.now();
  if (io.tty) {
    const bar = new SingleBar(
      { format: '{phase} [{bar}] {value}/{total} users | {rate}/s | ETA {eta_formatted}', hideCursor: true, stream: process.stderr, etaBuffer: 50 },
      Presets.shades_classic,
    );
    let shown = false;
    return {
      update: (p) => {
        if (p.total === 0) return;
        const rate = Math.round(p.done / Math.max(0.001, (Date.now() - started) / 1000));
        if (!shown) {
          bar.start(p.total, p.done, { phase: p.phase, rate });
          shown = true;
        } else bar.update(p.done, { phase: p.phase, rate });
      },
      stop: () => bar.stop(),
    };
  }
  let last = started;
  return {
    update: (p) => {
      const now = Date.now();
      if (now - last < 5000 || p.total === 0) return;
      last = now;
      const rate = p.done / Math.max(0.001, (now - started) / 1000);
      const eta = rate > 0 ? Math.round((p.total - p.done) / rate) : undefined;
      io.err(`migrate: ${p.phase} ${p.done}/${p.total} users, ${rate.toFixed(0)}/s${eta !== undefined ? `, ETA ${eta} s` : ''}\n`);
    },
    stop: () => undefined,
  };
}
