import { isThrottlingError } from '../../lib/storage/errors';

/** An error as the SDK raises it: its name, and for a cancelled transaction the reason of each item. */
function sdkError(name: string, codes?: string[]): Error {
  const err = new Error(`${name} from DynamoDB`);
  err.name = name;
  if (codes) Object.assign(err, { CancellationReasons: codes.map((Code) => ({ Code })) });
  return err;
}

describe('isThrottlingError', () => {
  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException'])('is true for a call DynamoDB refused for load: %s', (name) => {
    expect(isThrottlingError(sdkError(name))).toBe(true);
  });

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
