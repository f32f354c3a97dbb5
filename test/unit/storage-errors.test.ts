import { isThrottlingError, whileThrottled } from '../../lib/storage/errors';

/** An error as the SDK raises it: its name, and for a cancelled transaction the reason of each item. */
function sdkError(name: string, codes?: string[]): Error {
  const err = new Error(`${name} from DynamoDB`);
  err.name = name;
  if (codes) Object.assign(err, { CancellationReasons: codes.map((Code) => ({ Code })) });
  return err;
}

describe('isThrottlingError', () => {
  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException'])(
    'is true for a call DynamoDB refused for load: %s',
    (name) => {
      expect(isThrottlingError(sdkError(name))).toBe(true);
    },
  );

  it.each([
    [['ThrottlingError', 'None'], true],
    [['None', 'ProvisionedThroughputExceeded'], true],
    [['ThrottlingError', 'TransactionConflict'], true],
    // A failed condition is an answer (the email is taken, the version moved), whatever else was short.
    [['ThrottlingError', 'ConditionalCheckFailed'], false],
    [['TransactionConflict', 'None'], false],
    [['ValidationError'], false],
    [[], false],
  ])('for a transaction cancelled with reasons %j is %s', (codes, expected) => {
    expect(isThrottlingError(sdkError('TransactionCanceledException', codes))).toBe(expected);
  });

  it('is false for other errors and for what is not an error', () => {
    expect(isThrottlingError(sdkError('ConditionalCheckFailedException'))).toBe(false);
    expect(isThrottlingError(sdkError('ResourceNotFoundException'))).toBe(false);
    expect(isThrottlingError(new Error('socket hang up'))).toBe(false);
    expect(isThrottlingError({ name: 'ThrottlingException' })).toBe(false);
    expect(isThrottlingError(undefined)).toBe(false);
  });
});

describe('whileThrottled', () => {
  it('tries again after a wait while DynamoDB refuses for load, and returns the answer that comes', async () => {
    let tries = 0;
    let waits = 0;
    const answer = await whileThrottled(
      async () => {
        if (++tries < 4) throw sdkError('TransactionCanceledException', ['ThrottlingError']);
        return 'written';
      },
      Date.now() + 10_000,
      () => waits++,
    );
    expect([answer, tries, waits]).toEqual(['written', 4, 3]);
  });

  it('throws any other error at once', async () => {
    let tries = 0;
    const failing = whileThrottled(async () => {
      tries++;
      throw sdkError('ValidationException');
    }, Date.now() + 10_000);
    await expect(failing).rejects.toThrow('ValidationException from DynamoDB');
    expect(tries).toBe(1);
  });

  it('gives up with the refusal when the next try would start after the deadline', async () => {
    // On a clock of its own (fake timers): the waits it took, not how busy this machine is.
    jest.useFakeTimers({ now: 0 });
    try {
      let tries = 0;
      const refused = whileThrottled(async () => {
        tries++;
        throw sdkError('ProvisionedThroughputExceededException');
      }, 300);
      const settled = expect(refused).rejects.toThrow('ProvisionedThroughputExceededException from DynamoDB');
      await jest.runAllTimersAsync();
      await settled;
      expect(tries).toBeGreaterThan(1);
      expect(Date.now()).toBeLessThanOrEqual(300);
    } finally {
      jest.useRealTimers();
    }
  });
});
