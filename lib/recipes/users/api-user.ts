import { isEmailVerified, publicIdOf, publicUserIdOf, tenantsOf, timeJoinedOf } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';

/** A login method as the CDI 5.4 user object shows it. Optional keys are omitted, never `null`. */
export interface ApiLoginMethod {
  tenantIds: string[];
  recipeUserId: string;
  verified: boolean;
  timeJoined: number;
  recipeId: UserRecord['recipeId'];
  email?: string;
  phoneNumber?: string;
  thirdParty?: { id: string; userId: string };
  webauthn?: { credentialIds: string[] };
}

/** The CDI 5.4 user object (SPEC §4). It never carries a password hash. */
export interface ApiUser {
  id: string;
  isPrimaryUser: boolean;
  tenantIds: string[];
  timeJoined: number;
  emails: string[];
  phoneNumbers: string[];
  thirdParty: { id: string; userId: string }[];
  webauthn: { credentialIds: string[] };
  loginMethods: ApiLoginMethod[];
}

/**
 * Whether the login method counts as verified: its email when it has one (SPEC §13: the email
 * verification state of that login method and email), else its phone, which only a consumed code
 * proves.
 */
function isVerified(lm: UserRecord): boolean {
  return lm.email !== undefined ? isEmailVerified(lm) : lm.phoneVerified;
}

function toApiLoginMethod(lm: UserRecord): ApiLoginMethod {
  return {
    tenantIds: [...lm.tenantIds],
    recipeUserId: publicIdOf(lm),
    verified: isVerified(lm),
    timeJoined: lm.timeJoined,
    recipeId: lm.recipeId,
    ...(lm.email !== undefined ? { email: lm.email } : {}),
    ...(lm.phoneNumber !== undefined ? { phoneNumber: lm.phoneNumber } : {}),
    ...(lm.thirdParty !== undefined ? { thirdParty: { id: lm.thirdParty.id, userId: lm.thirdParty.userId } } : {}),
    ...(lm.webauthnCredentialIds !== undefined ? { webauthn: { credentialIds: [...lm.webauthnCredentialIds] } } : {}),
  };
}

/** Each value once, in first-seen order. */
function unique<T>(values: readonly T[], id: (v: T) => string = String): T[] {
  const seen = new Map<string, T>();
  for (const v of values) if (!seen.has(id(v))) seen.set(id(v), v);
  return [...seen.values()];
}

/**
 * Builds the API user object from a stored user: for a primary user, every login method (oldest
 * first), the union of their emails, phone numbers, third-party identities and tenants (oldest
 * login method's first), and the oldest time joined (SPEC §4, §11); passkeys' credential ids (§21). Ids are the ones the outside
 * sees: a login method's external user id once mapped (SPEC §12).
 */
export function toApiUser(user: AuthUser): ApiUser {
  const methods = user.loginMethods;
  return {
    id: publicUserIdOf(user),
    isPrimaryUser: user.isPrimary,
    tenantIds: tenantsOf(user),
    timeJoined: timeJoinedOf(user),
    emails: unique(methods.flatMap((lm) => (lm.email !== undefined ? [lm.email] : []))),
    phoneNumbers: unique(methods.flatMap((lm) => (lm.phoneNumber !== undefined ? [lm.phoneNumber] : []))),
    thirdParty: unique(
      methods.flatMap((lm) => (lm.thirdParty !== undefined ? [{ id: lm.thirdParty.id, userId: lm.thirdParty.userId }] : [])),
      (tp) => JSON.stringify([tp.id, tp.userId]),
    ),
    webauthn: { credentialIds: unique(methods.flatMap((lm) => lm.webauthnCredentialIds ?? [])) },
    loginMethods: methods.map(toApiLoginMethod),
  };
}
