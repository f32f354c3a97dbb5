import type { AuthUser, UserRecord } from '../../storage/model';
import { timeJoinedOf } from '../../storage/auth-user';
import type { Deps } from '../deps';
import type { FoundLogin } from '../../storage/ports/users';
import { toApiUser, type ApiUser } from './api-user';
import { findLogin } from './find-login';
import { fromBase64Url, toBase64Url } from '../../webauthn/base64url';

export interface AccountInfo {
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
  /** A passkey's credential id (SPEC §21): its login method, in this tenant. */
  readonly webauthnCredentialId?: string;
}

/**
 * Users with a login method in the tenant matching the account info, each once (a primary user
 * with two matching login methods too): all given values (`doUnion` false: each value on some
 * login method of the user) or any of them (`doUnion` true), oldest first (SPEC §9, §11, §21).
 */
export async function listUsersByAccountInfo(
  deps: Pick<Deps, 'users' | 'userLookups' | 'webauthn'>,
  tenantId: string,
  info: AccountInfo,
  doUnion: boolean,
): Promise<{ status: 'OK'; users: ApiUser[] }> {
  const candidates = new Map<string, AuthUser>();
  const add = (u: AuthUser | undefined) => {
    if (u) candidates.set(u.id, u);
  };
  const byId = async (ref: FoundLogin | undefined) => add((await findLogin(deps, ref))?.user);
  const lookups: Promise<void>[] = [];
  if (info.email !== undefined) lookups.push(deps.userLookups.listUsersByEmail(tenantId, info.email).then((users) => users.forEach(add)));
  if (info.phoneNumber !== undefined) lookups.push(deps.users.getLoginByPhone(tenantId, info.phoneNumber).then(byId));
  if (info.thirdParty !== undefined) {
    lookups.push(deps.users.getLoginByThirdParty(tenantId, info.thirdParty.id, info.thirdParty.userId).then(byId));
  }
  // As the credential is stored (unpadded base64url); an id that is none finds no user.
  const bytes = info.webauthnCredentialId === undefined ? undefined : fromBase64Url(info.webauthnCredentialId);
  const credentialId = info.webauthnCredentialId === undefined ? undefined : bytes && bytes.length > 0 ? toBase64Url(bytes) : '';
  if (credentialId) lookups.push(deps.webauthn.getCredential(credentialId).then((found) => byId(found?.login)));
  await Promise.all(lookups);
  const tests: ((lm: UserRecord) => boolean)[] = [];
  if (info.email !== undefined) tests.push((lm) => lm.email === info.email);
  if (info.phoneNumber !== undefined) tests.push((lm) => lm.phoneNumber === info.phoneNumber);
  if (info.thirdParty !== undefined) {
    const tp = info.thirdParty;
    tests.push((lm) => lm.thirdParty?.id === tp.id && lm.thirdParty?.userId === tp.userId);
  }
  if (credentialId !== undefined) tests.push((lm) => !!lm.webauthnCredentialIds?.includes(credentialId) && lm.tenantIds.includes(tenantId));
  const holds = (u: AuthUser, test: (lm: UserRecord) => boolean) => u.loginMethods.some(test);
  const users = [...candidates.values()]
    .filter((u) => (doUnion ? tests.some((t) => holds(u, t)) : tests.every((t) => holds(u, t))))
    .sort((a, b) => timeJoinedOf(a) - timeJoinedOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { status: 'OK', users: users.map(toApiUser) };
}
