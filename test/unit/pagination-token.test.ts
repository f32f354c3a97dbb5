import fc from 'fast-check';
import { decodePaginationToken, encodePaginationToken } from '../../lib/recipes/users/pagination-token';

const cursor = fc.record({ timeJoined: fc.integer({ min: 0, max: 999_999_999_999_999 }), userId: fc.uuid() });

describe('GET /users pagination tokens', () => {
  it('decode what they encode', () => {
    fc.assert(fc.property(cursor, (c) => expect(decodePaginationToken(encodePaginationToken(c))).toEqual(c)));
  });

  it('decode nothing but their own canonical form', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (token) => {
        const decoded = decodePaginationToken(token);
        if (decoded !== undefined) expect(encodePaginationToken(decoded)).toBe(token);
      }),
    );
    fc.assert(
      fc.property(cursor, fc.integer({ min: 0, max: 60 }), fc.constantFrom('=', '+', '/', '.', ' ', '*'), (c, at, ch) => {
        const token = encodePaginationToken(c);
        const i = at % (token.length + 1);
        expect(decodePaginationToken(token.slice(0, i) + ch + token.slice(i))).toBeUndefined();
      }),
    );
  });

  it.each([
    ['an empty token', ''],
    ['standard base64 with padding', Buffer.from('1#00000000-0000-4000-8000-000000000000').toString('base64')],
    ['a time with a leading zero', Buffer.from('01#00000000-0000-4000-8000-000000000000').toString('base64url')],
    ['an upper-case user id', Buffer.from('1#ABCDEF00-0000-4000-8000-000000000000').toString('base64url')],
    ['a time beyond 15 digits', Buffer.from('1234567890123456#00000000-0000-4000-8000-000000000000').toString('base64url')],
  ])('refuses %s', (_label, token) => {
    expect(decodePaginationToken(token)).toBeUndefined();
  });
});
