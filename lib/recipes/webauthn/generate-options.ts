import { toBase64Url } from '../../webauthn/base64url';
import type { WebauthnOptionsRecord } from '../../storage/model';
import type { Deps } from '../deps';
import { optionsProblem, type InvalidOptions, type OptionsRequest } from './options-rules';

/** Stores new options of a tenant (a fresh UUID and a 32-byte challenge), `expiresAt = createdAt + timeout`. */
export async function storeOptions(
  deps: Pick<Deps, 'webauthn' | 'clock' | 'random'>,
  tenantId: string,
  r: OptionsRequest,
  email?: string,
): Promise<WebauthnOptionsRecord | InvalidOptions> {
  const problem = optionsProblem(r);
  if (problem) return problem;
  for (;;) {
    const createdAt = deps.clock.now();
    const options: WebauthnOptionsRecord = {
      id: deps.random.uuid(),
      tenantId,
      challenge: toBase64Url(deps.random.bytes(32)),
      origin: r.origin,
      rpId: r.relyingPartyId,
      rpName: r.relyingPartyName,
      ...(email !== undefined ? { email } : {}),
      timeout: r.timeout,
      userVerification: r.userVerification,
      userPresence: r.userPresence,
      createdAt,
      expiresAt: createdAt + r.timeout,
    };
    // A taken UUID is drawn again, as the core does.
    if (await deps.webauthn.putOptions(options)) return options;
  }
}
