/** An error whose message is shown to the caller, with its HTTP status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpError';
  }
}

/** A malformed request: 400, one sentence naming the field. */
export class BadRequestError extends HttpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(400, message, options);
    this.name = 'BadRequestError';
  }
}

/** The canonical 400 texts of the SuperTokens core, reused by every parser. */
export const INVALID_JSON = 'Invalid Json Input';
export const TENANT_NOT_FOUND = 'AppId or tenantId not found';
export const APP_WIDE_ONLY = 'Only public tenantId can call this app specific API';

/** `Field name 'x' is invalid in JSON input`: a required field missing or of the wrong type. */
export function invalidField(name: string): BadRequestError {
  return new BadRequestError(`Field name '${name}' is invalid in JSON input`);
}
