import { toBase64Url } from '../../webauthn/base64url';
import type { Deps } from '../deps';
import { storeOptions } from './generate-options';
import type { InvalidOptions, OptionsRequest } from './options-rules';

export type RegisterOptionsResult =
  | {
      status: 'OK';
      webauthnGeneratedOptionsId: string;
      rp: { id: string; name: string };
      user: { id: string; name: string; displayName: string };
      email: string;
      timeout: number;
      challenge: string;
      attestation: string;
      createdAt: number;
      expiresAt: number;
      pubKeyCredParams: { alg: number; type: 'public-key' }[];
      excludeCredentials: never[];
      authenticatorSelection: { requireResidentKey: boolean; residentKey: string; userVerification: string };
    }
  | InvalidOptions;

/**
 * `POST [/<t>]/recipe/webauthn/options/register` (SPEC §21): stores registration options for an
 * email. `user.id` is the id of the oldest user already holding the email in the tenant (any
 * recipe; the one a new passkey will likely be linked to), else the options' own id, as the core.
 * The lookup (the identity index) runs beside the write.
 */
export async function registerOptions(
  deps: Pick<Deps, 'webauthn' | 'userLookups' | 'clock' | 'random'>,
  tenantId: string,
  request: OptionsRequest & { email: string; displayName: string },
): Promise<RegisterOptionsResult> {
  const holders = deps.userLookups.listUsersByEmail(tenantId, request.email).catch(() => undefined);
  const options = await storeOptions(deps, tenantId, request, request.email);
  if ('status' in options) return options;
  const [holder] = (await holders) ?? (await deps.userLookups.listUsersByEmail(tenantId, request.email));
  return {
    status: 'OK',
    webauthnGeneratedOptionsId: options.id,
    rp: { id: options.rpId, name: options.rpName },
    user: { id: toBase64Url(Buffer.from(holder?.id ?? options.id, 'utf8')), name: request.email, displayName: request.displayName },
    email: request.email,
    timeout: options.timeout,
    challenge: options.challenge,
    attestation: request.attestation,
    createdAt: options.createdAt,
    expiresAt: options.expiresAt,
    pubKeyCredParams: request.supportedAlgorithmIds.map((alg) => ({ alg: alg as number, type: 'public-key' as const })),
    excludeCredentials: [],
    authenticatorSelection: {
      requireResidentKey: request.residentKey === 'required',
      residentKey: request.residentKey,
      userVerification: request.userVerification,
    },
  };
}
