import type { Deps } from '../deps';
import { storeOptions } from './generate-options';
import type { InvalidOptions, OptionsRequest } from './options-rules';

export type SignInOptionsResult =
  | {
      status: 'OK';
      webauthnGeneratedOptionsId: string;
      relyingPartyId: string;
      challenge: string;
      timeout: number;
      userVerification: string;
      userPresence: boolean;
      createdAt: number;
      expiresAt: number;
    }
  | InvalidOptions;

/**
 * `POST [/<t>]/recipe/webauthn/options/signin` (SPEC §21): options for a discoverable-credential
 * sign-in (no `allowCredentials`), checked as the core checks them (attestation `none`,
 * residentKey `required`).
 */
export async function signInOptions(
  deps: Pick<Deps, 'webauthn' | 'clock' | 'random'>,
  tenantId: string,
  request: Omit<OptionsRequest, 'attestation' | 'residentKey' | 'supportedAlgorithmIds'>,
): Promise<SignInOptionsResult> {
  const options = await storeOptions(deps, tenantId, { ...request, attestation: 'none', residentKey: 'required', supportedAlgorithmIds: [] });
  if ('status' in options) return options;
  return {
    status: 'OK',
    webauthnGeneratedOptionsId: options.id,
    relyingPartyId: options.rpId,
    challenge: options.challenge,
    timeout: options.timeout,
    userVerification: options.userVerification,
    userPresence: options.userPresence,
    createdAt: options.createdAt,
    expiresAt: options.expiresAt,
  };
}
