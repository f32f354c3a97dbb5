import type { UserRecord } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { CHANGE_NOT_ALLOWED_REASON } from '../accountlinking/conflicts';
import { InvalidInputError } from '../errors';
import { findLogin, updateLoginMethod } from '../users/find-login';
import { deletePendingDevices } from './pending-devices';

export interface UpdatePasswordlessUserInput {
  /** The passwordless login method's recipe user id. */
  readonly userId: string;
  /** Normalised email to set, `null` to clear, `undefined` to leave unchanged. */
  readonly email?: string | null;
  readonly phoneNumber?: string | null;
}

export type UpdatePasswordlessUserResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string }
  | { status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

/**
 * Sets or clears a passwordless login method's email and phone number (seed 4.3). The uniqueness
 * guards move in the same transaction as the user; a changed value starts unverified; pending
 * devices of the old and the new value are deleted. When the login method belongs to a primary
 * user, a value another primary user sharing one of its tenants holds is refused
 * (`EMAIL_CHANGE_NOT_ALLOWED_ERROR` / `PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR`, as in the core).
 */
export async function updatePasswordlessUser(
  deps: Pick<Deps, 'users' | 'passwordless'>,
  input: UpdatePasswordlessUserInput,
): Promise<UpdatePasswordlessUserResult> {
  return retryOnRace<UpdatePasswordlessUserResult>('Updating the user', async () => {
    const login = await findLogin(deps, input.userId);
    if (!login || login.loginMethod.recipeId !== 'passwordless') return { status: 'UNKNOWN_USER_ID_ERROR' };
    const lm = login.loginMethod;
    const email = input.email === undefined ? lm.email : (input.email ?? undefined);
    const phoneNumber = input.phoneNumber === undefined ? lm.phoneNumber : (input.phoneNumber ?? undefined);
    if (email === undefined && phoneNumber === undefined) {
      throw new InvalidInputError('You cannot clear both email and phone number of a user');
    }
    if (email === lm.email && phoneNumber === lm.phoneNumber) return { status: 'OK' };
    const { email: _e, phoneNumber: _p, ...rest } = lm;
    const after: UserRecord = {
      ...rest,
      ...(email !== undefined ? { email } : {}),
      ...(phoneNumber !== undefined ? { phoneNumber } : {}),
      phoneVerified: phoneNumber === lm.phoneNumber && lm.phoneVerified,
    };
    const result = await updateLoginMethod(deps, login, after);
    if (result.status === 'ACCOUNT_INFO_TAKEN') {
      return result.identity === 'phone'
        ? { status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR', reason: CHANGE_NOT_ALLOWED_REASON.updatePhoneNumber }
        : { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: CHANGE_NOT_ALLOWED_REASON.updateEmail };
    }
    if (result.status === 'IDENTITY_TAKEN') {
      return { status: result.identity === 'phone' ? 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' : 'EMAIL_ALREADY_EXISTS_ERROR' };
    }
    if (result.status === 'OK') {
      const tenantId = lm.tenantIds[0];
      const touched = [
        ...(email !== lm.email ? [lm.email, email] : []).filter((e): e is string => e !== undefined).map((e) => ({ email: e })),
        ...(phoneNumber !== lm.phoneNumber ? [lm.phoneNumber, phoneNumber] : []).filter((p): p is string => p !== undefined).map((p) => ({ phoneNumber: p })),
      ];
      await Promise.all(touched.map((identity) => deletePendingDevices(deps, tenantId, identity)));
      return { status: 'OK' };
    }
    return undefined;
  });
}
