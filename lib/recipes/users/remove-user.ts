import { WRITE_TRIES, type Deps } from '../deps';


/**
 * Removes a user with every uniqueness guard it holds (email, phone, third-party identity), in one
 * transaction, so each identity can be used again at once. Pending passwordless devices are not
 * the user's (they belong to an email or phone) and stay: consuming one later signs up a new user.
 */
export async function removeUser(deps: Pick<Deps, 'users'>, userId: string): Promise<{ status: 'OK'; didUserExist: boolean }> {
  for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
    const user = await deps.users.getUser(userId);
    if (!user) return { status: 'OK', didUserExist: false };
    const result = await deps.users.deleteUser(user);
    if (result.status === 'OK') return { status: 'OK', didUserExist: true };
  }
  throw new Error('Removing the user lost the race with its updates too often');
}
