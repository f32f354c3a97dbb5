import type { HttpApiEvent } from './types';

/**
 * The bytes a request body takes inside the Lambda event API Gateway builds: a base64 body as it
 * is, any other as a JSON string (quotes, backslashes and control characters escaped), which is
 * what Lambda's 6 MiB invocation limit counts.
 */
export function eventBodyBytes(event: Pick<HttpApiEvent, 'body' | 'isBase64Encoded'>): number {
  if (event.body === undefined) return 0;
  return event.isBase64Encoded ? Buffer.byteLength(event.body) : Buffer.byteLength(JSON.stringify(event.body)) - 2;
}
