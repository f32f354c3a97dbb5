import type { Deps } from '../deps';
import { OPTIONS_NOT_FOUND } from './options-rules';

export type GetOptionsResult =
  | {
      status: 'OK';
      webauthnGeneratedOptionsId: string;
      relyingPartyId: string;
      relyingPartyName: string;
      challenge: string;
      timeout: number;
      origin: string;
      email?: string;
      createdAt: number;
      expiresAt: number;
      userVerification: string;
      userPresence: boolean;
    }
  | typeof OPTIONS_NOT_FOUND;

/** `GET [/<t>]/recipe/webauthn/options`: options of this tenant, expired or not (as the core). */
export async function getGeneratedOptions(deps: Pick<Deps, 'webauthn'>, tenantId: string, optionsId: string): Promise<GetOptionsResult> {
  const o = await deps.webauthn.getOptions(optionsId);
  if (!o || o.tenantId !== tenantId) return OPTIONS_NOT_FOUND;
  return {
    status: 'OK',
    webauthnGeneratedOptionsId: o.id,
    relyingPartyId: o.rpId,
    relyingPartyName: o.rpName,
    challenge: o.challenge,
    timeout: o.timeout,
    origin: o.origin,
    ...(o.email !== undefined ? { email: o.email } : {}),
    createdAt: o.createdAt,
    expiresAt: o.expiresAt,
    userVerification: o.userVerification,
    userPresence: o.userPresence,
  };
}
