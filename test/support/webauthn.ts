import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software authenticator for the WebAuthn tests (SPEC §21): ES256, EdDSA (Ed25519) or RS256
 * keys made with node:crypto, attestation `none` or `packed` self attestation, a signature
 * counter, and the browser's JSON shapes (`RegistrationResponseJSON`,
 * `AuthenticationResponseJSON`) as the SDK forwards them. Every part can be bent, so tests can
 * tamper with what an authenticator would never send.
 */

/** A minimal CBOR encoder (definite lengths): maps, byte strings, text, integers, arrays. */
export function encodeCbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'boolean') return Buffer.from([value ? 0xf5 : 0xf4]);
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value, 'utf8')]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(encodeCbor)]);
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [encodeCbor(k), encodeCbor(v)])]);
  throw new Error(`cannot encode ${typeof value}`);
}

export type Alg = -7 | -8 | -257;
const b64u = (b: Buffer) => b.toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

/** The options a ceremony is run against (what the options endpoints answered). */
export interface CeremonyOptions {
  readonly challenge: string;
  readonly rpId: string;
  readonly origin: string;
}

/** What a test may bend in a ceremony. */
export interface Bend {
  readonly type?: string;
  readonly challenge?: string;
  readonly origin?: string;
  readonly rpId?: string;
  /** Flags byte (default UP | UV, plus AT on registration). */
  readonly flags?: number;
  readonly counter?: number;
  readonly fmt?: 'none' | 'packed' | 'fido-u2f';
  /** packed: sign with another key, or name another alg. */
  readonly attestationAlg?: number;
  readonly attestationSignedBy?: KeyObject;
  readonly attestedCredentialId?: Buffer;
  readonly coseKey?: Buffer;
}

export const FLAG = { UP: 0x01, UV: 0x04, AT: 0x40, ED: 0x80 } as const;

export class SoftAuthenticator {
  readonly credentialId: Buffer;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The signature counter; `step` 0 makes it always report 0 (as synced passkeys do). */
  counter = 0;

  constructor(
    readonly alg: Alg = -7,
    readonly step = 1,
    credentialId: Buffer = randomBytes(32),
  ) {
    this.credentialId = credentialId;
    const pair =
      alg === -7
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : alg === -8
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64u(this.credentialId);
  }

