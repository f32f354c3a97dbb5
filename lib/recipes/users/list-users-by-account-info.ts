import type { UserRecord } from '../../storage/model';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from './api-user';

export interface AccountInfo {
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
}

/**
 * Users of a tenant matching the account info: all given values (`doUnion` false) or any of them
 * (`doUnion` true), oldest first.
 */
export async function listUsersByAccountInfo(
  deps: Pick<Deps, 'users'>,
  tenantId: string,
  info: AccountInfo,
  doUnion: boolean,
): Promise<{ status: 'OK'; users: ApiUser[] }> {
  const candidates = new Map<string, UserRecord>();
  const add = (u: UserRecord | undefined) => {
    if (u && u.tenantIds.includes(tenantId)) candidates.set(u.userId, u);
  };
  const byId = async (id: string | undefined) => add(id === undefined ? undefined : await deps.users.getUser(id));
  if (info.email !== undefined) for (const u of await deps.users.listUsersByEmail(tenantId, info.email)) add(u);
  if (info.phoneNumber !== undefined) await byId(await deps.users.getUserIdByPhone(tenantId, info.phoneNumber));
  if (info.thirdParty !== undefined) {
    await byId(await deps.users.getUserIdByThirdParty(tenantId, info.thirdParty.id, info.thirdParty.userId));
  }
  const tests: ((u: UserRecord) => boolean)[] = [];
  if (info.email !== undefined) tests.push((u) => u.email === info.email);
  if (info.phoneNumber !== undefined) tests.push((u) => u.phoneNumber === info.phoneNumber);
  if (info.thirdParty !== undefined) {
    const tp = info.thirdParty;
    tests.push((u) => u.thirdParty?.id === tp.id && u.thirdParty?.userId === tp.userId);
  }
  const users = [...candidates.values()]
    .filter((u) => (doUnion ? tests.some((t) => t(u)) : tests.every((t) => t(u))))
    .sort((a, b) => a.timeJoined - b.timeJoined || a.userId.localeCompare(b.userId));
  return { status: 'OK', users: users.map(toApiUser) };
}
