import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseCodeProof } from '../../lib/http/passwordless-input';
import { checkCode } from '../../lib/recipes/passwordless/check-code';

/** `POST /recipe/signinup/code/check`: checks a code without consuming it. */
export const handle: ApiHandler = (req, deps) => checkCode(deps, req.tenantId, parseCodeProof(req.body));
export const handler = createHttpHandler('passwordless-check-code', handle);
