import { BadRequestError } from './errors';
import { lookupEmail, normalisePhoneNumber, optionalString, type Fields } from './input';

/** Account info from a query string: email and phone normalised (the email as a lookup's), third-party ids as given. */
export interface AccountInfoQuery {
  email?: string;
  phoneNumber?: string;
  thirdParty?: { id: string; userId: string };
}

/** Reads `email`, `phoneNumber`, `thirdPartyId` + `thirdPartyUserId` from a query. */
export function parseAccountInfo(query: Fields): AccountInfoQuery {
  const email = optionalString(query, 'email');
  const phoneNumber = optionalString(query, 'phoneNumber');
  const thirdPartyId = optionalString(query, 'thirdPartyId');
  const thirdPartyUserId = optionalString(query, 'thirdPartyUserId');
  if ((thirdPartyId === undefined) !== (thirdPartyUserId === undefined)) {
    throw new BadRequestError('Please provide both thirdPartyId and thirdPartyUserId, or neither');
  }
  return {
    ...(email !== undefined ? { email: lookupEmail(email) } : {}),
    ...(phoneNumber !== undefined ? { phoneNumber: normalisePhoneNumber(phoneNumber) } : {}),
    ...(thirdPartyId !== undefined ? { thirdParty: { id: thirdPartyId, userId: thirdPartyUserId as string } } : {}),
  };
}
