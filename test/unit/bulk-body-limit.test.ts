import type { IncomingMessage } from 'node:http';
import { BULK_MAX_BODY_BYTES, BULK_TOO_LARGE_TEXT, routeById } from '../../infra/routes';
import { toHttpApiEvent } from '../../local/server';
import { mixedUser } from '../support/bulk-users';

/**
 * The bulk body limit (`BULK_MAX_BODY_BYTES`) against Lambda's: API Gateway hands the body to
 * Lambda as a JSON string inside the event, escaped, and Lambda refuses an event over 6 MiB before
 * any code runs. A body of typical bulk users just under our limit must still make an event that
 * fits, with room for the largest headers an HTTP API passes on; else the caller gets AWS's error
 * instead of our 413.
 */
const LAMBDA_MAX_EVENT_BYTES = 6 * 1024 * 1024;
/** HTTP API passes at most 10 KB of request headers; API Gateway's request context holds about 1 KB more than the local event's. */
const HEADERS_AND_CONTEXT_BYTES = 10_240 + 2_048;

/** As many typical users (the worker tests' mixed export) as fit in `limit` bytes of JSON body. */
function typicalBodyUnder(limit: number): { body: string; users: number } {
  const parts: string[] = [];
  let bytes = Buffer.byteLength('{"users":[]}');
  for (let i = 0; ; i++) {
    const json = JSON.stringify(mixedUser('export-2024', i).user);
    const more = Buffer.byteLength(json) + (parts.length > 0 ? 1 : 0);
    if (bytes + more > limit) break;
    parts.push(json);
    bytes += more;
  }
  return { body: `{"users":[${parts.join(',')}]}`, users: parts.length };
}

const eventBytes = (body: string) => {
  const request = { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': 'k'.repeat(64), 'user-agent': 'migrate/1.0' } } as unknown as IncomingMessage;
  const event = toHttpApiEvent(request, new URL('http://localhost/bulk-import/users'), Buffer.from(body), routeById('bulkimport-stage'), '00000000-0000-4000-8000-000000000000');
  return Buffer.byteLength(JSON.stringify(event));
};

describe('the bulk body limit', () => {
  it('lets a body of typical users just under it reach Lambda: escaped into the event, it fits in 6 MiB with room for the headers', () => {
    const { body, users } = typicalBodyUnder(BULK_MAX_BODY_BYTES);
    expect(Buffer.byteLength(body)).toBeGreaterThan(BULK_MAX_BODY_BYTES - 1_000);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BULK_MAX_BODY_BYTES);
    // The escaping is what the limit must leave room for: every quote of the users' JSON doubles.
    expect(eventBytes(body)).toBeGreaterThan(Buffer.byteLength(body) * 1.05);
    expect(eventBytes(body) + HEADERS_AND_CONTEXT_BYTES).toBeLessThan(LAMBDA_MAX_EVENT_BYTES);
    expect(users).toBeGreaterThan(10_000);
  });

  it('names itself in the 413 sentence, which says to send fewer users', () => {
    expect([BULK_MAX_BODY_BYTES, BULK_TOO_LARGE_TEXT]).toEqual([5_000_000, 'Request body is larger than 5 MB: send fewer users per request']);
    expect(routeById('bulkimport-stage')).toMatchObject({ maxBodyBytes: BULK_MAX_BODY_BYTES, tooLargeText: BULK_TOO_LARGE_TEXT });
  });
});
