import type { UserRecord } from '../../storage/model';
import { WRITE_TRIES, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { deletePendingDevices } from './pending-devices';

export interface UpdatePasswordlessUserInput {
  readonly userId: string;
  /** Normalised email to set, `null` to clear, `undefined` to leave unchanged. */
  readonly email?: string | null;
  readonly phoneNumber?: string | null;
}

export type UpdatePasswordlessUserResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' };


/**
 * Sets or clears a passwordless user's email and phone number (seed 4.3). The uniqueness guards
 * move in the same transaction as the user; a changed value starts unverified; pending devices of
 * the old and the new value are deleted.
 */
export async function updatePasswordlessUser(
  deps: Pick<Deps, 'users' | 'passwordless'>,
  input: UpdatePasswordlessUserInput,
): Promise<UpdatePasswordlessUserResult> {
  for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
    const user = await deps.users.getUser(input.userId);
    if (!user || user.recipeId !== 'passwordless') return { status: 'UNKNOWN_USER_ID_ERROR' };
    const email = input.email === undefined ? user.email : (input.email ?? undefined);
    const phoneNumber = input.phoneNumber === undefined ? user.phoneNumber : (input.phoneNumber ?? undefined);
    if (email === undefined && phoneNumber === undefined) {
      throw new InvalidInputError('You cannot clear both email and phone number of a user');
    }
    if (email === user.email && phoneNumber === user.phoneNumber) return { status: 'OK' };
    const { email: _e, phoneNumber: _p, ...rest } = user;
    const after: UserRecord = {
      ...rest,
      ...(email !== undefined ? { email } : {}),
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      emailVerified: email === user.email && user.emailVerified,
      phoneVerified: phoneNumber === user.phoneNumber && user.phoneVerified,
    };
    const result = await deps.users.updateUser(user, after);
    if (result.status === 'IDENTITY_TAKEN') {
      return { status: result.identity === 'phone' ? 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' : 'EMAIL_ALREADY_EXISTS_ERROR' };
    }
    if (result.status === 'OK') {
      const tenantId = user.tenantIds[0];
      const touched = [
        ...(email !== user.email ? [user.email, email] : []).filter((e): e is string => e !== undefined).map((e) => ({ email: e })),
        ...(phoneNumber !== user.phoneNumber ? [user.phoneNumber, phoneNumber] : [])
          .filter((p): p is string => p !== undefined)
          .map((p) => ({ phoneNumber: p })),
      ];
      await Promise.all(touched.map((identity) => deletePendingDevices(deps, tenantId, identity)));
      return { status: 'OK' };
    }
  }
  throw new Error('Updating the user lost the race too often');
}