  /** The public key as a COSE_Key (CBOR). */
  coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const d = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');
    const map =
      this.alg === -7
        ? new Map<number, unknown>([
            [1, 2],
            [3, -7],
            [-1, 1],
            [-2, d(jwk.x)],
            [-3, d(jwk.y)],
          ])
        : this.alg === -8
          ? new Map<number, unknown>([
              [1, 1],
              [3, -8],
              [-1, 6],
              [-2, d(jwk.x)],
            ])
          : new Map<number, unknown>([
              [1, 3],
              [3, -257],
              [-1, d(jwk.n)],
              [-2, d(jwk.e)],
            ]);
    return encodeCbor(map);
  }

  /** A signature as the credential's algorithm makes it (ES256: DER). */
  signWith(key: KeyObject, alg: number, data: Buffer): Buffer {
    return sign(alg === -8 ? null : 'sha256', data, key);
  }

  private clientData(kind: string, o: CeremonyOptions, bend: Bend): Buffer {
    return Buffer.from(
      JSON.stringify({ type: bend.type ?? kind, challenge: bend.challenge ?? o.challenge, origin: bend.origin ?? o.origin, crossOrigin: false }),
    );
  }

  private authData(o: CeremonyOptions, bend: Bend, attested?: Buffer): Buffer {
    const flags = bend.flags ?? FLAG.UP | FLAG.UV | (attested ? FLAG.AT : 0);
    const count = Buffer.alloc(4);
    count.writeUInt32BE(bend.counter ?? this.counter);
    return Buffer.concat([sha256(bend.rpId ?? o.rpId), Buffer.from([flags]), count, attested ?? Buffer.alloc(0)]);
  }

  /** `navigator.credentials.create()` as the browser returns it, JSON-encoded. */
  register(o: CeremonyOptions, bend: Bend = {}): Record<string, any> {
    const id = bend.attestedCredentialId ?? this.credentialId;
    const len = Buffer.alloc(2);
    len.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), len, id, bend.coseKey ?? this.coseKey()]);
    const authData = this.authData(o, bend, attested);
    const clientDataJSON = this.clientData('webauthn.create', o, bend);
    const fmt = bend.fmt ?? 'none';
    const attStmt =
      fmt === 'packed'
        ? new Map<string, unknown>([
            ['alg', bend.attestationAlg ?? this.alg],
            ['sig', this.signWith(bend.attestationSignedBy ?? this.privateKey, this.alg, Buffer.concat([authData, sha256(clientDataJSON)]))],
          ])
        : new Map<string, unknown>();
    const attestationObject = encodeCbor(
      new Map<string, unknown>([
        ['fmt', fmt],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ['internal', 'hybrid'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** `navigator.credentials.get()`: counts up (by `step`) and signs authData ‖ SHA-256(clientDataJSON). */
  assert(o: CeremonyOptions, bend: Bend = {}): Record<string, any> {
    this.counter += this.step;
    const authData = this.authData(o, bend);
    const clientDataJSON = this.clientData('webauthn.get', o, bend);
    const signature = this.signWith(this.privateKey, this.alg, Buffer.concat([authData, sha256(clientDataJSON)]));
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: b64u(Buffer.from('user')) },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

/** The RP and origin the WebAuthn tests use (what an SDK's config would send). */
export const RP = { relyingPartyId: 'example.com', relyingPartyName: 'Example', origin: 'https://app.example.com' } as const;

/** A WebAuthn client of the test API: options, ceremonies and the passkey calls, as the SDK sends them. */
export function webauthnClient(api: {
  post: (p: string, b?: unknown) => Promise<any>;
  get: (p: string) => Promise<any>;
  request: (m: string, p: string, opts?: { body?: unknown }) => Promise<any>;
}) {
  const at = (tenantId: string | undefined, path: string) => (tenantId ? `/${tenantId}${path}` : path);
  const ceremony = (o: { challenge: string }): CeremonyOptions => ({ challenge: o.challenge, rpId: RP.relyingPartyId, origin: RP.origin });
  const client = {
    registerOptions: (body: Record<string, unknown>, tenantId?: string) => api.post(at(tenantId, '/recipe/webauthn/options/register'), { ...RP, ...body }),
    signInOptions: (body: Record<string, unknown> = {}, tenantId?: string) => api.post(at(tenantId, '/recipe/webauthn/options/signin'), { ...RP, ...body }),
    signUp: (webauthnGeneratedOptionsId: string, credential: unknown, tenantId?: string) =>
      api.post(at(tenantId, '/recipe/webauthn/signup'), { webauthnGeneratedOptionsId, credential }),
    signIn: (webauthnGeneratedOptionsId: string, credential: unknown, tenantId?: string) =>
      api.post(at(tenantId, '/recipe/webauthn/signin'), { webauthnGeneratedOptionsId, credential }),
    getOptions: (id: string, tenantId?: string) => api.get(at(tenantId, `/recipe/webauthn/options?webauthnGeneratedOptionsId=${encodeURIComponent(id)}`)),
    removeOptions: (id: string, tenantId?: string) =>
      api.request('DELETE', at(tenantId, `/recipe/webauthn/options/remove?webauthnGeneratedOptionsId=${encodeURIComponent(id)}`)),
    registerCredential: (recipeUserId: string, webauthnGeneratedOptionsId: string, credential: unknown) =>
      api.post('/recipe/webauthn/user/credential/register', { recipeUserId, webauthnGeneratedOptionsId, credential }),
    list: (recipeUserId: string) => api.get(`/recipe/webauthn/user/credential/list?recipeUserId=${encodeURIComponent(recipeUserId)}`),
    getCredential: (recipeUserId: string, id: string) =>
      api.get(`/recipe/webauthn/user/credential?recipeUserId=${encodeURIComponent(recipeUserId)}&webauthnCredentialId=${encodeURIComponent(id)}`),
    removeCredential: (recipeUserId: string, id: string) =>
      api.request(
        'DELETE',
        `/recipe/webauthn/user/credential/remove?recipeUserId=${encodeURIComponent(recipeUserId)}&webauthnCredentialId=${encodeURIComponent(id)}`,
      ),
    recoverToken: (userId: string, email: string, tenantId?: string) => api.post(at(tenantId, '/recipe/webauthn/user/recover/token'), { userId, email }),
    consumeToken: (token: string, tenantId?: string) => api.post(at(tenantId, '/recipe/webauthn/user/recover/token/consume'), { token }),
    recoverUser: (token: string, tenantId?: string) => api.get(at(tenantId, `/recipe/webauthn/user/recover?token=${encodeURIComponent(token)}`)),
    updateEmail: (recipeUserId: string, email: string, tenantId?: string) =>
      api.request('PUT', at(tenantId, '/recipe/webauthn/user/email'), { body: { recipeUserId, email } }),
    ceremony,
    /** Registration options, then a sign-up with `auth`: the sign-up's answer. */
    async signUpWith(auth: SoftAuthenticator, email: string, tenantId?: string, bend: Bend = {}) {
      const options = (await client.registerOptions({ email }, tenantId)).json;
      return client.signUp(options.webauthnGeneratedOptionsId, auth.register(ceremony(options), bend), tenantId);
    },
    /** Sign-in options, then a sign-in with `auth`: its options id, assertion and answer. */
    async signInWith(auth: SoftAuthenticator, tenantId?: string, bend: Bend = {}) {
      const options = (await client.signInOptions({}, tenantId)).json;
      const assertion = auth.assert(ceremony(options), bend);
      return {
        optionsId: options.webauthnGeneratedOptionsId as string,
        assertion,
        res: await client.signIn(options.webauthnGeneratedOptionsId, assertion, tenantId),
      };
    },
  };
  return client;
}
