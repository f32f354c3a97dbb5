import { UsageError } from '../errors';
import { failedUser } from '../mapping';
import { usersArray } from '../read';
import type { BulkUserInput, MappedUser, Source } from '../model';

/**
 * A SuperTokens bulk file (`{"users":[…]}`, the body of `POST /bulk-import/users` without its
 * limit), streamed. Its users go to the service unchanged: the service validates them and its
 * per-user errors end in the report. The command adds batches that fit the service's limits,
 * collisions found before writing, progress, the report and the ledger.
 */
export function supertokensSource(file: string): Source {
  return {
    async *users(): AsyncGenerator<MappedUser> {
      try {
        for await (const { key, value } of usersArray(file)) {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) {
            yield failedUser(`#${key}`, undefined, 'not-a-user', `users[${key}] is not an object`);
            continue;
          }
          const user = value as BulkUserInput;
          const times = (Array.isArray(user.loginMethods) ? user.loginMethods : [])
            .map((m) => m?.timeJoinedInMSSinceEpoch)
            .filter((t): t is number => typeof t === 'number');
          const sourceId = typeof user.externalUserId === 'string' && user.externalUserId !== '' ? user.externalUserId : `#${key}`;
          yield { sourceId, ...(times.length > 0 ? { createdAt: Math.min(...times) } : {}), user, warnings: [] };
        }
      } catch (err) {
        throw new UsageError(`${file} is not a bulk file ({"users":[…]}): ${(err as Error).message}`);
      }
    },
    notes: () => ({}),
  };
}
