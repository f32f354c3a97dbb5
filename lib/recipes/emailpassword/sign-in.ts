import type { Logger } from '../../log/logger';
import { countMetric } from '../../log/metrics';
import { dummyVerify, hashAlgorithmOf, hashPassword, needsRehash, verifyPassword } from '../../password';
import { publicIdOf, standaloneUser } from '../../storage/auth-user';
import type { LoginMethodView, UserView } from '../../storage/model';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findLogin, findLoginOfGuard, updateLoginMethod } from '../users/find-login';
import { migratePasswordAtSignIn } from './migrate-password';

export type SignInResult = { status: 'OK'; user: ApiUser; recipeUserId: string } | { status: 'WRONG_CREDENTIALS_ERROR' };

/**
 * Signs an email-password user in. The verifier is chosen from the stored hash's own format.
 * After a successful sign-in with an imported hash, the password is re-hashed with the service's
 * own Argon2id parameters (config `password.rehashOnSignin`), written only if the user did not
 * change meanwhile, so a concurrent password change always wins. A user imported without a hash
 * is checked by the previous provider (`migratePasswordAtSignIn`, SPEC §16).
 */
export async function signIn(
  deps: Pick<Deps, 'users' | 'config'>,
  tenantId: string,
  email: string,
  password: string,
  log: Pick<Logger, 'info' | 'warn'>,
): Promise<SignInResult> {
  const { ownHash, rehashOnSignin } = deps.config.password;
  const ctx = { signerKey: deps.config.signerKey };
  const login = await deps.users.getEmailPasswordLogin(tenantId, email);
  if (!login) {
    // Why: an unknown email must cost about as much as a known one, or response times would tell
    // an attacker which emails have accounts.
    await dummyVerify(password, ownHash);
    countMetric('SignIns', { HashFormat: 'none', Outcome: 'WRONG_CREDENTIALS_ERROR' });
    return { status: 'WRONG_CREDENTIALS_ERROR' };
  }
  // The guard carries the hash: verify at once. For a login method on its own it also carries a
  // copy of it (written with it), so nothing more is read; else the user is read meanwhile.
  const copy = login.loginMethod;
  const [guardVerdict, read] = await Promise.all([
    login.passwordHash === undefined ? Promise.resolve(undefined) : verifyPassword(password, login.passwordHash, ctx),
    copy ? Promise.resolve(undefined) : findLogin(deps, login),
  ]);
  const shown: { user: UserView; loginMethod: LoginMethodView } | undefined = read ?? (copy && { user: standaloneUser(copy), loginMethod: copy });
  const stored = shown?.loginMethod.passwordHash;
  // What sign-in writes (a migrated password, a rehash) it writes over the login method read whole,
  // at its version: the guard's copy when it holds the version (storage format 7), else the user read.
  const whole = async () => read ?? (await findLoginOfGuard(deps, login));
  if (shown && stored === undefined && shown.loginMethod.passwordMigration) {
    const found = await whole();
    return found ? migratePasswordAtSignIn(deps, tenantId, password, found, log) : { status: 'WRONG_CREDENTIALS_ERROR' };
  }
  if (!shown || stored === undefined) return { status: 'WRONG_CREDENTIALS_ERROR' };
  // The login method item is authoritative: if its hash changed between the two reads, verify that one.
  const ok = login.passwordHash === stored && guardVerdict !== undefined ? guardVerdict : await verifyPassword(password, stored, ctx);
  // Sign-ins by the format of the hash they met: how much of a migrated base still has its old hash.
  const format = hashAlgorithmOf(stored) ?? 'unknown';
  countMetric('SignIns', { HashFormat: format, Outcome: ok ? 'OK' : 'WRONG_CREDENTIALS_ERROR' });
  if (!ok) return { status: 'WRONG_CREDENTIALS_ERROR' };
  if (rehashOnSignin && needsRehash(stored, ownHash)) {
    const [passwordHash, found] = await Promise.all([hashPassword(password, ownHash), whole()]);
    // Only over the hash just verified; a STALE result means the user changed since it was read
    // (e.g. a password change): keep theirs.
    const rehashed = found && found.loginMethod.passwordHash === stored ? await updateLoginMethod(deps, found, { ...found.loginMethod, passwordHash }) : undefined;
    if (rehashed?.status === 'OK') countMetric('Rehashes', { HashFormat: format });
  }
  // A linked login method signs in as its primary user: `user.id` is the primary user's id.
  return { status: 'OK', user: toApiUser(shown.user), recipeUserId: publicIdOf(shown.loginMethod) };
}
