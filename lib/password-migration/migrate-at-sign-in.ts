import { MetricUnit, recordMetrics } from '../log/metrics';
import type { Logger } from '../log/logger';
import { hashPassword } from '../password/own-hash';
import { verifyPassword } from '../password/verify';
import type { Deps } from '../recipes/deps';
import { PasswordSourceUnavailableError } from '../recipes/errors';
import { toApiUser, type ApiUser } from '../recipes/users/api-user';
import { findLogin, updateLoginMethod, type UserLogin } from '../recipes/users/find-login';
import { publicIdOf, withPasswordHash } from '../storage/auth-user';
import { passwordMigrationSource, type Verdict } from './sources';

/** What a first sign-in answers: the outcomes of an email-password sign-in (`signIn`, which calls this). */
export type MigratedSignIn = { status: 'OK'; user: ApiUser; recipeUserId: string } | { status: 'WRONG_CREDENTIALS_ERROR' };

/** How often the write of a migrated hash is tried again when the user changed meanwhile. */
const WRITE_TRIES = 3;

/** The verdict as logs and metrics name it. */
const OUTCOME: Record<Verdict['kind'], string> = { match: 'migrated', mismatch: 'mismatch', unavailable: 'unavailable' };

/**
 * The first sign-in of a login method imported without a hash (SPEC §16): the previous provider
 * says whether the password is right, once.
 * - Match: the password is hashed with the service's own Argon2id and stored, and the mark
 *   cleared, in one write conditional on the login method not having changed since it was read.
 *   If it changed (a concurrent first sign-in stored its hash, or the password was set), the
 *   stored hash decides: both concurrent first sign-ins answer `OK` with one hash stored, and a
 *   newer password wins.
 * - Mismatch: `WRONG_CREDENTIALS_ERROR`, nothing stored.
 * - Outage, or no source configured: 503 (`PasswordSourceUnavailableError`), never a wrong
 *   password, nothing stored.
 * The verdict is counted (EMF, with the user id and the source's answer as metadata) and an outage
 * logged; never the password.
 */
export async function migratePasswordAtSignIn(
  deps: Pick<Deps, 'users' | 'config'>,
  tenantId: string,
  password: string,
  found: UserLogin,
  log: Pick<Logger, 'info' | 'warn'>,
): Promise<MigratedSignIn> {
  const userId = publicIdOf(found.loginMethod);
  // No provider takes an empty password: a definite no, not worth a call (Firebase calls it malformed).
  if (password === '') return { status: 'WRONG_CREDENTIALS_ERROR' };
  const source = passwordMigrationSource(deps.config.passwordMigration);
  if (!source) {
    log.warn('password migration: a user waiting for it signed in, but no source is configured (PASSWORD_MIGRATION_SOURCE)', { userId });
    throw new PasswordSourceUnavailableError();
  }
  const started = Date.now();
  const verdict = await source.check({ email: found.loginMethod.email ?? '', password, tenantId, userId });
  const latencyMs = Date.now() - started;
  recordMetrics(
    [
      { name: 'SignInMigrations', value: 1, unit: MetricUnit.Count },
      { name: 'SignInMigrationLatency', value: latencyMs, unit: MetricUnit.Milliseconds },
    ],
    { Source: source.kind, Outcome: OUTCOME[verdict.kind] },
    { userId, ...(verdict.kind === 'mismatch' ? { answer: verdict.code } : verdict.kind === 'unavailable' ? { reason: verdict.reason } : {}) },
  );
  if (verdict.kind === 'mismatch') return { status: 'WRONG_CREDENTIALS_ERROR' };
  if (verdict.kind === 'unavailable') {
    log.warn('password migration source unavailable', { userId, source: source.kind, reason: verdict.reason, latencyMs });
    throw new PasswordSourceUnavailableError();
  }

  const passwordHash = await hashPassword(password, deps.config.password.ownHash);
  let login: UserLogin | undefined = found;
  for (let attempt = 0; attempt < WRITE_TRIES && login; attempt++) {
    const lm = login.loginMethod;
    if (!lm.passwordMigration) {
      // Changed meanwhile: a concurrent first sign-in stored this password's hash, or a new password was set.
      const { ownHash, limits } = deps.config.password;
      const ok = lm.passwordHash !== undefined && (await verifyPassword(password, lm.passwordHash, { signerKey: deps.config.signerKey, ownHash, limits }));
      return ok ? { status: 'OK', user: toApiUser(login.user), recipeUserId: publicIdOf(lm) } : { status: 'WRONG_CREDENTIALS_ERROR' };
    }
    const after = withPasswordHash(lm, passwordHash);
    const written = await updateLoginMethod(deps, login, after);
    if (written.status === 'OK') {
      return {
        status: 'OK',
        user: toApiUser({ ...login.user, loginMethods: login.user.loginMethods.map((m) => (m.userId === lm.userId ? after : m)) }),
        recipeUserId: publicIdOf(lm),
      };
    }
    login = await findLogin(deps, { recipeUserId: lm.userId, userId: login.user.id });
  }
  // Removed meanwhile, or changed again and again: nobody to sign in.
  if (!login) return { status: 'WRONG_CREDENTIALS_ERROR' };
  throw new Error('Storing a migrated password lost the race for its user too often');
}
