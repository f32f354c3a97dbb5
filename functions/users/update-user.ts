import { BadRequestError, HttpError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, normalisePhoneNumber, nullableString, optionalString, requiredPassword, requiredUserId } from '../../lib/http/input';
import { readRid } from '../../lib/http/rid';
import { updateEmailPasswordUser } from '../../lib/recipes/emailpassword/update-user';
import { updatePasswordlessUser } from '../../lib/recipes/passwordless/update-user';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoEmailVerificationStore } from '../../lib/storage/dynamo/dynamo-email-verification-store';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/**
 * `PUT /recipe/user`: `rid: passwordless` sets or clears email and phone (seed 4.3); no `rid` or
 * `rid: emailpassword` changes an email-password user's email or password; `rid: thirdparty` is 405.
 */
export const handle: ApiHandler<'users' | 'metadata' | 'emailVerification' | 'passwordless'> = (req, deps) => {
  const rid = readRid(req.headers);
  const userId = requiredUserId(req.body);
  if (rid === 'thirdparty') throw new HttpError(405, 'Method not supported');
  if (rid === 'passwordless') {
    const email = nullableString(req.body, 'email');
    const phoneNumber = nullableString(req.body, 'phoneNumber');
    return updatePasswordlessUser(deps, {
      userId,
      ...(email !== undefined ? { email: email === null ? null : normaliseEmail(email) } : {}),
      ...(phoneNumber !== undefined ? { phoneNumber: phoneNumber === null ? null : normalisePhoneNumber(phoneNumber) } : {}),
    });
  }
  const email = optionalString(req.body, 'email');
  const password = req.body.password === undefined || req.body.password === null ? undefined : requiredPassword(req.body);
  if (email === undefined && password === undefined) {
    throw new BadRequestError('Please provide at least one of email or password');
  }
  return updateEmailPasswordUser(deps, {
    userId,
    ...(email !== undefined ? { email: normaliseEmail(email) } : {}),
    ...(password !== undefined ? { password } : {}),
  });
};
export const handler = createHttpHandler(
  'user-update',
  { users: DynamoUserStore, metadata: DynamoMetadataStore, emailVerification: DynamoEmailVerificationStore, passwordless: DynamoPasswordlessStore },
  handle,
);
