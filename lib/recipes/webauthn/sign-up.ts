import { standaloneUser } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import { invalidCredentials, type Refusal } from '../../webauthn/ceremony';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { OPTIONS_NOT_FOUND, type InvalidOptions } from './options-rules';
import { judgeRegistration } from './registration';

export type WebauthnSignUpResult =
  | { status: 'OK'; user: ApiUser; recipeUserId: string; webauthnCredentialId: string; relyingPartyId: string; relyingPartyName: string }
  | typeof OPTIONS_NOT_FOUND
  | InvalidOptions
  | Refusal
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' };

/**
 * `POST [/<t>]/recipe/webauthn/signup` (SPEC §21): a new webauthn user with the options' email
 * (unverified) and the registered passkey, in one transaction with their guards: another webauthn
 * login method with the email in the tenant is `EMAIL_ALREADY_EXISTS_ERROR`, a credential id in
 * use `INVALID_CREDENTIALS_ERROR`. Never linked here: linking is the SDK's call (SPEC §11).
 * Two calls: the options, the transaction.
 */
export async function signUp(
  deps: Pick<Deps, 'webauthn' | 'clock' | 'random'>,
  tenantId: string,
  optionsId: string,
  credential: Readonly<Record<string, unknown>>,
): Promise<WebauthnSignUpResult> {
  const options = await deps.webauthn.getOptions(optionsId);
  if (!options || options.tenantId !== tenantId) return OPTIONS_NOT_FOUND;
  const now = deps.clock.now();
  const recipeUserId = deps.random.uuid();
  const passkey = judgeRegistration(options, credential, recipeUserId, now);
  if ('status' in passkey) return passkey;
  const lm: UserRecord = {
    userId: recipeUserId,
    recipeId: 'webauthn',
    tenantIds: [tenantId],
    timeJoined: now,
    email: options.email,
    verifiedEmails: [],
    phoneVerified: false,
    webauthnCredentialIds: [passkey.credentialId],
    version: 1,
  };
  const user = standaloneUser(lm);
  const written = await deps.webauthn.writeUsersWithCredential([], [user], passkey);
  if (written.status === 'IDENTITY_TAKEN') {
    return written.identity === 'email' ? { status: 'EMAIL_ALREADY_EXISTS_ERROR' } : invalidCredentials('A credential with this id already exists');
  }
  if (written.status !== 'OK') throw new Error(`A new webauthn user's write answered ${written.status}`);
  return {
    status: 'OK',
    user: toApiUser(user),
    recipeUserId,
    webauthnCredentialId: passkey.credentialId,
    relyingPartyId: options.rpId,
    relyingPartyName: options.rpName,
  };
}
