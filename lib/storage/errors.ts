import { sleep } from '../pool';

/** DynamoDB allows at most 100 items in one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * A change that would touch more items than one DynamoDB transaction holds: only a user with very
 * many login methods, tenants and identifiers gets here. The HTTP layer answers 400 with the text.
 */
export class TooManyItemsError extends Error {
  constructor(readonly items: number) {
    super(
      `This change would write ${items} stored items, more than the ${MAX_TRANSACTION_ITEMS} one transaction holds: the user has too many login methods, tenants and identifiers to change at once`,
    );
    this.name = 'TooManyItemsError';
  }
}

/** The names of DynamoDB's errors for a call refused for load (the SDK has already retried them). */
const THROTTLED_CALLS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException']);

/** The reasons DynamoDB gives for cancelling a transaction for load: an item's table or index had no capacity. */
const THROTTLED_ITEMS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * Whether DynamoDB refused a call for load: a throttled call, or a transaction cancelled because an
 * item's table or index had no capacity for it (and no condition failed). Nothing was written, and
 * the same call may succeed later: the HTTP layer answers 503, and the bulk worker waits and tries
 * the row again instead of counting an attempt that failed.
 */
export function isThrottlingError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (THROTTLED_CALLS.has(err.name)) return true;
  if (err.name !== 'TransactionCanceledException') return false;
  const codes = ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return codes.some((code) => THROTTLED_ITEMS.has(code)) && !codes.includes('ConditionalCheckFailed');
}

/**
 * Runs `run` again while DynamoDB refuses it for load (`isThrottlingError`), after 100 ms doubling
 * up to 5 s (jittered), as long as the next try would start before `until` (epoch ms); then, or on
 * any other error, throws. `onWait` hears of each wait. Conditions are evaluated anew by each try.
 */
export async function whileThrottled<T>(run: () => Promise<T>, until: number, onWait?: () => void): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await run();
    } catch (err) {
      const wait = Math.min(5_000, 100 * 2 ** retry) * (0.5 + Math.random());
      if (!isThrottlingError(err) || Date.now() + wait > until) throw err;
      onWait?.();
      await sleep(wait);
    }
  }
}
