import { DEFAULT_ALGORITHMS, DEFAULT_TIMEOUT_MS, type OptionsRequest } from '../recipes/webauthn/options-rules';
import { invalidField } from './errors';
import { normaliseEmail, optionalBoolean, optionalString, requiredObject, requiredQueryParam, requiredString, type Fields } from './input';

/**
 * The WebAuthn endpoints' input (SPEC §21): presence and JSON types are §1's 400s, as the core's
 * `InputParser`; the values themselves (origin, enumerations, algorithm ids) are the recipe's
 * `INVALID_OPTIONS_ERROR`. Empty optional strings take the default, as in the core.
 */

/** An optional string whose empty form means the default. */
const orDefault = (fields: Fields, name: string, fallback: string): string => optionalString(fields, name) || fallback;

/** `timeout`: a JSON integer (the core's `Long`); a negative one is the recipe's refusal. */
function timeoutOf(fields: Fields): number {
  const value = fields.timeout;
  if (value === undefined || value === null) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidField('timeout');
  return value;
}

/** What both options requests carry. */
function common(body: Fields): Omit<OptionsRequest, 'attestation' | 'residentKey' | 'supportedAlgorithmIds'> {
  return {
    relyingPartyId: requiredString(body, 'relyingPartyId'),
    relyingPartyName: requiredString(body, 'relyingPartyName'),
    origin: requiredString(body, 'origin'),
    timeout: timeoutOf(body),
    userVerification: orDefault(body, 'userVerification', 'preferred'),
    userPresence: body.userPresence === null ? false : optionalBoolean(body, 'userPresence', false),
  };
}

/**
 * `POST …/options/register`. The algorithm list is read from `supportedAlgorithmIds` (what the SDK
 * sends) or `supportedAlgorithmIDs` (what the core reads).
 */
export function registerOptionsInput(body: Fields): OptionsRequest & { email: string; displayName: string } {
  const email = normaliseEmail(requiredString(body, 'email'));
  const displayName = orDefault(body, 'displayName', email);
  const name = body.supportedAlgorithmIds !== undefined ? 'supportedAlgorithmIds' : 'supportedAlgorithmIDs';
  const algorithms = body[name];
  if (algorithms !== undefined && algorithms !== null && !Array.isArray(algorithms)) throw invalidField(name);
  return {
    ...common(body),
    email,
    displayName,
    attestation: orDefault(body, 'attestation', 'none'),
    residentKey: orDefault(body, 'residentKey', 'required'),
    supportedAlgorithmIds: Array.isArray(algorithms) ? algorithms : [...DEFAULT_ALGORITHMS],
  };
}

/** `POST …/options/signin`. */
export const signInOptionsInput = common;

/** `POST …/signup`, `…/signin`: the options id and the browser's credential JSON. */
export function ceremonyInput(body: Fields): { optionsId: string; credential: Fields } {
  return { optionsId: requiredString(body, 'webauthnGeneratedOptionsId'), credential: requiredObject(body, 'credential') };
}

/** `POST /recipe/webauthn/user/credential/register`. */
export function registerCredentialInput(body: Fields): { recipeUserId: string; optionsId: string; credential: Fields } {
  return { recipeUserId: requiredString(body, 'recipeUserId'), ...ceremonyInput(body) };
}

/** `?webauthnGeneratedOptionsId=` of the options' GET and DELETE. */
export const optionsIdQuery = (query: Fields): string => requiredQueryParam(query, 'webauthnGeneratedOptionsId');

/** `?recipeUserId=&webauthnCredentialId=` of a passkey's GET and DELETE. */
export function credentialQuery(query: Fields): { recipeUserId: string; credentialId: string } {
  return { recipeUserId: requiredQueryParam(query, 'recipeUserId'), credentialId: requiredQueryParam(query, 'webauthnCredentialId') };
}

/** `POST …/user/recover/token`: the user (any id form) and the email to recover (normalised, §3). */
export function recoverTokenInput(body: Fields): { userId: string; email: string } {
  return { userId: requiredString(body, 'userId'), email: normaliseEmail(requiredString(body, 'email')) };
}

/** `PUT …/user/email`: the webauthn login method and its new email (normalised, §3). */
export function updateEmailInput(body: Fields): { recipeUserId: string; email: string } {
  return { recipeUserId: requiredString(body, 'recipeUserId'), email: normaliseEmail(requiredString(body, 'email')) };
}
