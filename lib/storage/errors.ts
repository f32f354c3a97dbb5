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
