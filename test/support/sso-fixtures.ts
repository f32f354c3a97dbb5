import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connections } from '../../lib/migrate/connections';
import type { BulkLoginMethodInput, MapOptions, Source } from '../../lib/migrate/model';
import { SOURCES } from '../../lib/migrate/sources';

/**
 * The enterprise-connection fixtures (test/fixtures/sso, copies of the team's shared set): each
 * source's export, `connections.json` and `expected.json` (SPEC §22), and the source opened as the
 * command opens it with the fixture's arguments and environment.
 */
export const SSO_FIXTURES = join(__dirname, '..', 'fixtures', 'sso');

export interface SsoLoginMethod {
  recipeId: string;
  email?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  verified: boolean;
  tenant: string;
}

export interface SsoUser {
  label: string;
  kind: string;
  outcome: 'imported' | 'skipped' | 'failed';
  reasonCode?: string;
  sourceId: string;
  externalUserId: string;
  timeJoined: number;
  loginMethods?: SsoLoginMethod[];
  absent?: string[];
  signIn?: { tenant: string; thirdPartyId: string };
}

export interface SsoExpected {
  source: string;
  args: string[];
  env: Record<string, string>;
  exitCode: number;
  exitCodeAlso?: number[];
  summary: { total: number; imported: number; skipped: number; failed: number };
  tenants: string[];
  providers: ({ tenantId: string; thirdPartyId: string; outcome: string } & Record<string, unknown>)[];
  secrets: string[];
  users: SsoUser[];
}

export const ssoFolder = (source: string) => join(SSO_FIXTURES, source);
export const ssoExpected = (source: string): SsoExpected => JSON.parse(readFileSync(join(ssoFolder(source), 'expected.json'), 'utf8'));

/** A bulk login method as expected.json lists it: its one tenant beside the identity and verified flag. */
export const ssoMethodView = (lm: BulkLoginMethodInput): SsoLoginMethod =>
  JSON.parse(
    JSON.stringify({
      recipeId: lm.recipeId,
      thirdPartyId: lm.thirdPartyId,
      thirdPartyUserId: lm.thirdPartyUserId,
      email: lm.email,
      verified: lm.isVerified,
      tenant: lm.tenantIds.length === 1 ? lm.tenantIds[0] : lm.tenantIds,
    }),
  );

/** The value of each option of the fixture's `args` (`--connections` → its path in the folder). */
function optionsOf(expected: SsoExpected): Map<string, string> {
  const options = new Map<string, string>();
  for (let i = 2; i < expected.args.length; i += 2) options.set(expected.args[i], expected.args[i + 1]);
  return options;
}

/**
 * The fixture's source as the command opens it: the export, its companions and `--no-hash` from
 * the fixture's args, `--connections` read with the fixture's env (`withConnections: false`: the
 * run without the option, SPEC §17b as before).
 */
export async function openSsoSource(
  sourceName: string,
  { withConnections = true, env }: { withConnections?: boolean; env?: Record<string, string> } = {},
): Promise<{ source: Source; connections?: Connections; opts: MapOptions }> {
  const expected = ssoExpected(sourceName);
  const dir = ssoFolder(sourceName);
  const definition = SOURCES.find((s) => s.name === sourceName)!;
  const options = optionsOf(expected);
  const connections = withConnections ? Connections.read(join(dir, options.get('--connections')!), env ?? expected.env) : undefined;
  const noHash = (options.get('--no-hash') ?? definition.noHash ?? 'passwordless') as MapOptions['noHash'];
  const opts: MapOptions = { tenant: 'public', noHash, includeDisabled: false, ...(connections ? { connections } : {}) };
  const identities = options.get('--identities');
  const source = await definition.open(join(dir, expected.args[1]), opts, identities ? { identities: join(dir, identities) } : {});
  return { source, ...(connections ? { connections } : {}), opts };
}
