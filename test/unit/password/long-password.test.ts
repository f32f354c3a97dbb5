import { FORM_CHECKS, PASSWORD_EVERY_ROUND } from '../../../lib/password/checks';
import { md5CryptHash } from '../../../lib/password/checks/md5-crypt';
import { iteratedDigest } from '../../../lib/password/checks/phpass';
import { shaCryptHash } from '../../../lib/password/checks/sha-crypt';
import { storedFormOf } from '../../../lib/password/families';
import type { HashForm } from '../../../lib/password/forms/form';
import { CRYPT_MAX_PASSWORD_BYTES, MAX_PASSWORD_BYTES } from '../../../lib/password/limits';
import { dummyVerify } from '../../../lib/password/own-hash';
import { verifyPassword } from '../../../lib/password/verify';
import { FAMILY_VECTORS } from '../../fixtures/hash-family-vectors';

/*
 * A password longer than CRYPT_MAX_PASSWORD_BYTES against a form that digests it at every round is a
 * wrong password without its check (which is counted, never timed), at the cost of an unknown email's
 * dummy verification; every other form checks a password up to the input bound.
 */

jest.mock('../../../lib/password/checks', () => {
  const actual = jest.requireActual<typeof import('../../../lib/password/checks')>('../../../lib/password/checks');
  return { ...actual, FORM_CHECKS: new Map([...actual.FORM_CHECKS].map(([form, check]) => [form, jest.fn(check)])) };
});
jest.mock('../../../lib/password/own-hash', () => {
  const actual = jest.requireActual<typeof import('../../../lib/password/own-hash')>('../../../lib/password/own-hash');
  return { ...actual, dummyVerify: jest.fn(actual.dummyVerify) };
});

const OWN_HASH = { memoryKiB: 1024, iterations: 1, parallelism: 1 };
const CTX = { ownHash: OWN_HASH };

/** How often the check of `hash`'s form ran since the last `jest.clearAllMocks()`. */
function checksRun(hash: string): number {
  const form = storedFormOf(hash)?.form as HashForm<unknown>;
  return jest.mocked(FORM_CHECKS.get(form) as jest.Mock).mock.calls.length;
}

/** A hash of `password` in each form that digests it at every round, made at the lowest cost the bounds allow. */
function everyRoundHashes(password: string): Array<[label: string, hash: string]> {
  const bytes = Buffer.from(password, 'utf8');
  const sha512 = `$6$rounds=1000$saltsalt$${shaCryptHash('sha512', bytes, Buffer.from('saltsalt'), 1000)}`;
  const md5 = `$1$saltsalt$${md5CryptHash(bytes, '$1$', Buffer.from('saltsalt'))}`;
  // Count character `5`: log2 count 7, phpass's minimum.
  return [
    ['$1$', md5],
    ['$apr1$', `$apr1$saltsalt$${md5CryptHash(bytes, '$apr1$', Buffer.from('saltsalt'))}`],
    ['$5$', `$5$rounds=1000$saltsalt$${shaCryptHash('sha256', bytes, Buffer.from('saltsalt'), 1000)}`],
    ['$6$', sha512],
    ['$P$', `$P$5saltsalt${iteratedDigest('md5', bytes, 'saltsalt', 7)}`],
    ['$H$', `$H$5saltsalt${iteratedDigest('md5', bytes, 'saltsalt', 7)}`],
    ['$S$', `$S$5saltsalt${iteratedDigest('sha512', bytes, 'saltsalt', 7).slice(0, 43)}`],
    ['{CRYPT}$6$', `{CRYPT}${sha512}`],
    ['{CRYPT}$1$', `{CRYPT}${md5}`],
  ];
}

/** `bytes` UTF-8 bytes: three-byte `€`s, then ASCII to make up the rest. */
function passwordOf(bytes: number): string {
  const euros = '€'.repeat(Math.floor(bytes / 3));
  const password = euros + 'x'.repeat(bytes - Buffer.byteLength(euros));
  expect(Buffer.byteLength(password)).toBe(bytes);
  return password;
}

const AT_LIMIT = passwordOf(CRYPT_MAX_PASSWORD_BYTES);
const PAST_LIMIT = passwordOf(CRYPT_MAX_PASSWORD_BYTES + 1);

beforeEach(() => jest.clearAllMocks());

describe('a password past CRYPT_MAX_PASSWORD_BYTES', () => {
  it('is shorter than the input bound, which already refuses longer ones', () => {
    expect(CRYPT_MAX_PASSWORD_BYTES).toBeLessThan(MAX_PASSWORD_BYTES);
  });

  it.each(everyRoundHashes(PAST_LIMIT))('%s: its own hash does not match, and the check never runs', async (_label, hash) => {
    expect(await verifyPassword(PAST_LIMIT, hash, CTX)).toBe(false);
    expect(checksRun(hash)).toBe(0);
    // The work of an unknown email instead: one dummy verification of the own hash.
    expect(jest.mocked(dummyVerify).mock.calls).toEqual([[PAST_LIMIT, OWN_HASH]]);
  });

  it('counts bytes, not characters: 171 three-byte characters are past the limit', async () => {
    const password = '€'.repeat(171);
    const [[, hash]] = everyRoundHashes(password);
    expect(await verifyPassword(password, hash, CTX)).toBe(false);
    expect(checksRun(hash)).toBe(0);
  });

  it('spends nothing more when the caller gives no own-hash parameters', async () => {
    const [[, hash]] = everyRoundHashes(PAST_LIMIT);
    expect(await verifyPassword(PAST_LIMIT, hash, {})).toBe(false);
    expect(checksRun(hash)).toBe(0);
    expect(dummyVerify).not.toHaveBeenCalled();
  });
});

describe('a password of CRYPT_MAX_PASSWORD_BYTES', () => {
  it.each(everyRoundHashes(AT_LIMIT))('%s: is checked, and matches its hash', async (_label, hash) => {
    expect(await verifyPassword(AT_LIMIT, hash, CTX)).toBe(true);
    expect(await verifyPassword(`${AT_LIMIT.slice(0, -1)}y`, hash, CTX)).toBe(false);
    expect(checksRun(hash)).toBe(2);
    expect(dummyVerify).not.toHaveBeenCalled();
  });
});

describe('the forms that read the password once', () => {
  const vectors = FAMILY_VECTORS.map((v) => v.hash);
  const onePerForm = new Map<HashForm<unknown>, string>();
  for (const hash of vectors) {
    const form = storedFormOf(hash)?.form;
    if (form && FORM_CHECKS.has(form) && !onePerForm.has(form)) onePerForm.set(form, hash);
  }
  const readOnce = [...onePerForm].filter(([form]) => !PASSWORD_EVERY_ROUND.has(form)).map(([, hash]) => hash);

  it('are every checked form but the ones digesting the password at every round, each with a vector', () => {
    expect(onePerForm.size).toBe(FORM_CHECKS.size);
    expect(readOnce).toHaveLength(FORM_CHECKS.size - PASSWORD_EVERY_ROUND.size);
    expect(PASSWORD_EVERY_ROUND.size).toBe(8);
  });

  it('check a password up to the input bound', async () => {
    const longest = passwordOf(MAX_PASSWORD_BYTES);
    for (const hash of readOnce) {
      expect(await verifyPassword(longest, hash, CTX)).toBe(false);
      expect(checksRun(hash)).toBe(1);
    }
    expect(dummyVerify).not.toHaveBeenCalled();
  });
});
