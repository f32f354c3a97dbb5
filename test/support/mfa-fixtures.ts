import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkTotpDeviceInput, BulkUserInput } from '../../lib/migrate/model';

/**
 * The second-factor fixtures (SPEC §20, `test/fixtures/mfa/<source>/`, copies of the team's shared
 * ones) and what the migration command must make of every user: each folder's `expected.json`,
 * written independently of the command.
 */
export const MFA_FIXTURES = join(__dirname, '..', 'fixtures', 'mfa');

export interface MfaDevice {
  name: string;
  period: number;
  skew: number;
  /** The base32 secret a code is computed from. */
  secret: string;
  /** The source's own form of it (Keycloak's raw text, django's hex), which must never be sent. */
  raw?: string;
}

export interface MfaExpectedUser {
  sourceId: string;
  label: string;
  kind: string;
  outcome: 'imported' | 'skipped' | 'failed';
  externalUserId: string;
  timeJoined: number;
  loginMethods: { recipeId: string; email?: string; phoneNumber?: string; verified: boolean }[];
  password?: string;
  /** Keys the user's metadata must still hold with these values. */
  metadata?: Record<string, unknown>;
  mfa: {
    devices: MfaDevice[];
    requiredSecondaryFactors: string[];
    warnings: string[];
    rawSecrets?: string[];
    unverifiedSecrets?: string[];
    encryptedPlainSecret?: string;
  };
}

export interface MfaExpectedSet {
  source: string;
  /** The command's arguments, paths relative to the fixture's folder. */
  args: string[];
  exitCode: number;
  /** Other exit codes the run may end with (a warning the operator must read). */
  exitCodeAlso?: number[];
  summary: { total: number; imported: number; skipped: number; failed: number };
  signerKey?: string;
  users: MfaExpectedUser[];
}

export const MFA_SOURCES = ['clerk', 'supabase', 'keycloak', 'django', 'wordpress', 'firebase'] as const;

export function mfaSet(source: string): { dir: string; set: MfaExpectedSet } {
  const dir = join(MFA_FIXTURES, source);
  return { dir, set: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
}

/** Every secret of a fixture, in every form: none may reach the report, the ledger or the terminal. */
export function secretsOf(set: MfaExpectedSet): string[] {
  const all = set.users.flatMap((u) => [
    ...u.mfa.devices.flatMap((d) => [d.secret, ...(d.raw ? [d.raw] : [])]),
    ...(u.mfa.rawSecrets ?? []),
    ...(u.mfa.unverifiedSecrets ?? []),
    ...(u.mfa.encryptedPlainSecret ? [u.mfa.encryptedPlainSecret] : []),
  ]);
  return [...new Set(all)];
}

/** Secrets that must never be carried (not enabled, not verified, encrypted, of a device that cannot be). */
export const neverCarried = (u: MfaExpectedUser): string[] => [
  ...(u.mfa.rawSecrets ?? []),
  ...(u.mfa.unverifiedSecrets ?? []),
  ...(u.mfa.encryptedPlainSecret ? [u.mfa.encryptedPlainSecret] : []),
];

/**
 * The devices a bulk user's `totpDevices` become, as the service names them: the given name, or
 * `TOTP Device <n>` (n from 0, skipping names taken; SPEC §20's default).
 */
export function devicesAsImported(devices: readonly BulkTotpDeviceInput[] = []): MfaDevice[] {
  const taken = new Set(devices.flatMap((d) => (d.deviceName ? [d.deviceName] : [])));
  let n = 0;
  return devices.map((d) => {
    let name = d.deviceName;
    if (name === undefined) {
      while (taken.has(`TOTP Device ${n}`)) n++;
      name = `TOTP Device ${n}`;
      taken.add(name);
    }
    return { name, period: d.period, skew: d.skew, secret: d.secretKey };
  });
}

const withoutRaw = ({ raw: _raw, ...device }: MfaDevice): MfaDevice => device;
export const expectedDevices = (u: MfaExpectedUser): MfaDevice[] => u.mfa.devices.map(withoutRaw);

/** `_supertokens.requiredSecondaryFactors` of a bulk user's metadata (`[]` when none). */
export function requiredOf(user: Pick<BulkUserInput, 'userMetadata'> | undefined): unknown {
  const own = user?.userMetadata?._supertokens as { requiredSecondaryFactors?: unknown } | undefined;
  return own?.requiredSecondaryFactors ?? [];
}
