import type { AccountInfo, AuthUser, PasswordlessIdentity, UserRecord } from './model';

/**
 * Pure helpers on users and their login methods, shared by the recipes and the storage adapter
 * (which derives every item a user implies from them).
 */

/** Join order of login methods: oldest first, the recipe user id breaking ties. */
export function byJoinOrder(a: UserRecord, b: UserRecord): number {
  return a.timeJoined - b.timeJoined || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);
}

/** A login method on its own: a user that is neither primary nor linked. */
export function standaloneUser(loginMethod: UserRecord): AuthUser {
  return { id: loginMethod.userId, isPrimary: false, loginMethods: [loginMethod] };
}

/**
 * What a mark on a login method changes (a consume, or a verification of its email or phone):
 * nothing but the login method's own item and its snapshots hold these for a primary user's, so
 * such a change is written without reading the user (`UserStore.writeLoginMark`).
 */
export const LOGIN_MARK_FIELDS = ['verifiedEmails', 'phoneVerified', 'codesConsumedAt'] as const;

/** Whether `after` differs from `before` in nothing but `LOGIN_MARK_FIELDS` (its version aside). */
export function isLoginMark(before: UserRecord, after: UserRecord): boolean {
  const rest = (lm: UserRecord) =>
    JSON.stringify(
      Object.entries(lm)
        .filter(([name, value]) => !(LOGIN_MARK_FIELDS as readonly string[]).includes(name) && name !== 'version' && value !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  return before.userId === after.userId && rest(before) === rest(after);
}

/**
 * The login method a request names by its recipe user id or its external user id (SPEC §12: once
 * mapped, the external id is the login method's id to the outside), if the user holds one. The
 * recipe user id wins when both would match (as the core: an id is first a SuperTokens id).
 */
export function loginMethodOf(user: AuthUser, id: string): UserRecord | undefined {
  return user.loginMethods.find((lm) => lm.userId === id) ?? user.loginMethods.find((lm) => lm.externalUserId === id);
}

/**
 * The internal id a request's id stands for in this user: the recipe user id of the login method
 * it names, or the id itself (the user's own id, or nothing of this user).
 */
export function internalIdOf(user: AuthUser, id: string): string {
  return loginMethodOf(user, id)?.userId ?? id;
}

/** The id the outside sees for a login method: its external user id once mapped (SPEC §12). */
export function publicIdOf(lm: UserRecord): string {
  return lm.externalUserId ?? lm.userId;
}

/**
 * The id the outside sees for a user: the external user id of the login method whose recipe user
 * id the user's id is, when mapped; else the user's id.
 */
export function publicUserIdOf(user: AuthUser): string {
  return user.loginMethods.find((lm) => lm.userId === user.id)?.externalUserId ?? user.id;
}

/** The user with `loginMethod` added, or in place of its login method of the same id. */
export function withLoginMethod(user: AuthUser, loginMethod: UserRecord): AuthUser {
  const others = user.loginMethods.filter((lm) => lm.userId !== loginMethod.userId);
  return { ...user, loginMethods: [...others, loginMethod].sort(byJoinOrder) };
}

/**
 * The login method holding `passwordHash`: a new hash also ends a wait for password migration at
 * sign-in (SPEC §16), so the mark goes with it.
 */
export function withPasswordHash(lm: UserRecord, passwordHash: string): UserRecord {
  const { passwordMigration: _mark, ...rest } = lm;
  return { ...rest, passwordHash };
}

/** The user without the login method `recipeUserId`; `undefined` when none would be left. */
export function withoutLoginMethod(user: AuthUser, recipeUserId: string): AuthUser | undefined {
  const rest = user.loginMethods.filter((lm) => lm.userId !== recipeUserId);
  return rest.length === 0 ? undefined : { ...user, loginMethods: rest };
}

/** Every tenant a login method of the user is in, in login-method order, each once. */
export function tenantsOf(user: AuthUser): string[] {
  return [...new Set(user.loginMethods.flatMap((lm) => lm.tenantIds))];
}

/** The user's time joined: its oldest login method's. */
export function timeJoinedOf(user: AuthUser): number {
  return Math.min(...user.loginMethods.map((lm) => lm.timeJoined));
}

/** The account info a login method holds, in the order the core checks it: email, phone, third party. */
export function accountInfoOf(loginMethod: UserRecord): AccountInfo[] {
  const infos: AccountInfo[] = [];
  if (loginMethod.email !== undefined) infos.push({ kind: 'email', email: loginMethod.email });
  if (loginMethod.phoneNumber !== undefined) infos.push({ kind: 'phone', phoneNumber: loginMethod.phoneNumber });
  if (loginMethod.thirdParty !== undefined) {
    infos.push({ kind: 'thirdParty', thirdPartyId: loginMethod.thirdParty.id, thirdPartyUserId: loginMethod.thirdParty.userId });
  }
  return infos;
}

/** Whether two pieces of account info are the same. */
export function sameAccountInfo(a: AccountInfo, b: AccountInfo): boolean {
  if (a.kind === 'email' && b.kind === 'email') return a.email === b.email;
  if (a.kind === 'phone' && b.kind === 'phone') return a.phoneNumber === b.phoneNumber;
  if (a.kind === 'thirdParty' && b.kind === 'thirdParty') {
    return a.thirdPartyId === b.thirdPartyId && a.thirdPartyUserId === b.thirdPartyUserId;
  }
  return false;
}

/**
 * Whether two reads found a user in the same state (same id, primary mark, login methods and
 * versions): an answer computed from several reads holds only if the user did not change between
 * them.
 */
export function sameUserState(a: AuthUser | undefined, b: AuthUser | undefined): boolean {
  const state = (u: AuthUser | undefined) => (u ? JSON.stringify([u.id, u.isPrimary, u.loginMethods.map((lm) => [lm.userId, lm.version])]) : '');
  return state(a) === state(b);
}

/**
 * How many verified emails a login method remembers, most recent last: enough for any real change
 * history, and the item stays small. The oldest is forgotten first.
 */
export const MAX_VERIFIED_EMAILS = 16;

/** Whether the login method's email (or the given one) is verified. */
export function isEmailVerified(lm: UserRecord, email: string | undefined = lm.email): boolean {
  return email !== undefined && lm.verifiedEmails.includes(email);
}

/** The login method with `email` verified (remembered as the most recent). */
export function withVerifiedEmail(lm: UserRecord, email: string): UserRecord {
  const others = lm.verifiedEmails.filter((e) => e !== email);
  return { ...lm, verifiedEmails: [...others, email].slice(-MAX_VERIFIED_EMAILS) };
}

/**
 * The passwordless login method after a code of its email or phone was consumed in `tenantId` at
 * `now`: pending devices of that email or phone created earlier no longer sign in. Tenants the
 * login method has left are dropped.
 */
export function withCodesConsumed(lm: UserRecord, tenantId: string, identity: PasswordlessIdentity, now: number): UserRecord {
  const kind = 'email' in identity ? 'email' : 'phone';
  const kept = Object.entries(lm.codesConsumedAt ?? {}).filter(([t]) => t !== tenantId && lm.tenantIds.includes(t));
  return { ...lm, codesConsumedAt: Object.fromEntries([...kept, [tenantId, { ...lm.codesConsumedAt?.[tenantId], [kind]: now }]]) };
}

/**
 * A device of `identity` in `tenantId`, created at `createdAt`, whose codes a later consume of
 * the same email or phone ended (see `UserRecord.codesConsumedAt`).
 */
export function isDeviceSuperseded(lm: UserRecord | undefined, tenantId: string, identity: PasswordlessIdentity, createdAt: number): boolean {
  const consumedAt = lm?.codesConsumedAt?.[tenantId]?.['email' in identity ? 'email' : 'phone'];
  return consumedAt !== undefined && createdAt <= consumedAt;
}

/** The login method with `email` no longer verified. */
export function withoutVerifiedEmail(lm: UserRecord, email: string): UserRecord {
  return { ...lm, verifiedEmails: lm.verifiedEmails.filter((e) => e !== email) };
}
