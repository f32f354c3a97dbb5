import { countMetric } from '../../log/metrics';
import { validateImportedHash } from '../../password/formats';
import { standaloneUser } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findEmailPasswordUser } from './find-user';

export type ImportPasswordHashInput =
  | { readonly email: string; readonly passwordHash: string; readonly hashingAlgorithm?: string }
  /** No hash (SPEC §16): the first sign-in checks the password with the previous provider. */
  | { readonly email: string; readonly migratePasswordOnSignIn: true };

export type ImportPasswordHashResult = { status: 'OK'; user: ApiUser; didUserAlreadyExist: boolean };

export const PASSWORD_MIGRATION_NOT_CONFIGURED = 'Password migration at sign-in is not configured';

/**
 * Imports an email-password user with an existing BCrypt, Argon2 or vendor (Firebase) scrypt hash
 * (seed 4.5). The hash is parsed fully and its cost checked against the limits; no hash is
 * computed. An existing user of that email in the tenant gets its hash replaced (which also ends
 * its wait for password migration).
 *
 * Without a hash (`migratePasswordOnSignIn`, SPEC §16) the user is created waiting for password
 * migration at sign-in; an existing user keeps what it has (a hash, or its wait) and the answer
 * says `didUserAlreadyExist: true`.
 */
export async function importPasswordHash(
  deps: Pick<Deps, 'users' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  input: ImportPasswordHashInput,
): Promise<ImportPasswordHashResult> {
  let stored: Pick<UserRecord, 'passwordHash' | 'passwordMigration'>;
  if ('migratePasswordOnSignIn' in input) {
    if (deps.config.passwordMigration.source === 'off') throw new InvalidInputError(PASSWORD_MIGRATION_NOT_CONFIGURED);
    stored = { passwordMigration: { markedAt: deps.clock.now() } };
  } else {
    const checked = validateImportedHash(input.passwordHash, input.hashingAlgorithm, {
      limits: deps.config.password.limits,
      signerKeyConfigured: deps.config.signerKey !== undefined,
    });
    if (!checked.ok) throw new InvalidInputError(checked.message);
    stored = { passwordHash: checked.stored };
  }

  // Create first: in a migration nearly every import is a new user, so this costs one write and
  // no read; only a taken email falls back to reading the user and replacing its hash.
  return retryOnRace('Importing the password hash', async () => {
    const user: UserRecord = {
      userId: deps.random.uuid(),
      recipeId: 'emailpassword',
      tenantIds: [tenantId],
      timeJoined: deps.clock.now(),
      email: input.email,
      verifiedEmails: [],
      phoneVerified: false,
      ...stored,
      version: 1,
    };
    const password = stored.passwordHash === undefined ? 'migrate-on-sign-in' : 'hash';
    const created = await deps.users.createUser(user);
    if (created.status === 'OK') {
      countMetric('Imports', { Password: password, Outcome: 'created' });
      return { status: 'OK', user: toApiUser(standaloneUser(user)), didUserAlreadyExist: false };
    }
    const existing = await findEmailPasswordUser(deps, tenantId, input.email);
    if (!existing) return undefined;
    const done = { status: 'OK', user: toApiUser(existing.user), didUserAlreadyExist: true } as const;
    const lm = existing.loginMethod;
    // Without a hash, or with the one it has (an export imported again): nothing to write.
    if (stored.passwordHash === undefined || stored.passwordHash === lm.passwordHash) {
      countMetric('Imports', { Password: password, Outcome: 'existed' });
      return done;
    }
    const replaced = await deps.users.replacePasswordHash(existing.user, lm, stored.passwordHash);
    if (replaced.status !== 'OK') return undefined;
    countMetric('Imports', { Password: password, Outcome: 'existed' });
    return done;
  });
}
