import { createHash, createHmac } from 'node:crypto';

/** A device id as handed to the caller: 32 random bytes, standard base64. */
export type DeviceId = string & { readonly __brand: 'DeviceId' };
/** base64url(SHA-256(deviceId bytes)): the device's public handle and storage key. */
export type PreAuthSessionId = string & { readonly __brand: 'PreAuthSessionId' };
/** The code embedded in a magic link; never stored. */
export type LinkCode = string & { readonly __brand: 'LinkCode' };
/** SHA-256 of a link code: what is stored, so a leaked table cannot be replayed as links. */
export type LinkCodeHash = string & { readonly __brand: 'LinkCodeHash' };

export const DEVICE_ID_BYTES = 32;
export const LINK_CODE_SALT_BYTES = 32;

/** 32 bytes in standard base64: 43 characters and one `=`. Checked explicitly because Node's decoder skips bad characters. */
const DEVICE_ID_FORM = /^[A-Za-z0-9+/]{43}=$/;
/** 32 bytes in base64url without padding: a link code, or a preAuthSessionId. */
const LINK_CODE_FORM = /^[A-Za-z0-9_-]{43}$/;
/** A code id as issued: a lower-case UUID. */
const CODE_ID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isDeviceIdForm(value: string): value is DeviceId {
  return DEVICE_ID_FORM.test(value);
}

export function isLinkCodeForm(value: string): value is LinkCode {
  return LINK_CODE_FORM.test(value);
}

/** Whether a value can be a preAuthSessionId; another one names no device, and is never used in a key. */
export function isPreAuthSessionIdForm(value: string): value is PreAuthSessionId {
  return LINK_CODE_FORM.test(value);
}

/** Whether a value can be a code id this service issued; another one names no code, and is never used in a key. */
export function isCodeIdForm(value: string): boolean {
  return CODE_ID_FORM.test(value);
}

export function preAuthSessionIdOf(deviceId: DeviceId): PreAuthSessionId {
  return createHash('sha256').update(Buffer.from(deviceId, 'base64')).digest('base64url') as PreAuthSessionId;
}

/**
 * The link code of a user input code on a device: HMAC-SHA256 keyed with the device id and the
 * device's salt. Why keyed with the device id: the link code cannot be computed from what is
 * stored (the device id is never stored), so a read of the table does not yield usable links.
 * Why the salt: two devices never share link codes even for the same user input code.
 */
export function linkCodeOf(deviceId: DeviceId, linkCodeSalt: string, userInputCode: string): LinkCode {
  const key = Buffer.concat([Buffer.from(deviceId, 'base64'), Buffer.from(linkCodeSalt, 'base64')]);
  return createHmac('sha256', key).update(userInputCode, 'utf8').digest('base64url') as LinkCode;
}

export function linkCodeHashOf(linkCode: LinkCode): LinkCodeHash {
  return createHash('sha256').update(Buffer.from(linkCode, 'base64url')).digest('base64url') as LinkCodeHash;
}
