import { isDeviceIdForm, preAuthSessionIdOf, type DeviceId, type PreAuthSessionId } from '../recipes/passwordless/codes';
import type { DevicesToList } from '../recipes/passwordless/list-codes';
import type { PasswordlessIdentity } from '../storage/model';
import type { CodeProof } from '../recipes/passwordless/verify-code';
import { BadRequestError } from './errors';
import { lookupEmail, normaliseEmail, normalisePhoneNumber, optionalString, requiredString, type Fields } from './input';

/**
 * Parses how a passwordless code is presented: `preAuthSessionId` with either `linkCode` or
 * `deviceId` + `userInputCode` (shared by consume and check).
 */
export function parseCodeProof(body: Fields): CodeProof {
  const preAuthSessionId = requiredString(body, 'preAuthSessionId') as PreAuthSessionId;
  const linkCode = optionalString(body, 'linkCode');
  const deviceId = optionalString(body, 'deviceId');
  const userInputCode = optionalString(body, 'userInputCode');
  const byLink = linkCode !== undefined && deviceId === undefined && userInputCode === undefined;
  const byInput = linkCode === undefined && deviceId !== undefined && userInputCode !== undefined;
  if (!byLink && !byInput) throw new BadRequestError('Please provide exactly one of linkCode or deviceId+userInputCode');
  if (byLink) return { preAuthSessionId, linkCode: linkCode as string };
  const device = deviceId as string;
  if (!isDeviceIdForm(device) || preAuthSessionIdOf(device) !== preAuthSessionId) {
    throw new BadRequestError("preAuthSessionId and deviceId doesn't match");
  }
  return { preAuthSessionId, deviceId: device, userInputCode: userInputCode as string };
}

/**
 * Standard base64, padded or not (as the core's decoder takes it): a device id of any other form
 * is the core's 400, one of this form but not of 32 bytes names no device.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/**
 * Parses whose passwordless devices to list (`GET /recipe/signinup/codes`): exactly one of
 * `email`, `phoneNumber`, `deviceId` (turned into its preAuthSessionId, as the core hashes it) or
 * `preAuthSessionId`.
 */
export function parseDevicesToList(query: Fields): DevicesToList {
  const email = optionalString(query, 'email');
  const phoneNumber = optionalString(query, 'phoneNumber');
  const deviceId = optionalString(query, 'deviceId');
  const preAuthSessionId = optionalString(query, 'preAuthSessionId');
  if ([email, phoneNumber, deviceId, preAuthSessionId].filter((v) => v !== undefined).length !== 1) {
    throw new BadRequestError('Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId');
  }
  if (email !== undefined) return { email: lookupEmail(email) };
  if (phoneNumber !== undefined) return { phoneNumber: normalisePhoneNumber(phoneNumber) };
  if (deviceId !== undefined) {
    if (!BASE64.test(deviceId)) throw new BadRequestError('Input encoding error in deviceId');
    return { preAuthSessionId: preAuthSessionIdOf(deviceId as DeviceId) };
  }
  return { preAuthSessionId: preAuthSessionId as string };
}

/** Parses `{"email"}` xor `{"phoneNumber"}` (`POST /recipe/signinup/codes/remove`), normalised. */
export function parseIdentity(body: Fields): PasswordlessIdentity {
  const email = optionalString(body, 'email');
  const phoneNumber = optionalString(body, 'phoneNumber');
  if ((email === undefined) === (phoneNumber === undefined)) throw new BadRequestError('Please provide exactly one of email or phoneNumber');
  return email !== undefined ? { email: normaliseEmail(email) } : { phoneNumber: normalisePhoneNumber(phoneNumber as string) };
}
