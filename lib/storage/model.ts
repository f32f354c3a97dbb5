/** Storage-level domain records. No DynamoDB types leak out of `lib/storage/dynamo`. */

export type RecipeId = 'emailpassword' | 'thirdparty' | 'passwordless';

/** One user: exactly one login method (no account linking in this service). */
export interface UserRecord {
  readonly userId: string;
  readonly recipeId: RecipeId;
  readonly tenantIds: readonly string[];
  readonly timeJoined: number;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
  /** The current email was proven (code consumed, provider said so). */
  readonly emailVerified: boolean;
  /** The current phone number was proven by a consumed code. */
  readonly phoneVerified: boolean;
  /** Stored password hash (email-password users only). Never leaves `lib/`. */
  readonly passwordHash?: string;
  /** Incremented on every write; conditional writes compare it (optimistic locking). */
  readonly version: number;
}

/** A unique identity a user holds in a tenant, protected by a guard item. */
export type IdentityKind = 'email' | 'phone' | 'thirdParty';

/** Passwordless identity of a device. */
export type PasswordlessIdentity = { readonly email: string } | { readonly phoneNumber: string };

/** A pending passwordless sign-in: one email or phone, one or more codes. */
export interface DeviceRecord {
  /** base64url(SHA-256(deviceId bytes)); the device's key. The deviceId itself is never stored. */
  readonly preAuthSessionId: string;
  readonly tenantId: string;
  readonly email?: string;
  readonly phoneNumber?: string;
  /** Base64 32-byte salt mixed into link codes; never returned. */
  readonly linkCodeSalt: string;
  readonly failedAttempts: number;
  /** Latest expiry of the device's codes, ms epoch (TTL is derived from it). */
  readonly expiresAt: number;
}

/** One code of a device. Only the SHA-256 of its link code is stored. */
export interface CodeRecord {
  readonly preAuthSessionId: string;
  readonly linkCodeHash: string;
  readonly codeId: string;
  readonly timeCreated: number;
  readonly codeLifetime: number;
}

export interface TenantRecord {
  readonly tenantId: string;
  readonly createdAt: number;
}
