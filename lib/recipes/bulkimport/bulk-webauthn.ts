import type { BulkWebauthnCredential } from '../../storage/model';
import { fromBase64Url } from '../../webauthn/base64url';
import { decodeCborWhole } from '../../webauthn/cbor';
import { coseKeyOf } from '../../webauthn/cose-key';
import { AAGUID_PATTERN, MAX_CREDENTIAL_ID_BYTES, MAX_SIGNATURE_COUNTER, MIN_CREDENTIAL_ID_BYTES } from '../../webauthn/limits';
import { FieldReader, shown, type Obj } from './bulk-fields';

/**
 * The passkeys of a bulk user's `webauthn` login method (SPEC §21, passkey import): public parts
 * only, each checked as far as anything can be without the authenticator. The key decodes to one
 * of the three algorithms the recipe verifies (the COSE decoder of `lib/webauthn`, nothing of its
 * ceremonies), the RP id is one this deployment serves, and the credential id is unique in the
 * request (in the app: at processing, `E040`).
 */

/** What validating passkeys needs to know about the deployment and the request so far. */
export interface PasskeyContext {
  /** `WEBAUTHN_RP_ID`: the relying party ids whose passkeys may be imported (none: refused). */
  readonly rpIds: readonly string[];
  /** Credential ids (base64url) of the earlier credentials of this request (this one's are added). */
  readonly credentialIds: Set<string>;
  readonly now: number;
}

/** A webauthn login method holds at most this many passkeys: each is 2 items of the user's transaction. */
export const MAX_BULK_CREDENTIALS = 20;
/** A COSE key's text: an RSA-4096 key is under 800 characters of base64. */
const MAX_PUBLIC_KEY = 4096;
const MAX_TRANSPORTS = 10;
const MAX_TRANSPORT = 64;
/** A user handle is at most 64 bytes; kept as given, so bounded generously. */
const MAX_USER_HANDLE = 1024;
const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of base64url or standard base64 text (padding optional), strictly; `undefined` when neither. */
export function fromEitherBase64(text: string): Buffer | undefined {
  const url = fromBase64Url(text);
  if (url) return url;
  if (!BASE64.test(text)) return undefined;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1 || (body.length !== text.length && text.length % 4 !== 0)) return undefined;
  return Buffer.from(body, 'base64');
}

/** What is wrong with a COSE key's bytes, or nothing. */
function keyProblem(bytes: Buffer): string | undefined {
  let decoded: unknown;
  try {
    decoded = decodeCborWhole(bytes);
  } catch (err) {
    return `it is not CBOR (${(err as Error).message})`;
  }
  const key = coseKeyOf(decoded);
  return typeof key === 'string' ? key : undefined;
}

/**
 * `credentials` of a webauthn login method, with §21's texts (errors into `errors`); the valid
 * ones, normalised, or `undefined` when the field itself is missing or of the wrong type.
 */
