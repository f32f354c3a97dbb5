import type { UserRecord } from '../../storage/model';

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
}

/** The CDI 5.4 user object (SPEC §4). It never carries a password hash. */
export interface ApiUser {
  id: string;
  isPrimaryUser: false;
  tenantIds: string[];
  timeJoined: number;
  emails: string[];
  phoneNumbers: string[];
  thirdParty: { id: string; userId: string }[];
  webauthn: { credentialIds: string[] };
  loginMethods: ApiLoginMethod[];
}

/**
 * Whether the login method counts as verified: the email when the user has one, else the phone.
 * Passwordless consume proves whichever identity it used; a changed value starts unproven.
 */
function isVerified(user: UserRecord): boolean {
  return user.email !== undefined ? user.emailVerified : user.phoneVerified;
}

/** Builds the API user object from a stored user. */
export function toApiUser(user: UserRecord): ApiUser {
  const method: ApiLoginMethod = {
    tenantIds: [...user.tenantIds],
    recipeUserId: user.userId,
    verified: isVerified(user),
    timeJoined: user.timeJoined,
    recipeId: user.recipeId,
    ...(user.email !== undefined ? { email: user.email } : {}),
    ...(user.phoneNumber !== undefined ? { phoneNumber: user.phoneNumber } : {}),
    ...(user.thirdParty !== undefined ? { thirdParty: { id: user.thirdParty.id, userId: user.thirdParty.userId } } : {}),
  };
  return {
    id: user.userId,
    isPrimaryUser: false,
    tenantIds: [...user.tenantIds],
    timeJoined: user.timeJoined,
    emails: user.email !== undefined ? [user.email] : [],
    phoneNumbers: user.phoneNumber !== undefined ? [user.phoneNumber] : [],
    thirdParty: user.thirdParty !== undefined ? [{ id: user.thirdParty.id, userId: user.thirdParty.userId }] : [],
    webauthn: { credentialIds: [] },
    loginMethods: [method],
  };
}
