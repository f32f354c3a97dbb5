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
