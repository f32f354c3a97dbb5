import type { Deps } from '../deps';
import { OPTIONS_NOT_FOUND } from './options-rules';

/** `DELETE [/<t>]/recipe/webauthn/options/remove`: this tenant's options of that id, one conditional delete. */
export async function removeGeneratedOptions(
  deps: Pick<Deps, 'webauthn'>,
  tenantId: string,
  optionsId: string,
): Promise<{ status: 'OK' } | typeof OPTIONS_NOT_FOUND> {
  return (await deps.webauthn.removeOptions(optionsId, tenantId)) ? { status: 'OK' } : OPTIONS_NOT_FOUND;
}
