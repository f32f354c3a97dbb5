/**
 * Lambda returns at most 6 MB: the answer's body, escaped into the JSON of what the function
 * returns, with its status and headers. Answers that grow with what is stored (a role's users, a
 * page of bulk rows, the ids of the users a request staged) keep their body to this much, which
 * leaves room for the rest; the local server answers as API Gateway does past 6 MB.
 */
export const MAX_ANSWER_BODY_BYTES = 5_000_000;

/** The bytes a JSON value takes as an answer's body inside what Lambda returns: its JSON text as a JSON string, escaped, with its quotes. */
export const answerBodyBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(JSON.stringify(value)), 'utf8');
