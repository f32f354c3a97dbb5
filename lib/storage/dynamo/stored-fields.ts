/**
 * Reading what DynamoDB holds back into typed values: one reader per kind of field, which returns
 * the value when it has the field's type and otherwise throws `StoredItemError` naming the field
 * (never its value), so an item this build did not write is an error, not a cast.
 */

/** A stored item or map, as DynamoDB's document client returns it. */
export type Stored = Readonly<Record<string, unknown>>;

/** A stored item that is not what this build writes: the checker reports it, a request answers 500. */
export class StoredItemError extends Error {
  constructor(field: string, expected: string) {
    super(`A stored item's ${field} is not ${expected}`);
    this.name = 'StoredItemError';
  }
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
export const isObject = (v: unknown): v is Stored => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A field's reader: the value when it has the field's type, else a `StoredItemError`. */
export type Reader<T> = (value: unknown, field: string) => T;

export function required<T>(test: (v: unknown) => v is T, expected: string): Reader<T> {
  return (v, field) => {
    if (!test(v)) throw new StoredItemError(field, expected);
    return v;
  };
}
export function optional<T>(test: (v: unknown) => v is T, expected: string): Reader<T | undefined> {
  return (v, field) => (v === undefined ? undefined : required(test, expected)(v, field));
}

export const readString = required(isString, 'a string');
export const readOptionalString = optional(isString, 'a string');
export const readNumber = required((v): v is number => typeof v === 'number', 'a number');
export const readStrings = required(isStrings, 'a list of strings');
