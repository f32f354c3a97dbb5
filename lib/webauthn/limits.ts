/**
 * The bounds of a passkey's public parts, shared by the ceremonies, passkey import and the
 * migration command's checks (SPEC §21), so the three cannot drift apart.
 */

/** WebAuthn's bound on a credential id (§5.8.3: at most 1023 bytes). */
export const MAX_CREDENTIAL_ID_BYTES = 1023;
/** The shortest credential id an import takes: shorter than 16 bytes is no authenticator's. */
export const MIN_CREDENTIAL_ID_BYTES = 16;
/** The largest value of a 32-bit signature counter. */
export const MAX_SIGNATURE_COUNTER = 0xffff_ffff;
/** An AAGUID written as a lower-case UUID. */
export const AAGUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
