import { isDeviceIdForm, preAuthSessionIdOf, type PreAuthSessionId } from '../recipes/passwordless/codes';
import type { CodeProof } from '../recipes/passwordless/verify-code';
import { BadRequestError } from './errors';
import { optionalString, requiredString, type Fields } from './input';

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
