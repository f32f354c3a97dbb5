import type { IncomingMessage } from 'node:http';
import { BULK_MAX_BODY_BYTES, BULK_TOO_LARGE_TEXT, routeById } from '../../infra/routes';
import { eventBodyBytes } from '../../lib/http/body-size';
import { toHttpApiEvent } from '../../local/server';
import { mixedUser } from '../support/bulk-users';

/**
 * The bulk body limit (`BULK_MAX_BODY_BYTES`, SPEC §15: 6 MB) against Lambda's: API Gateway hands
 * the body to Lambda as a JSON string inside the event, escaped, and Lambda refuses an event over
 * 6 MiB before any code runs. The limit counts the body as the event carries it, so a body at the
 * limit still makes an event that fits, with room for the largest headers an HTTP API passes on:
 * every body over the limit up to that point reaches the function and gets our 413.
 */
const LAMBDA_MAX_EVENT_BYTES = 6 * 1024 * 1024;
/** HTTP API passes at most 10 KB of request headers; API Gateway's request context holds about 1 KB more than the local event's. */
const HEADERS_AND_CONTEXT_BYTES = 10_240 + 2_048;

/** As many typical users (the worker tests' mixed export) as fit in `limit` bytes of body as the event carries it. */
function typicalBodyUnder(limit: number): { body: string; users: number } {
  const parts: string[] = [];
  let bytes = eventBodyBytes({ body: '{"users":[]}' });
  for (let i = 0; ; i++) {
    const json = JSON.stringify(mixedUser('export-2024', i).user);
    const more = eventBodyBytes({ body: json }) + (parts.length > 0 ? 1 : 0);
    if (bytes + more > limit) break;
    parts.push(json);
    bytes += more;
  }
  return { body: `{"users":[${parts.join(',')}]}`, users: parts.length };
}

const eventBytes = (body: string) => {
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': 'k'.repeat(64), 'user-agent': 'migrate/1.0' },
  } as unknown as IncomingMessage;
  const event = toHttpApiEvent(
    request,
    new URL('http://localhost/bulk-import/users'),
    Buffer.from(body),
    routeById('bulkimport-stage'),
    '00000000-0000-4000-8000-000000000000',
  );
  return Buffer.byteLength(JSON.stringify(event));
};

describe('the bulk body limit', () => {
  it('counts a body as the event carries it: escaped as a JSON string, or as sent when base64', () => {
    expect(eventBodyBytes({ body: '{"a":"b"}' })).toBe(Buffer.byteLength(JSON.stringify('{"a":"b"}')) - 2);
    expect(eventBodyBytes({ body: '{"a":"b"}' })).toBe(9 + 4);
    expect(eventBodyBytes({ body: '{"a":"\\u00e9 é"}' })).toBe(Buffer.byteLength('{"a":"\\u00e9 é"}') + 4 + 1);
    expect(eventBodyBytes({ body: 'eyJhIjoiYiJ9', isBase64Encoded: true })).toBe(12);
    expect(eventBodyBytes({})).toBe(0);
  });

  it('lets a body of typical users at the limit reach Lambda: in the event it fits in 6 MiB with room for the headers', () => {
    const { body, users } = typicalBodyUnder(BULK_MAX_BODY_BYTES);
    expect(eventBodyBytes({ body })).toBeGreaterThan(BULK_MAX_BODY_BYTES - 1_000);
    expect(eventBodyBytes({ body })).toBeLessThanOrEqual(BULK_MAX_BODY_BYTES);
    // The escaping is what the limit counts: every quote of the users' JSON doubles.
    expect(eventBodyBytes({ body })).toBeGreaterThan(Buffer.byteLength(body) * 1.05);
    expect(eventBytes(body) + HEADERS_AND_CONTEXT_BYTES).toBeLessThan(LAMBDA_MAX_EVENT_BYTES);
    // The README's figure: the 10,000-user limit binds before the size limit for typical users.
    expect(users).toBeGreaterThan(15_000);
  });

  it("is the contract's 6 MB, and its 413 sentence says to send fewer users", () => {
    expect([BULK_MAX_BODY_BYTES, BULK_TOO_LARGE_TEXT]).toEqual([6_000_000, 'Request body is larger than 6 MB: send fewer users per request']);
    expect(routeById('bulkimport-stage')).toMatchObject({ maxBodyBytes: BULK_MAX_BODY_BYTES, tooLargeText: BULK_TOO_LARGE_TEXT, bulk: true });
  });
});
