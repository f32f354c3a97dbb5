/**
 * Reading the fields of a bulk user (SPEC §15): the generic texts (`<field> is required<sfx>`,
 * `<field> should be of type <t><sfx>`), the echo of a value in a text, and the email rule every
 * recipe shares. Apart from `bulk-user.ts`, so a recipe's part in a file of its own reads the
 * same way.
 */

const MAX_EMAIL = 256;

/**
 * A value as an error text echoes it: in full up to 300 characters (every value within its bound),
 * else its start. An over-long value is echoed once or twice per error, and an answer must stay
 * under Lambda's 6 MB however long the values of a 6 MB request are.
 */
const MAX_SHOWN = 300;
export const shown = (value: string): string => (value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value);

export type FieldType = 'string' | 'integer' | 'boolean' | 'object' | 'array of string' | 'array of object';
export type Obj = Readonly<Record<string, unknown>>;

export const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return isText(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value);
    case 'array of string':
      return Array.isArray(value) && value.every(isText);
    case 'array of object':
      return Array.isArray(value) && value.every(isObject);
  }
}

/** Reads the fields of one object, collecting errors with one suffix. */
export class FieldReader {
  constructor(
    private readonly obj: Obj,
    private readonly errors: string[],
    private readonly sfx: string,
  ) {}

  /** The value if present and of the type; an error (and `undefined`) otherwise. */
  read<T>(key: string, type: FieldType, required: boolean, sfx = this.sfx): T | undefined {
    if (!Object.hasOwn(this.obj, key)) {
      if (required) this.errors.push(`${key} is required${sfx}`);
      return undefined;
    }
    const value = this.obj[key];
    if (!hasType(value, type)) {
      this.errors.push(`${key} should be of type ${type}${sfx}`);
      return undefined;
    }
    // Strings and arrays of strings here; objects are read field by field (metadata on its own).
    const strings = type === 'string' ? [value as string] : type === 'array of string' ? (value as string[]) : [];
    if (!strings.every((s) => s.isWellFormed())) {
      this.errors.push(`${key} is not valid Unicode: it holds a lone surrogate${sfx}`);
      return undefined;
    }
    return value as T;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.obj, key);
  }

  string(key: string, required = false): string | undefined {
    return this.read<string>(key, 'string', required);
  }
}

/** Trims and lower-cases an email (SPEC §3), or says what is wrong with it. */
export function normaliseEmail(raw: string | undefined, sfx: string, errors: string[]): string | undefined {
  if (raw === undefined) return undefined;
  const email = raw.trim().toLowerCase();
  // The core's bound and text: above 255 characters, "Max length is 256".
  if (raw.length > MAX_EMAIL - 1) errors.push(`email ${shown(raw)} is too long. Max length is ${MAX_EMAIL}.`);
  else if (!email.includes('@')) errors.push(`email ${shown(raw)} is not an email address: it has no '@'${sfx}`);
  else if (/\s/.test(email)) errors.push(`email ${shown(raw)} is not an email address: it contains whitespace${sfx}`);
  return email;
}
