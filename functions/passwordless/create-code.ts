import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, normalisePhoneNumber, optionalString } from '../../lib/http/input';
import { createCode, type CreateCodeInput } from '../../lib/recipes/passwordless/create-code';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `POST /recipe/signinup/code` (seed 4.1). */
export const handle: ApiHandler<'users' | 'passwordless'> = (req, deps) => {
  const email = optionalString(req.body, 'email');
  const phoneNumber = optionalString(req.body, 'phoneNumber');
  const deviceId = optionalString(req.body, 'deviceId');
  const userInputCode = optionalString(req.body, 'userInputCode');
  if ([email, phoneNumber, deviceId].filter((v) => v !== undefined).length !== 1) {
    throw new BadRequestError('Please provide exactly one of email, phoneNumber or deviceId');
  }
  if (userInputCode !== undefined && userInputCode.trim() === '') {
    throw new BadRequestError("Field name 'userInputCode' must not be empty");
  }
  const code = userInputCode !== undefined ? { userInputCode } : {};
  const input: CreateCodeInput =
    email !== undefined
      ? { email: normaliseEmail(email), ...code }
      : phoneNumber !== undefined
        ? { phoneNumber: normalisePhoneNumber(phoneNumber), ...code }
        : { deviceId: deviceId as string, ...code };
  return createCode(deps, req.tenantId, input);
};
export const handler = createHttpHandler('passwordless-create-code', { users: DynamoUserStore, passwordless: DynamoPasswordlessStore }, handle);
