import { createHash } from 'node:crypto';
import { publicIdOf } from '../../storage/auth-user';
import { isSnapshot } from '../../storage/ports/users';
import { credentialIdOf, isRefusal, type Refusal } from '../../webauthn/ceremony';
import { verifyAssertion } from '../../webauthn/verify-assertion';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findLogin, loginOf, userOf } from '../users/find-login';
import { expectedOf, expired, OPTIONS_NOT_FOUND, type InvalidOptions } from './options-rules';

export type WebauthnSignInResult =
  | { status: 'OK'; user: ApiUser; recipeUserId: string }
  | typeof OPTIONS_NOT_FOUND
  | InvalidOptions
  | Refusal
  | { status: 'CREDENTIAL_NOT_FOUND_ERROR' }
  | { status: 'UNKNOWN_USER_ID_ERROR' };

/** The assertion as sent (id, authenticatorData, clientDataJSON, signature): equal for a byte-identical repeat. */
function digestOf(credential: Readonly<Record<string, unknown>>): string {
  const r = (credential.response ?? {}) as Record<string, unknown>;
  return createHash('sha256')
    .update(JSON.stringify([credential.id, r.authenticatorData, r.clientDataJSON, r.signature]))
    .digest('hex');
}

/**
 * `POST [/<t>]/recipe/webauthn/signin` (SPEC §21), in the core's order: the options (of this
 * tenant), the credential's id and type, the passkey (its login method in this tenant, unlike
 * the core), expiry, the assertion. The first assertion accepted spends the options and stores
 * the counter in one conditional transaction; its one byte-identical repeat (SDK 24.0.0–24.0.2
 * verify every assertion twice) answers `OK` again, counter unchanged; any other assertion on
 * spent options, or a third call, finds them spent (`OPTIONS_NOT_FOUND_ERROR`, as the core's
 * single-use options from CDI 5.5). Racing calls: the transaction lets one first use through,
 * the loser reads again and is the repeat or refused. Calls: the options and the passkey (guard
 * and key) in one BatchGetItem, then the write, beside a primary user's partition (a login method
 * on its own answers from its guard's snapshot): 2, a primary user's 3.
 */
export function signIn(
  deps: Pick<Deps, 'webauthn' | 'users' | 'clock'>,
  tenantId: string,
  optionsId: string,
  credential: Readonly<Record<string, unknown>>,
): Promise<WebauthnSignInResult> {
  const credentialId = credentialIdOf(credential);
  const digest = digestOf(credential);
  return retryOnRace<WebauthnSignInResult>('WebAuthn sign-in', async () => {
    const { options, found } = await deps.webauthn.getSignInState(optionsId, typeof credentialId === 'string' ? credentialId : undefined);
    if (!options || options.tenantId !== tenantId) return OPTIONS_NOT_FOUND;
    const repeat = options.spentBy !== undefined;
    if (repeat && (options.spentBy !== digest || options.uses !== 1)) return OPTIONS_NOT_FOUND;
    if (typeof credentialId !== 'string') return credentialId;
    const login = found && (isSnapshot(found.login) ? await loginOf(deps, found.login) : await findLogin(deps, found.login));
    if (!found || !login || !login.loginMethod.tenantIds.includes(tenantId)) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' };
    const now = deps.clock.now();
    const refused = expired(options, now);
    if (refused) return refused;
    const verdict = verifyAssertion(credential, expectedOf(options), found.credential, repeat);
    if (isRefusal(verdict)) return verdict;

    const shown = userOf(deps, login).catch(() => undefined);
    const written = repeat
      ? await deps.webauthn.recordRepeat(options.id, digest)
      : await deps.webauthn.recordSignIn({
          optionsId: options.id,
          digest,
          credentialId,
          recipeUserId: found.credential.recipeUserId,
          counterRead: found.credential.counter,
          counter: verdict.counter,
          at: now,
        });
    const user = await shown;
    if (written === 'STALE') return undefined;
    if (!user) return { status: 'UNKNOWN_USER_ID_ERROR' };
    return { status: 'OK', user: toApiUser(user.user), recipeUserId: publicIdOf(user.loginMethod) };
  });
}
