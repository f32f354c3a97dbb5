import { decodeCbor } from './cbor';

/** Authenticator data (WebAuthn §6.1), parsed: what the ceremonies check and what registration stores. */
export interface AuthenticatorData {
  readonly rpIdHash: Buffer;
  /** UP: the user was present. */
  readonly userPresent: boolean;
  /** UV: the user was verified. */
  readonly userVerified: boolean;
  readonly signCount: number;
  /** AT set: the new credential (registration). */
  readonly attested?: { readonly aaguid: Buffer; readonly credentialId: Buffer; readonly publicKey: Buffer };
}

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;
const ED = 0x80;

/**
 * Parses authenticator data: rpIdHash (32), flags, signCount (32-bit), then, with AT, the attested
 * credential data (AAGUID, id length and id, the COSE key), then, with ED, the extensions; nothing
 * may follow. Throws (`CborError` or `RangeError`) on malformed bytes.
 */
export function parseAuthenticatorData(bytes: Buffer): AuthenticatorData {
  if (bytes.length < 37) throw new RangeError('authenticator data is shorter than 37 bytes');
  const flags = bytes[32];
  let at = 37;
  let attested: AuthenticatorData['attested'];
  if (flags & AT) {
    if (bytes.length < at + 18) throw new RangeError('attested credential data is cut short');
    const aaguid = bytes.subarray(at, at + 16);
    const idLength = bytes.readUInt16BE(at + 16);
    at += 18;
    if (bytes.length < at + idLength) throw new RangeError('credential id is cut short');
    const credentialId = bytes.subarray(at, at + idLength);
    at += idLength;
    const key = decodeCbor(bytes, at);
    attested = { aaguid, credentialId, publicKey: bytes.subarray(at, key.end) };
    at = key.end;
  }
  if (flags & ED) at = decodeCbor(bytes, at).end;
  if (at !== bytes.length) throw new RangeError('authenticator data has extra bytes');
  return {
    rpIdHash: bytes.subarray(0, 32),
    userPresent: (flags & UP) !== 0,
    userVerified: (flags & UV) !== 0,
    signCount: bytes.readUInt32BE(33),
    ...(attested ? { attested } : {}),
  };
}

/** An AAGUID as a UUID string. */
export function uuidOf(aaguid: Buffer): string {
  const h = aaguid.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
