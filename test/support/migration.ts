import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CollisionIndex, decideUsers, type DuplicatesMode } from '../../lib/migrate/collisions';
import type { BulkLoginMethodInput, MappedUser, Source } from '../../lib/migrate/model';
import { verifyPassword } from '../../lib/password';

/** The migration fixtures (test/fixtures/migration) and what the command must make of them. */
export const MIGRATION_FIXTURES = join(__dirname, '..', 'fixtures', 'migration');

export interface ExpectedSet {
  exitCode: number;
  summary: { total: number; imported: number; skipped: number; failed: number };
  collisions: { tenant: string; key: string; sourceIds: string[] }[];
  rolesToCreate?: string[];
  orphanHashLines?: unknown[];
  users: ExpectedUser[];
  /** What the CSV export gives where it differs (rows firebase-tools writes malformed). */
  csvSummary?: ExpectedSet['summary'];
  csvExitCode?: number;
  service?: { vendor_password_hashing_signer_key: string };
}

export interface ExpectedUser {
  sourceId: string;
  label: string;
  outcome: 'imported' | 'skipped' | 'failed';
  reasonCode?: string;
  needsAction?: boolean;
  timeJoined: number;
  loginMethods: ExpectedLoginMethod[];
  password?: string;
  metadata?: Record<string, unknown>;
  roles?: string[];
  warnings?: { code: string; formats?: string[] }[];
  withOptions?: Record<string, Partial<ExpectedUser>>;
  csvOutcome?: 'failed';
  csvReasonCode?: string;
}

export interface ExpectedLoginMethod {
  recipeId: string;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  verified: boolean;
  isPrimary?: boolean;
  hashingAlgorithm?: string;
  migratePasswordOnSignIn?: boolean;
}

/**
 * A user as `--mfa report` leaves it: the login methods its `--mfa report` expectation lists, and
 * no required factors in its metadata (the option only reports; SPEC §20).
 */
export function withoutCarriedFactors(user: ExpectedUser): ExpectedUser {
  const report = user.withOptions?.['--mfa report'];
  if (!report) return user;
  const { _supertokens, ...metadata } = user.metadata ?? {};
  return { ...user, ...report, metadata: Object.keys(metadata).length > 0 ? metadata : undefined };
}

export function expectedSet(folder: string): ExpectedSet {
  return JSON.parse(readFileSync(join(folder, 'expected.json'), 'utf8'));
}

/** What the command decides for every user of a source, as its run does (both reads, no service; users that may collide come last). */
export interface Planned {
  readonly mapped: MappedUser;
  readonly outcome: 'imported' | 'skipped' | 'failed';
  readonly reasonCode?: string;
  readonly needsAction: boolean;
}

export async function plan(source: Source, duplicates: DuplicatesMode = 'fail'): Promise<{ users: Planned[]; index: CollisionIndex }> {
  const index = new CollisionIndex();
  for await (const m of source.users()) index.add(m);
  const users: Planned[] = [];
  for await (const { mapped, verdict } of decideUsers(source.users(), index, duplicates)) {
    users.push({ mapped, outcome: verdict?.outcome ?? 'imported', reasonCode: verdict?.code, needsAction: verdict?.needsAction ?? false });
  }
  return { users, index };
}

/** A bulk login method in the fixtures' terms (the fields expected.json lists). */
export function loginMethodView(lm: BulkLoginMethodInput, several: boolean): ExpectedLoginMethod {
  const view: Record<string, unknown> = {
    recipeId: lm.recipeId,
    email: lm.email,
    phoneNumber: lm.phoneNumber,
    thirdPartyId: lm.thirdPartyId,
    thirdPartyUserId: lm.thirdPartyUserId,
    verified: lm.isVerified,
    isPrimary: several ? lm.isPrimary === true : undefined,
    hashingAlgorithm: lm.hashingAlgorithm,
    migratePasswordOnSignIn: lm.migratePasswordOnSignIn,
  };
  for (const k of Object.keys(view)) if (view[k] === undefined) delete view[k];
  return view as unknown as ExpectedLoginMethod;
}

/** The warning codes an expectation lists: objects in the first fixtures, bare codes in those of SPEC §17b. */
export const warningCodes = (want: ExpectedUser): string[] => (want.warnings ?? []).map((w: { code: string } | string) => (typeof w === 'string' ? w : w.code));

/**
 * Checks a plan (default options) against a fixture's expected.json, user by user: outcome and
 * reason, creation time, login methods (recipe, identity, verified flag, primary, hashing
 * algorithm), external id, metadata, roles and warning codes; each known password verifies
 * against the hash the mapping sends, and a wrong one does not. Then the summary and exit code.
 */
export async function checkPlanAgainst(users: readonly Planned[], expected: ExpectedSet): Promise<void> {
  expect(users.map((u) => u.mapped.sourceId).sort()).toEqual(expected.users.map((u) => u.sourceId).sort());
  for (const want of expected.users) {
    const got = users.find((u) => u.mapped.sourceId === want.sourceId)!;
    const where = want.label;
    expect([where, got.outcome, got.reasonCode, got.mapped.createdAt]).toEqual([where, want.outcome, want.reasonCode, want.timeJoined]);
    expect([where, got.mapped.warnings.map((w) => w.code)]).toEqual([where, warningCodes(want)]);
    if (want.outcome !== 'imported') continue;
    const user = got.mapped.user!;
    const methods = user.loginMethods;
    expect([where, methods.map((lm) => loginMethodView(lm, methods.length > 1))]).toEqual([where, want.loginMethods]);
    for (const lm of methods) expect([where, lm.tenantIds, lm.timeJoinedInMSSinceEpoch]).toEqual([where, ['public'], want.timeJoined]);
    expect([where, user.externalUserId, user.userMetadata, user.userRoles?.map((r) => r.role)]).toEqual([where, want.sourceId, want.metadata, want.roles]);
    const hashed = methods.find((lm) => lm.passwordHash !== undefined);
    expect([where, hashed !== undefined]).toEqual([where, want.password !== undefined]);
    if (hashed && want.password !== undefined) {
      expect([where, await verifyPassword(want.password, hashed.passwordHash!, {})]).toEqual([where, true]);
      expect([where, await verifyPassword(`${want.password}x`, hashed.passwordHash!, {})]).toEqual([where, false]);
    }
  }
  const summary = { total: users.length, imported: 0, skipped: 0, failed: 0 };
  for (const u of users) summary[u.outcome]++;
  expect(summary).toEqual(expected.summary);
  expect(users.some((u) => u.needsAction) ? 1 : 0).toBe(expected.exitCode);
}
