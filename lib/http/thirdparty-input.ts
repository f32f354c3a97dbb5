import type { ThirdPartySignInUpInput } from '../recipes/thirdparty/sign-in-up';
import { BadRequestError, invalidField } from './errors';
import { MAX_LENGTH, normaliseEmail, requiredObject, requiredString, type Fields } from './input';

/**
 * Parses a third-party sign-in-up body: `thirdPartyId` and `thirdPartyUserId` (non-empty, kept as
 * given: provider ids are case-sensitive) and `email: { id, isVerified }`. Fields inside `email`
 * are named `email.id` and `email.isVerified` in errors.
 */
export function parseThirdPartySignInUp(body: Fields): ThirdPartySignInUpInput {
  const thirdPartyId = requiredString(body, 'thirdPartyId', { nonEmpty: true });
  const thirdPartyUserId = requiredString(body, 'thirdPartyUserId', { nonEmpty: true });
  const email = requiredObject(body, 'email');
  if (typeof email.id !== 'string') throw invalidField('email.id');
  if (typeof email.isVerified !== 'boolean') throw invalidField('email.isVerified');
  const tooLong = (s: string) => s.length > MAX_LENGTH.email;
  if (tooLong(email.id.trim())) throw emailTooLong();
  const normalised = normaliseEmail(email.id, 'email.id');
  // Lower-casing can lengthen a few characters, so the bound is checked again.
  if (tooLong(normalised)) throw emailTooLong();
  return { thirdPartyId, thirdPartyUserId, email: normalised, isVerified: email.isVerified };
}

function emailTooLong(): BadRequestError {
  return new BadRequestError(`Field name 'email.id' is too long: the maximum is ${MAX_LENGTH.email} characters`);
}
