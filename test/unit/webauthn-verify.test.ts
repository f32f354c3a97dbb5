import fc from 'fast-check';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { fromBase64Url } from '../../lib/webauthn/base64url';
import { CborError, decodeCbor, decodeCborWhole } from '../../lib/webauthn/cbor';
import { credentialIdOf, type Expected } from '../../lib/webauthn/ceremony';
import { coseKeyOf } from '../../lib/webauthn/cose-key';
import { COUNTER_REFUSAL, verifyAssertion } from '../../lib/webauthn/verify-assertion';
import { verifyRegistration, type RegisteredCredential } from '../../lib/webauthn/verify-registration';
import { encodeCbor, FLAG, SoftAuthenticator, type Alg } from '../support/webauthn';

/**
 * The service's own WebAuthn verification (SPEC §21) against a software authenticator: every check
 * of both ceremonies in order, the three key types, and malformed input that must be a refusal,
 * never a throw.
 */
const OPTIONS = { challenge: randomBytes(32).toString('base64url'), rpId: 'example.com', origin: 'https://app.example.com' };
const EXPECTED: Expected = { ...OPTIONS, userVerification: 'preferred', userPresence: false };

function register(auth: SoftAuthenticator, credential = auth.register(OPTIONS), expected = EXPECTED) {
  const id = credentialIdOf(credential);
  if (typeof id !== 'string') return id;
  return verifyRegistration(credential, fromBase64Url(id) as Buffer, expected);
}

function registered(auth: SoftAuthenticator): RegisteredCredential {
  const result = register(auth);
  if ('reason' in result) throw new Error(result.reason);
  return result;
}

const authenticator = (reason: string | RegExp) => ({
  status: 'INVALID_AUTHENTICATOR_ERROR',
  reason: typeof reason === 'string' ? reason : expect.stringMatching(reason),
});
const credentials = (reason: string | RegExp) => ({
  status: 'INVALID_CREDENTIALS_ERROR',
  reason: typeof reason === 'string' ? reason : expect.stringMatching(reason),
});

