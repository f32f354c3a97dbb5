/**
 * Input that parses but cannot be acted on (for example clearing both email and phone of a
 * user). The HTTP layer answers 400 with the message, which names the field.
 */
export class InvalidInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInputError';
  }
}

/**
 * Input refused with a JSON document saying what is wrong where (the structured 400s of bulk
 * import, SPEC §15: the errors of each invalid user by its index). The HTTP layer answers 400 with
 * the document.
 */
export class InvalidInputDocumentError extends Error {
  constructor(
    readonly document: Readonly<Record<string, unknown>>,
    summary: string,
  ) {
    super(summary);
    this.name = 'InvalidInputDocumentError';
  }
}

/**
 * The previous provider could not say whether a password is right (SPEC §16: timeout, connection
 * refused, 5xx, throttling, no source configured). The HTTP layer answers 503 with the message:
 * never a wrong-password answer, and the user is unchanged.
 */
export class PasswordSourceUnavailableError extends Error {
  constructor() {
    super('Password migration source is unavailable, try again later');
    this.name = 'PasswordSourceUnavailableError';
  }
}
