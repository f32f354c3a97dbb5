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
  constructor(readonly document: Readonly<Record<string, unknown>>, summary: string) {
    super(summary);
    this.name = 'InvalidInputDocumentError';
  }
}