export function parsePasskeys(obj: Obj, ctx: PasskeyContext, errors: string[]): BulkWebauthnCredential[] | undefined {
  const sfx = ' for a webauthn recipe.';
  const raw = new FieldReader(obj, errors, sfx).read<Obj[]>('credentials', 'array of object', true);
  if (raw === undefined) return undefined;
  if (raw.length === 0) errors.push(`credentials cannot be empty${sfx}`);
  if (raw.length > MAX_BULK_CREDENTIALS) errors.push(`A webauthn loginMethod can have at most ${MAX_BULK_CREDENTIALS} credentials.`);
  // Said once per login method: every credential of it would say the same.
  if (raw.length > 0 && ctx.rpIds.length === 0) errors.push('Passkey import needs WEBAUTHN_RP_ID: set it to the relying party id the passkeys were made for.');
  const credentials: BulkWebauthnCredential[] = [];
  raw.forEach((entry, index) => {
    const before = errors.length;
    const r = new FieldReader(entry, errors, sfx);
    const givenId = r.string('credentialId', true);
    const idBytes = givenId === undefined ? undefined : fromEitherBase64(givenId.trim());
    const credentialId =
      idBytes && idBytes.length >= MIN_CREDENTIAL_ID_BYTES && idBytes.length <= MAX_CREDENTIAL_ID_BYTES ? idBytes.toString('base64url') : undefined;
    if (givenId !== undefined && credentialId === undefined) errors.push(`Invalid credentialId ${shown(givenId)}${sfx}`);
    if (credentialId !== undefined && ctx.credentialIds.has(credentialId)) {
      errors.push(`credentialId ${credentialId} is not unique. It is already used by another credential.`);
    }
    if (credentialId !== undefined) ctx.credentialIds.add(credentialId);
    // How the other texts name this credential: its id, else as given, else its place.
    const id = credentialId ?? (givenId !== undefined ? shown(givenId) : `#${index}`);

    const givenKey = r.string('publicKey', true);
    const keyBytes = givenKey === undefined || givenKey.length > MAX_PUBLIC_KEY ? undefined : fromEitherBase64(givenKey.trim());
    const problem =
      givenKey === undefined
        ? undefined
        : givenKey.length > MAX_PUBLIC_KEY
          ? `longer than ${MAX_PUBLIC_KEY} characters`
          : keyBytes === undefined
            ? 'not base64url or base64'
            : keyProblem(keyBytes);
    if (problem !== undefined) errors.push(`Invalid publicKey for credential ${id}: ${problem}. Pass a COSE key with alg -7, -8 or -257.`);

    const givenRpId = r.string('rpId', true);
    const rpId = givenRpId?.trim().toLowerCase();
    if (rpId !== undefined && ctx.rpIds.length > 0 && !ctx.rpIds.includes(rpId)) {
      errors.push(
        `rpId ${shown(givenRpId as string)} of credential ${id} is not this deployment's relying party id (WEBAUTHN_RP_ID=${ctx.rpIds.join(',')}): passkeys only work under the RP ID they were made for.`,
      );
    }

    const counter = r.read<number>('counter', 'integer', false) ?? 0;
    if (counter < 0) errors.push(`counter should be >= 0${sfx}`);
    if (counter > MAX_SIGNATURE_COUNTER) errors.push(`counter should be <= ${MAX_SIGNATURE_COUNTER}${sfx}`);
    const transports = r.read<string[]>('transports', 'array of string', false) ?? [];
    if (transports.length > MAX_TRANSPORTS || transports.some((t) => t.length > MAX_TRANSPORT)) {
      errors.push(`transports can have at most ${MAX_TRANSPORTS} entries of at most ${MAX_TRANSPORT} characters${sfx}`);
    }
    const givenAaguid = r.string('aaguid');
    const aaguid = givenAaguid?.trim().toLowerCase() ?? ZERO_AAGUID;
    if (!AAGUID_PATTERN.test(aaguid)) errors.push(`aaguid ${shown(givenAaguid as string)} of credential ${id} is not a UUID${sfx}`);
    const userHandle = r.string('userHandle');
    if (userHandle !== undefined && userHandle.length > MAX_USER_HANDLE) errors.push(`userHandle is too long. Max length is ${MAX_USER_HANDLE}.`);
    const createdAt = r.read<number>('createdAt', 'integer', false) ?? ctx.now;
    if (createdAt > ctx.now) errors.push(`createdAt cannot be in future${sfx}`);
    if (createdAt < 0) errors.push(`createdAt cannot be < 0${sfx}`);

    if (errors.length > before || credentialId === undefined || keyBytes === undefined || rpId === undefined) return;
    credentials.push({
      credentialId,
      publicKey: keyBytes.toString('base64url'),
      rpId,
      counter,
      transports,
      aaguid,
      ...(userHandle !== undefined ? { userHandle } : {}),
      createdAt,
    });
  });
  return credentials;
}
