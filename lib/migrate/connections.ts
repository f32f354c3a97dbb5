import { readFileSync } from 'node:fs';
import { parseTenantId } from '../http/tenant-path';
import { UsageError } from './errors';
import type { BulkLoginMethodInput, ConnectionEntry, ConnectionLookup, Warning } from './model';

/**
 * `--connections <file>` (SPEC §22): a JSON object, connection key (as the export names it: a
 * Keycloak alias, an Auth0 `connection`, a Cognito `providerName`, a Supabase `sso:<uuid>`) →
 * `{"tenantId", "thirdPartyId", "clientSecretEnv"?}`. Read and checked before anything is written
 * (a bad entry: exit 2 naming the file and the key); while the export is mapped it records which
 * keys some user has, for the report's `connection-unused` warnings.
 */

/** The most characters of a `thirdPartyId` (SPEC §3). */
const MAX_THIRD_PARTY_ID = 28;
/** An environment variable's name. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export class Connections implements ConnectionLookup {
  private readonly used = new Set<string>();
  private readonly lower = new Map<string, ConnectionEntry | null>();

  constructor(
    readonly file: string,
    private readonly entries: ReadonlyMap<string, ConnectionEntry>,
    private readonly env: NodeJS.ProcessEnv = {},
  ) {
    for (const [key, entry] of entries) {
      const k = key.toLowerCase();
      // Two keys equal but for case: neither is found by a key of another case.
      this.lower.set(k, this.lower.has(k) ? null : entry);
    }
  }

  /** Reads and checks the file: a usage error (exit 2) naming the file and the key for anything wrong. */
  static read(file: string, env: NodeJS.ProcessEnv): Connections {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new UsageError(`--connections ${file} is not readable JSON (${(err as Error).message.slice(0, 120)}).`);
    }
    if (!isObject(parsed)) throw new UsageError(`--connections ${file} is not a JSON object of connection key → {"tenantId", "thirdPartyId"}.`);
    const entries = new Map<string, ConnectionEntry>();
    for (const [key, value] of Object.entries(parsed)) {
      const bad = (what: string) => new UsageError(`--connections ${file}: connection ${JSON.stringify(key)} ${what}.`);
      if (key.trim() === '') throw new UsageError(`--connections ${file}: a connection key is empty.`);
      if (!isObject(value)) throw bad('is not an object {"tenantId", "thirdPartyId", "clientSecretEnv"?}');
      const tenantId = typeof value.tenantId === 'string' ? parseTenantId(value.tenantId) : undefined;
      if (tenantId === undefined) throw bad("has no valid tenantId (lower-case letters, digits and '-', not a reserved word or 'appid-' prefix)");
      const thirdPartyId = typeof value.thirdPartyId === 'string' ? value.thirdPartyId.trim() : '';
      if (thirdPartyId === '' || thirdPartyId.length > MAX_THIRD_PARTY_ID || !thirdPartyId.isWellFormed())
        throw bad(`has no valid thirdPartyId (a string of 1 to ${MAX_THIRD_PARTY_ID} characters)`);
      const env = value.clientSecretEnv;
      if (env !== undefined && (typeof env !== 'string' || !ENV_NAME.test(env))) throw bad('has a clientSecretEnv that is not an environment variable name');
      entries.set(key, { key, tenantId, thirdPartyId, ...(env !== undefined ? { clientSecretEnv: env } : {}) });
    }
    return new Connections(file, entries, env);
  }

  get(key: string): ConnectionEntry | undefined {
    const entry = this.entries.get(key) ?? this.lower.get(key.toLowerCase()) ?? undefined;
    if (entry !== undefined) this.used.add(entry.key);
    return entry;
  }

  /** Every entry, in file order. */
  all(): ConnectionEntry[] {
    return [...this.entries.values()];
  }

  secretFromEnv(entry: ConnectionEntry): string | undefined {
    const value = entry.clientSecretEnv !== undefined ? this.env[entry.clientSecretEnv] : undefined;
    return value !== undefined && value !== '' ? value : undefined;
  }

  /** The tenants the entries name, each once, in file order. */
  tenants(): string[] {
    return [...new Set(this.all().map((e) => e.tenantId))];
  }

  /** `connection-unused` warnings: the keys no user had (meaningful once every user was mapped). */
  unused(): Warning[] {
    return this.all()
      .filter((e) => !this.used.has(e.key))
      .map((e) => ({ code: 'connection-unused', text: `connection ${JSON.stringify(e.key)} of ${this.file}: no user of the export has it` }));
  }
}

/**
 * The login method of a mapped enterprise identity (SPEC §22): a third-party method of the
 * entry's provider, in the entry's tenant only (`assembleUser` keeps a method's own tenants).
 */
export function enterpriseMethod(entry: ConnectionEntry, thirdPartyUserId: string, email: string, isVerified: boolean): BulkLoginMethodInput {
  return { recipeId: 'thirdparty', tenantIds: [entry.tenantId], isVerified, email, thirdPartyId: entry.thirdPartyId, thirdPartyUserId };
}

/** The warning of an enterprise identity dropped: a SAML connection the mapping does not name (SPEC §22). */
export function droppedConnection(what: string): Warning {
  return {
    code: 'enterprise-connection',
    text: `${what} is a SAML connection that --connections does not map to a tenant's provider: not imported (it signs in again only through a provider the mapping names)`,
  };
}
