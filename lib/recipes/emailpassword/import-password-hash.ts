import { validateImportedHash } from '../../password';
import { standaloneUser } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findEmailPasswordUser } from './find-user';

export interface ImportPasswordHashInput {
  readonly email: string;
  readonly passwordHash: string;
  readonly hashingAlgorithm?: string;
}

export type ImportPasswordHashResult = { status: 'OK'; user: ApiUser; didUserAlreadyExist: boolean };

/**
 * Imports an email-password user with an existing BCrypt, Argon2 or vendor (Firebase) scrypt hash
 * (seed 4.5). The hash is parsed fully and its cost checked against the limits; no hash is
 * computed. An existing user of that email in the tenant gets its hash replaced.
 */
export async function importPasswordHash(
  deps: Pick<Deps, 'users' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  input: ImportPasswordHashInput,
): Promise<ImportPasswordHashResult> {
  const checked = validateImportedHash(input.passwordHash, input.hashingAlgorithm, {
    limits: deps.config.password.limits,
    signerKeyConfigured: deps.config.signerKey !== undefined,
  });
  if (!checked.ok) throw new InvalidInputError(checked.message);

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
      passwordHash: checked.stored,
      version: 1,
    };
    const created = await deps.users.createUser(user);
    if (created.status === 'OK') return { status: 'OK', user: toApiUser(standaloneUser(user)), didUserAlreadyExist: false };
    const existing = await findEmailPasswordUser(deps, tenantId, input.email);
    if (!existing) return undefined;
    const replaced = await deps.users.replacePasswordHash(existing.user, existing.loginMethod, checked.stored);
    return replaced.status === 'OK' ? { status: 'OK', user: toApiUser(existing.user), didUserAlreadyExist: true } : undefined;
  });
}
