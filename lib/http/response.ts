import type { HttpApiResult } from './types';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** A plain-text reply (health check, errors). */
export class TextReply {
  constructor(
    readonly statusCode: number,
    readonly text: string,
  ) {}
}

/** A JSON answer with headers of its own (the JWKS's `Cache-Control`). */
export class JsonReply {
  constructor(
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>>,
  ) {}
}

/** Builds a JSON result (business outcomes are always HTTP 200 with a `status`). */
export function jsonResult(body: unknown, requestId: string, statusCode = 200, headers: Readonly<Record<string, string>> = {}): HttpApiResult {
  return { statusCode, headers: { ...headers, 'content-type': JSON_TYPE, 'x-request-id': requestId }, body: JSON.stringify(body) };
}

/** Builds a plain-text result. */
export function textResult(statusCode: number, text: string, requestId: string): HttpApiResult {
  return { statusCode, headers: { 'content-type': TEXT_TYPE, 'x-request-id': requestId }, body: text };
}