describe('CBOR', () => {
  it('decodes maps, byte strings, text, integers, arrays and simple values, and says where an item ends', () => {
    const bytes = encodeCbor(
      new Map<unknown, unknown>([
        [1, 2],
        [-1, 'x'],
        ['k', [Buffer.from([1, 2]), 70000, -300]],
      ]),
    );
    const value = decodeCborWhole(bytes) as Map<unknown, unknown>;
    expect(value.get(1)).toBe(2);
    expect(value.get(-1)).toBe('x');
    expect(value.get('k')).toEqual([Buffer.from([1, 2]), 70000, -300]);
    expect(decodeCbor(Buffer.concat([bytes, Buffer.from([0xf5])]), 0).end).toBe(bytes.length);
    expect(decodeCborWhole(Buffer.from([0xf4]))).toBe(false);
  });

  it.each([
    ['a length past the end', Buffer.from([0x5a, 0xff, 0xff, 0xff, 0xff])],
    ['an array longer than its bytes', Buffer.from([0x9a, 0x7f, 0xff, 0xff, 0xff])],
    ['an indefinite length', Buffer.from([0x5f])],
    ['a tag', Buffer.from([0xc0, 0x01])],
    ['a float', Buffer.from([0xf9, 0x3c, 0x00])],
    ['a map key that is a byte string', Buffer.from([0xa1, 0x41, 0x00, 0x01])],
    ['an integer beyond 2^53', Buffer.from([0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ['extra bytes', Buffer.from([0x01, 0x02])],
    ['nesting 100 deep', Buffer.from(Array(100).fill(0x81))],
  ])('refuses %s with a CborError', (_what, bytes) => {
    expect(() => decodeCborWhole(bytes)).toThrow(CborError);
  });
});

describe('COSE keys', () => {
  it.each([-7, -8, -257] as Alg[])('loads alg %i from the authenticator’s COSE key', (alg) => {
    const key = coseKeyOf(decodeCborWhole(new SoftAuthenticator(alg).coseKey()));
    expect(typeof key === 'string' ? key : key.alg).toBe(alg);
  });

  it('refuses other algorithms, mismatched key types and curves, points off the curve and short RSA keys', () => {
    const ec = decodeCborWhole(new SoftAuthenticator(-7).coseKey()) as Map<number, unknown>;
    expect(coseKeyOf(new Map([...ec, [3, -35]]))).toBe('alg -35 is not one the recipe verifies');
    expect(coseKeyOf(new Map([...ec, [1, 1]]))).toBe('kty 1 does not fit alg -7');
    expect(coseKeyOf(new Map([...ec, [-1, 2]]))).toBe('crv 2 does not fit alg -7');
    expect(coseKeyOf(new Map([...ec, [-3, Buffer.alloc(32, 1)]]))).toMatch(/does not load/);
    expect(coseKeyOf(new Map([...ec, [-2, Buffer.alloc(31)]]))).toBe('x and y must be 32 bytes');
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = publicKey.export({ format: 'jwk' });
    const rsa = new Map<number, unknown>([
      [1, 3],
      [3, -257],
      [-1, Buffer.from(jwk.n ?? '', 'base64url')],
      [-2, Buffer.from(jwk.e ?? '', 'base64url')],
    ]);
    expect(coseKeyOf(rsa)).toBe('n has 1024 bits, fewer than 2048');
    expect(coseKeyOf('not a map')).toBe('not a COSE key map');
  });
});

describe('the credential id and type (the core’s texts)', () => {
  it.each([
    [{ type: 'public-key' }, 'credential id is missing!'],
    [{ id: '', type: 'public-key' }, 'credential id is empty!'],
    [{ id: 'a+b/', type: 'public-key' }, 'Credential ID has to be base64 url encoded'],
    [{ id: 12, type: 'public-key' }, 'Credential ID has to be base64 url encoded'],
    [{ id: 'AAAA' }, 'credential type is missing!'],
    [{ id: 'AAAA', type: '' }, 'credential type is empty!'],
    [{ id: 'AAAA', type: 'password' }, "not supported credential type: 'password'"],
    [{ id: 'AAAA', rawId: 'AAAB', type: 'public-key' }, 'credential rawId does not match its id'],
  ])('refuses %j: %s', (credential, reason) => {
    expect(credentialIdOf(credential)).toEqual(credentials(reason));
  });

  it('answers the id unpadded, and takes the type in any case', () => {
    expect(credentialIdOf({ id: 'AAE=', type: 'Public-Key' })).toBe('AAE');
  });
});

describe('registration', () => {
  it.each([-7, -8, -257] as Alg[])("accepts alg %i with fmt 'none' and with packed self attestation", (alg) => {
    const auth = new SoftAuthenticator(alg);
    expect(register(auth)).toEqual({
      publicKey: auth.coseKey().toString('base64url'),
      counter: 0,
      transports: ['internal', 'hybrid'],
      aaguid: '00000000-0000-0000-0000-000000000000',
    });
    expect(register(auth, auth.register(OPTIONS, { fmt: 'packed' }))).toEqual(expect.objectContaining({ counter: 0 }));
  });

  it('does not judge other formats (no trust anchors, as the core)', () => {
    const auth = new SoftAuthenticator();
    expect(register(auth, auth.register(OPTIONS, { fmt: 'fido-u2f' }))).toEqual(expect.objectContaining({ aaguid: expect.any(String) }));
  });

  it('refuses each check in the core’s order', () => {
    const auth = new SoftAuthenticator();
    const r = (bend: Parameters<SoftAuthenticator['register']>[1], expected = EXPECTED) => register(auth, auth.register(OPTIONS, bend), expected);
    expect(r({ type: 'webauthn.get' })).toEqual(authenticator("clientDataJSON type must be 'webauthn.create'"));
    expect(r({ challenge: randomBytes(32).toString('base64url') })).toEqual(authenticator('The actual challenge does not match the expected challenge'));
    expect(r({ origin: 'https://evil.example.com' })).toEqual(authenticator("The origin 'https://evil.example.com' does not match the expected origin"));
    expect(r({ rpId: 'evil.com' })).toEqual(authenticator('rpIdHash does not match the hash of the relying party id'));
    expect(r({ flags: FLAG.AT }, { ...EXPECTED, userPresence: true })).toEqual(authenticator('User presence is required, but the UP flag is not set'));
    expect(r({ flags: FLAG.AT | FLAG.UP }, { ...EXPECTED, userVerification: 'required' })).toEqual(
      authenticator('User verification is required, but the UV flag is not set'),
    );
    expect(r({ flags: FLAG.AT | FLAG.UP })).toEqual(expect.objectContaining({ counter: 0 }));
    expect(r({ attestedCredentialId: randomBytes(32) })).toEqual(authenticator('The attested credential id does not match credential.id'));
    const p256 = decodeCborWhole(auth.coseKey()) as Map<number, unknown>;
    expect(r({ coseKey: encodeCbor(new Map([...p256, [3, -36]])) })).toEqual(authenticator(/^Unsupported credential public key: alg -36 is not one/));
    expect(r({ fmt: 'packed', attestationSignedBy: new SoftAuthenticator().privateKey })).toEqual(
      authenticator('packed self attestation signature is invalid'),
    );
    expect(r({ fmt: 'packed', attestationAlg: -257 })).toEqual(authenticator("packed self attestation's alg does not match the credential key's"));
  });

  it('refuses attestation without AT, and none with a statement', () => {
    const auth = new SoftAuthenticator();
    const credential = auth.register(OPTIONS, { flags: FLAG.UP });
    // Without AT the attested data is read as extra bytes: malformed authenticator data.
    expect(register(auth, credential)).toEqual(credentials(/^authData is malformed/));
    const packed = auth.register(OPTIONS, { fmt: 'packed' });
    const object = decodeCborWhole(Buffer.from(packed.response.attestationObject, 'base64url')) as Map<string, unknown>;
    object.set('fmt', 'none');
    packed.response.attestationObject = encodeCbor(object).toString('base64url');
    expect(register(auth, packed)).toEqual(authenticator("attStmt of fmt 'none' must be empty"));
  });

  it('answers undecodable parts as INVALID_CREDENTIALS_ERROR', () => {
    const auth = new SoftAuthenticator();
    const bent = (change: (c: Record<string, any>) => void) => {
      const c = auth.register(OPTIONS);
      change(c);
      return register(auth, c);
    };
    expect(bent((c) => delete c.response)).toEqual(credentials('credential response is missing!'));
    expect(bent((c) => (c.response.clientDataJSON = '***'))).toEqual(credentials('response.clientDataJSON is missing or not base64url'));
    expect(bent((c) => (c.response.clientDataJSON = Buffer.from('{').toString('base64url')))).toEqual(credentials('response.clientDataJSON is not JSON'));
    expect(bent((c) => (c.response.clientDataJSON = Buffer.from('{}').toString('base64url')))).toEqual(credentials(/lacks its type/));
    expect(bent((c) => (c.response.attestationObject = 'AAAA'))).toEqual(credentials('response.attestationObject is not CBOR'));
    expect(bent((c) => (c.response.attestationObject = encodeCbor(new Map([['fmt', 'none']])).toString('base64url')))).toEqual(credentials(/lacks its fmt/));
  });
});

describe('assertions', () => {
  it.each([-7, -8, -257] as Alg[])('verifies alg %i and answers the counter to store; refuses a tampered one', (alg) => {
    const auth = new SoftAuthenticator(alg);
    const stored = registered(auth);
    const assertion = auth.assert(OPTIONS);
    expect(verifyAssertion(assertion, EXPECTED, stored, false)).toEqual({ counter: 1 });
    const data = Buffer.from(assertion.response.authenticatorData, 'base64url');
    data[33] ^= 1;
    const tampered = { ...assertion, response: { ...assertion.response, authenticatorData: data.toString('base64url') } };
    expect(verifyAssertion(tampered, EXPECTED, stored, false)).toEqual(authenticator('The assertion signature is invalid'));
    const otherKey = registered(new SoftAuthenticator(alg));
    expect(verifyAssertion(assertion, EXPECTED, otherKey, false)).toEqual(authenticator('The assertion signature is invalid'));
  });

  it('applies the counter rule: c ≤ s refused when either is above 0; 0 and 0 pass; a repeat is not judged', () => {
    const auth = new SoftAuthenticator(-7);
    const key = registered(auth);
    auth.counter = 4;
    const fifth = auth.assert(OPTIONS);
    expect(verifyAssertion(fifth, EXPECTED, { ...key, counter: 5 }, false)).toEqual(authenticator(COUNTER_REFUSAL));
    expect(verifyAssertion(fifth, EXPECTED, { ...key, counter: 4 }, false)).toEqual({ counter: 5 });
    expect(verifyAssertion(fifth, EXPECTED, { ...key, counter: 5 }, true)).toEqual({ counter: 5 });
    const synced = new SoftAuthenticator(-8, 0);
    const syncedKey = registered(synced);
    expect(verifyAssertion(synced.assert(OPTIONS), EXPECTED, syncedKey, false)).toEqual({ counter: 0 });
  });

  it('checks type, challenge, origin, rpIdHash, UP and UV as registration does', () => {
    const auth = new SoftAuthenticator();
    const key = registered(auth);
    const a = (bend: Parameters<SoftAuthenticator['assert']>[1], expected = EXPECTED) => verifyAssertion(auth.assert(OPTIONS, bend), expected, key, false);
    expect(a({ type: 'webauthn.create' })).toEqual(authenticator("clientDataJSON type must be 'webauthn.get'"));
    expect(a({ challenge: 'AAAA' })).toEqual(authenticator('The actual challenge does not match the expected challenge'));
    expect(a({ origin: 'https://example.com.evil.net' })).toEqual(authenticator(/^The origin/));
    expect(a({ rpId: 'other.example' })).toEqual(authenticator('rpIdHash does not match the hash of the relying party id'));
    expect(a({ flags: FLAG.UV }, { ...EXPECTED, userPresence: true })).toEqual(authenticator(/UP flag/));
    expect(a({ flags: FLAG.UP }, { ...EXPECTED, userVerification: 'required' })).toEqual(authenticator(/UV flag/));
  });
});

describe('malformed credentials (fuzzed)', () => {
  const auth = new SoftAuthenticator();
  const key = registered(auth);
  const good = { reg: auth.register(OPTIONS), get: auth.assert(OPTIONS) };
  /** Random bytes, random base64url, or a value of another type, in place of one field. */
  const junk = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64url')),
    fc.string(),
    fc.constantFrom(null, 1, {}, [], true),
  );
  /** A valid part with some of its bytes flipped or cut. */
  const bent = (text: string) =>
    fc.tuple(fc.nat(), fc.nat({ max: 255 }), fc.boolean()).map(([at, xor, cut]) => {
      const b = Buffer.from(text, 'base64url');
      if (b.length === 0) return text;
      if (cut) return b.subarray(0, at % b.length).toString('base64url');
      b[at % b.length] ^= xor || 1;
      return b.toString('base64url');
    });

  it('refuses registrations with bent or junk parts with a status, never a throw', () => {
    const fields = ['clientDataJSON', 'attestationObject'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.boolean(), junk, fc.nat(), (field, useJunk, j, seed) => {
        const value = useJunk ? j : fc.sample(bent(good.reg.response[field]), { numRuns: 1, seed })[0];
        const credential = { ...good.reg, response: { ...good.reg.response, [field]: value } };
        const result = register(auth, credential as Record<string, any>);
        return 'reason' in result ? ['INVALID_CREDENTIALS_ERROR', 'INVALID_AUTHENTICATOR_ERROR'].includes(result.status) : true;
      }),
      { numRuns: 300 },
    );
  });

  it('refuses assertions with bent or junk parts with a status, never a throw', () => {
    const fields = ['clientDataJSON', 'authenticatorData', 'signature'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.boolean(), junk, fc.nat(), (field, useJunk, j, seed) => {
        const value = useJunk ? j : fc.sample(bent(good.get.response[field]), { numRuns: 1, seed })[0];
        if (value === good.get.response[field]) return true;
        const credential = { ...good.get, response: { ...good.get.response, [field]: value } };
        const result = verifyAssertion(credential, EXPECTED, key, false);
        return 'reason' in result;
      }),
      { numRuns: 300 },
    );
  });
});
