import type { Logger } from '../../log/logger';
import { migratePasswordAtSignIn } from '../../password-migration/migrate-at-sign-in';
import { countMetric } from '../../log/metrics';
import { dummyVerify, hashAlgorithmOf, hashPassword, needsRehash, verifyPassword } from '../../password';
import { publicIdOf } from '../../storage/auth-user';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { changeLogin, loginOf, storeWrite, userOf } from '../users/find-login';

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
  const { ownHash, rehashOnSignin, limits } = deps.config.password;
  const ctx = { signerKey: deps.config.signerKey, ownHash, limits };
  const found = await deps.users.getEmailPasswordLogin(tenantId, email);
  if (!found) {
    // Why: an unknown email must cost about as much as a known one, or response times would tell
    // an attacker which emails have accounts.
    await dummyVerify(password, ownHash);
    countMetric('SignIns', { HashFormat: 'none', Outcome: 'WRONG_CREDENTIALS_ERROR' });
    return { status: 'WRONG_CREDENTIALS_ERROR' };
  }
  // The guard carries the hash: verify at once, while what it names is read (nothing, when it
  // holds a snapshot of a login method on its own).
  const [guardVerdict, login] = await Promise.all([
    found.passwordHash === undefined ? Promise.resolve(undefined) : verifyPassword(password, found.passwordHash, ctx),
    loginOf(deps, found),
  ]);
  const shown = login && (await userOf(deps, login));
  const stored = shown?.loginMethod.passwordHash;
  if (shown && stored === undefined && shown.loginMethod.passwordMigration) return migratePasswordAtSignIn(deps, tenantId, password, shown, log);
  if (!shown || stored === undefined) return { status: 'WRONG_CREDENTIALS_ERROR' };
  // The login method item is authoritative: if its hash changed between the two reads, verify that one.
  const ok = found.passwordHash === stored && guardVerdict !== undefined ? guardVerdict : await verifyPassword(password, stored, ctx);
  // Sign-ins by the format of the hash they met: how much of a migrated base still has its old hash.
  const format = hashAlgorithmOf(stored) ?? 'unknown';
  countMetric('SignIns', { HashFormat: format, Outcome: ok ? 'OK' : 'WRONG_CREDENTIALS_ERROR' });
  if (!ok) return { status: 'WRONG_CREDENTIALS_ERROR' };
  if (rehashOnSignin && needsRehash(stored, ownHash)) {
    const passwordHash = await hashPassword(password, ownHash);
    // Only over the hash just verified, at the version read; a STALE result means the user changed
    // since it was read (e.g. a password change): keep theirs.
    const { result } = await changeLogin(deps, shown, (lm) => ({ ...lm, passwordHash }), storeWrite(deps));
    if (result.status === 'OK') countMetric('Rehashes', { HashFormat: format });
  }
  // A linked login method signs in as its primary user: `user.id` is the primary user's id.
  return { status: 'OK', user: toApiUser(shown.user), recipeUserId: publicIdOf(shown.loginMethod) };
}
