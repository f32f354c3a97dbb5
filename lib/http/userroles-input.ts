import { MAX_PERMISSIONS_PER_REQUEST, MAX_ROLE_LENGTH } from '../recipes/userroles/limits';
import { BadRequestError, invalidField } from './errors';
import { checkWellFormed, requiredQueryParam, requiredString, type Fields } from './input';

function trimmedName(name: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new BadRequestError(`Field name '${name}' cannot be an empty String`);
  if (trimmed.length > MAX_ROLE_LENGTH) throw new BadRequestError(`Field name '${name}' is too long: the maximum is ${MAX_ROLE_LENGTH} characters`);
  return trimmed;
}

/** `role` of a body: trimmed, not empty, at most 255 characters (the core's rules and texts). */
export function roleOf(body: Fields): string {
  return trimmedName('role', requiredString(body, 'role'));
}

/** A required query parameter naming a role or permission (`role`, `permission`): trimmed, not empty. */
export function nameParam(query: Fields, name: 'role' | 'permission'): string {
  return trimmedName(name, requiredQueryParam(query, name));
}

/**
 * `permissions`: an array of non-empty strings (trimmed), at most 500; absent (or `null`) is
 * `undefined`. A non-string element makes the field invalid, as in the core.
 */
export function permissionsOf(body: Fields): string[] | undefined {
  const value = body.permissions;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidField('permissions');
  if (value.length > MAX_PERMISSIONS_PER_REQUEST) {
    throw new BadRequestError(`Field name 'permissions' holds ${value.length} permissions: the maximum is ${MAX_PERMISSIONS_PER_REQUEST}`);
  }
  return value.map((p: unknown) => {
    if (typeof p !== 'string') throw invalidField('permissions');
    checkWellFormed('permissions', p);
    const trimmed = p.trim();
    if (trimmed === '') throw new BadRequestError("Field name 'permissions' cannot contain an empty string");
    if (trimmed.length > MAX_ROLE_LENGTH) throw new BadRequestError(`Field name 'permissions' holds a permission longer than ${MAX_ROLE_LENGTH} characters`);
    return trimmed;
  });
}
