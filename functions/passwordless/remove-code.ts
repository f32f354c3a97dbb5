import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalString } from '../../lib/http/input';
import { removeCode } from '../../lib/recipes/passwordless/remove-code';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `POST /<tenant>/recipe/signinup/code/remove` `{"codeId"}` or `{"preAuthSessionId"}`. */
export const handle: ApiHandler<'passwordless'> = (req, deps) => {
  const codeId = optionalString(req.body, 'codeId');
  const preAuthSessionId = optionalString(req.body, 'preAuthSessionId');
  if (codeId !== undefined && preAuthSessionId !== undefined) throw new BadRequestError("Please provide only one of 'codeId' or 'preAuthSessionId'");
  if (codeId !== undefined) return removeCode(deps, req.tenantId, { codeId });
  if (preAuthSessionId !== undefined) return removeCode(deps, req.tenantId, { preAuthSessionId });
  throw new BadRequestError("Please provide either 'codeId' or 'preAuthSessionId'");
};
export const handler = createHttpHandler('passwordless-remove-code', { passwordless: DynamoPasswordlessStore }, handle);
