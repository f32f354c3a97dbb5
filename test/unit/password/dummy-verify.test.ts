import { hash, verify } from '@node-rs/argon2';
import { dummyVerify } from '../../../lib/password';

jest.mock('@node-rs/argon2', () => {
  const actual = jest.requireActual<typeof import('@node-rs/argon2')>('@node-rs/argon2');
  return { ...actual, hash: jest.fn(actual.hash), verify: jest.fn(actual.verify) };
});

const PARAMS = { memoryKiB: 2048, iterations: 3, parallelism: 1 };

describe('dummyVerify', () => {
  it('spends one own-algorithm verification per call against a hash computed once, lazily', async () => {
    expect(hash).not.toHaveBeenCalled();

    await Promise.all([dummyVerify('first', PARAMS), dummyVerify('second', PARAMS)]);
    await dummyVerify('third', PARAMS);

    expect(hash).toHaveBeenCalledTimes(1);
    expect(verify).toHaveBeenCalledTimes(3);
    const verified = jest.mocked(verify).mock.calls.map(([stored]) => stored);
    expect(new Set(verified).size).toBe(1);
    expect(String(verified[0])).toMatch(/^\$argon2id\$v=19\$m=2048,t=3,p=1\$/);
    expect(jest.mocked(verify).mock.calls.map(([, password]) => password)).toEqual(['first', 'second', 'third']);
  });

  it('computes a separate hash for other parameters, so the cost matches them', async () => {
    jest.mocked(hash).mockClear();
    await dummyVerify('x', { memoryKiB: 1024, iterations: 1, parallelism: 1 });
    expect(hash).toHaveBeenCalledTimes(1);
    expect(jest.mocked(verify).mock.calls.at(-1)?.[0]).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
  });
});
