import { base32Decode, base32Encode, normaliseSecret } from '../../lib/recipes/totp/base32';
import { hotp, matchesWindow, timeStep, totpAt } from '../../lib/recipes/totp/totp-code';

/** RFC 6238 Appendix B and RFC 4226 Appendix D: the SHA-1 seed, the ASCII of "12345678901234567890". */
const SEED = Buffer.from('12345678901234567890', 'ascii');
const SEED_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

/** RFC 6238 Appendix B, the SHA-1 rows: time (s), T, the 8-digit TOTP. */
const RFC6238_SHA1: readonly [number, number, string][] = [
  [59, 0x1, '94287082'],
  [1111111109, 0x23523ec, '07081804'],
  [1111111111, 0x23523ed, '14050471'],
  [1234567890, 0x273ef07, '89005924'],
  [2000000000, 0x3f940aa, '69279037'],
  [20000000000, 0x27bc86aa, '65353130'],
];

/** RFC 4226 Appendix D: HOTP of counters 0–9, 6 digits. */
const RFC4226 = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];

describe('RFC 6238 TOTP on node:crypto (HMAC-SHA1, T0 = 0, period 30)', () => {
  it.each(RFC6238_SHA1)('at %i s (T = %i) gives the RFC 8-digit value, and its last 6 digits with 6', (seconds, step, eight) => {
    expect(timeStep(seconds * 1000, 30)).toBe(step);
    expect(totpAt(SEED, seconds * 1000, 30, 8)).toBe(eight);
    expect(totpAt(SEED, seconds * 1000, 30)).toBe(eight.slice(2));
  });

  it('gives the RFC 4226 HOTP values for counters 0–9', () => {
    expect(RFC4226.map((_, counter) => hotp(SEED, counter))).toEqual(RFC4226);
  });

  it('takes the seed through base32 as a device stores it', () => {
    expect(base32Encode(SEED)).toBe(SEED_BASE32);
    expect(base32Decode(SEED_BASE32)).toEqual(SEED);
  });

  it('matches the codes of the steps -skew … +skew and no other', () => {
    const now = 1111111111 * 1000;
    const codeAt = (i: number) => totpAt(SEED, now + i * 30_000, 30);
    expect([-1, 0, 1].map((i) => matchesWindow(SEED, codeAt(i), now, 30, 1))).toEqual([true, true, true]);
    expect([-2, 2].map((i) => matchesWindow(SEED, codeAt(i), now, 30, 1))).toEqual([false, false]);
    expect([-2, 2].map((i) => matchesWindow(SEED, codeAt(i), now, 30, 2))).toEqual([true, true]);
    expect(matchesWindow(SEED, codeAt(1), now, 30, 0)).toBe(false);
    expect(matchesWindow(SEED, codeAt(0), now, 30, 0)).toBe(true);
  });

  it('never matches a code of another length, the 8-digit form included', () => {
    const now = 59_000;
    expect(matchesWindow(SEED, '94287082', now, 30, 1)).toBe(false);
    expect(matchesWindow(SEED, '28708', now, 30, 1)).toBe(false);
    expect(matchesWindow(SEED, '287082', now, 30, 1)).toBe(true);
    expect(matchesWindow(SEED, '２８７０８２', now, 30, 1)).toBe(false);
  });

  it('counts steps as the core (Java division, toward zero) with a period of 60', () => {
    expect(timeStep(119_999, 60)).toBe(1);
    expect(timeStep(-1_000, 30)).toBe(0);
    expect(totpAt(SEED, 59_000, 60)).toBe(hotp(SEED, 0));
  });
});

describe('RFC 4648 base32', () => {
  /** RFC 4648 §10, without the padding. */
  const VECTORS: readonly [string, string][] = [
    ['', ''],
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ];

  it.each(VECTORS)('encodes %j as %j and back', (text, encoded) => {
    expect(base32Encode(Buffer.from(text))).toBe(encoded);
    expect(base32Decode(encoded)?.toString()).toBe(text);
  });

  it('encodes 20 bytes as 32 characters without padding', () => {
    expect(base32Encode(Buffer.alloc(20, 0xff))).toBe('7'.repeat(32));
  });

  it('refuses another character and a length no encoding has', () => {
    expect(base32Decode('MZXW6YT1')).toBeUndefined();
    expect(base32Decode('mzxw6ytb')).toBeUndefined();
    expect(base32Decode('MZXW6===')).toBeUndefined();
    expect(['M', 'MZX', 'MZXW6Y'].map(base32Decode)).toEqual([undefined, undefined, undefined]);
  });

  it('normalises a given secret: spaces and = removed, upper-cased', () => {
    expect(normaliseSecret(' gezd gnbv\tgy3t qojq gezd gnbv gy3t qojq== ')).toBe(SEED_BASE32);
  });
});
