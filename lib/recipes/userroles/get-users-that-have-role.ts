import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { MAX_ANSWER_BODY_BYTES } from '../answer-size';

/**
 * `GET /<tenant>/recipe/role/users`: the user ids holding a role in the tenant, or
 * `UNKNOWN_ROLE_ERROR`. The core answers every id; a 400 when they are more than one answer
 * carries (`MAX_ANSWER_BODY_BYTES`, each id its length and 5 bytes more: its quotes, escaped in
 * the answer's body, and a comma; about 120,000 UUIDs), which a migration that gives every user
 * one role reaches.
 */
export async function getUsersThatHaveRole(
  deps: Pick<Deps, 'roles'>,
  tenantId: string,
  role: string,
): Promise<{ status: 'OK'; users: string[] } | { status: 'UNKNOWN_ROLE_ERROR' }> {
  const current = await deps.roles.getRole(role);
  if (!current) return { status: 'UNKNOWN_ROLE_ERROR' };
  const users = await deps.roles.usersWithRole(tenantId, current, MAX_ANSWER_BODY_BYTES);
  if (!users) {
    throw new InvalidInputError(
      `Field name 'role' names a role held by more users in this tenant than one answer can carry (${MAX_ANSWER_BODY_BYTES} bytes of user ids, about 120,000 users)`,
    );
  }
  return { status: 'OK', users };
}
