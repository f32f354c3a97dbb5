import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startApi, type TestApi } from '../support/api';
import { FIREBASE_PROJECT_ID, type FirebaseEmulator, useFirebaseEmulator } from '../support/firebase-emulator';
import { uniqueEmail } from '../support/flows';
import { BCRYPT } from '../support/linking';

/**
 * SPEC §19 against the real Firebase Auth emulator (reference/continuity-and-breadth.md A1.2,
 * A4.5): users signed up in the emulator, imported into the core with their `localId` as external
 * id, and the tokens the emulator hands out (unsigned, `alg: "none"`, with Firebase's real claim
 * shapes) exchanged. The `firebase-emulator` preset takes them only with
 * `SESSION_EXCHANGE_ALLOW_EMULATOR=1` and a `demo-` project; `firebase` and
 * `firebase-session-cookie` never do. When firebase-tools cannot be installed (no registry), every
 * test passes with a warning instead.
 */
jest.setTimeout(120_000);

const EXCHANGE = '/recipe/migration/session/exchange';
const PASSWORD = 'an old firebase password';

const itEmulator = useFirebaseEmulator('Session exchange against the Firebase Auth emulator');

let api: TestApi;
beforeAll(async () => {
  api = await startApi({
    SESSION_EXCHANGE_ISSUERS: JSON.stringify([{ id: 'emu', preset: 'firebase-emulator', projectId: FIREBASE_PROJECT_ID }]),
    SESSION_EXCHANGE_ALLOW_EMULATOR: '1',
  });
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

const exchange = (token: string, on: TestApi = api) => on.post(EXCHANGE, { token });

/** What the emulator answers a password sign-in: the user's ID token and refresh token. */
async function signIn(emu: FirebaseEmulator, email: string) {
  const res = await emu.signInWithPassword(email, PASSWORD);
  expect(res.status).toBe(200);
  return { idToken: res.body.idToken as string, refreshToken: res.body.refreshToken as string };
}

/** The emulator user, imported into the core as the migration does: one user whose external id is the Firebase `localId`. */
async function importUser(localId: string, email: string): Promise<void> {
  const res = await api.post('/bulk-import/import', {
    externalUserId: localId,
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: BCRYPT.hash, hashingAlgorithm: 'BCRYPT', isVerified: true, isPrimary: true }],
  });
  expect([res.status, res.json?.status]).toEqual([200, 'OK']);
}

describe('exchanging the Firebase Auth emulator’s tokens (preset firebase-emulator)', () => {
  itEmulator('exchanges an ID token once: the imported user, authTime in ms, signInProvider password', async (emu) => {
    const email = uniqueEmail('fb-emu');
    const localId = await emu.signUp(email, PASSWORD);
    await importUser(localId, email);
    const { idToken } = await signIn(emu, email);
    // What the emulator really issues: unsigned, Firebase's claims.
    expect(decodeProtectedHeader(idToken)).toEqual({ alg: 'none', typ: 'JWT' });
    expect(idToken.endsWith('.')).toBe(true);
    const claims = decodeJwt(idToken);
    expect(claims).toMatchObject({ iss: `https://securetoken.google.com/${FIREBASE_PROJECT_ID}`, aud: FIREBASE_PROJECT_ID, sub: localId });

    const res = await exchange(idToken);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'OK',
      user: expect.objectContaining({ id: localId, emails: [email] }),
      recipeUserId: localId,
      externalUserId: localId,
      tenantId: 'public',
      issuer: 'emu',
      authTime: (claims.auth_time as number) * 1000,
      signInProvider: 'password',
    });
    expect(res.text).not.toContain(idToken.split('.')[1]);

    expect((await exchange(idToken)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
  });

  itEmulator('exchanges a session cookie (createSessionCookie), and an ID token refreshed with the refresh token keeps the first authTime', async (emu) => {
    const email = uniqueEmail('fb-cookie');
    const localId = await emu.signUp(email, PASSWORD);
    await importUser(localId, email);
    const { idToken, refreshToken } = await signIn(emu, email);
    const signedInAt = (decodeJwt(idToken).auth_time as number) * 1000;

    const cookie = await emu.createSessionCookie(idToken, 3600);
    expect(decodeJwt(cookie).iss).toBe(`https://session.firebase.google.com/${FIREBASE_PROJECT_ID}`);
    expect(decodeProtectedHeader(cookie).alg).toBe('none');
    expect((await exchange(cookie)).json).toMatchObject({
      status: 'OK',
      issuer: 'emu',
      recipeUserId: localId,
      authTime: signedInAt,
      signInProvider: 'password',
    });
    expect((await exchange(cookie)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });

    // What the client SDK does every hour: a new ID token, the same sign-in time.
    const refreshed = await emu.refreshIdToken(refreshToken);
    expect((await exchange(refreshed)).json).toMatchObject({ status: 'OK', recipeUserId: localId, authTime: signedInAt });
  });

  itEmulator('answers UNKNOWN_USER_ERROR for a user not imported, without using the token up: after the import it exchanges', async (emu) => {
    const email = uniqueEmail('fb-unknown');
    const localId = await emu.signUp(email, PASSWORD);
    const { idToken } = await signIn(emu, email);
    expect((await exchange(idToken)).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    await importUser(localId, email);
    expect((await exchange(idToken)).json).toMatchObject({ status: 'OK', recipeUserId: localId });
  });

  itEmulator('still exchanges a token issued before the user was disabled in Firebase: no online revocation check', async (emu) => {
    const email = uniqueEmail('fb-disabled');
    const localId = await emu.signUp(email, PASSWORD);
    await importUser(localId, email);
    const { idToken } = await signIn(emu, email);
    await emu.disable(localId);
    expect((await emu.signInWithPassword(email, PASSWORD)).body.error.message).toBe('USER_DISABLED');
    // SPEC §19: the token is verified locally, as the old provider's keys allow; only maxTokenAgeSeconds and acceptUntil bound this.
    expect((await exchange(idToken)).json).toMatchObject({ status: 'OK', recipeUserId: localId });
  });
});

describe('the same unsigned tokens anywhere but the emulator preset', () => {
  itEmulator("are refused by the firebase and firebase-session-cookie presets: The token's algorithm is not accepted", async (emu) => {
    // The production presets for the same demo project (two issuers with one iss cannot share a
    // configuration, so this is a core of its own). The key URLs are never fetched: the algorithm
    // is checked first, and nothing listens there.
    const production = await startApi({
      SESSION_EXCHANGE_ISSUERS: JSON.stringify([
        { id: 'fb', preset: 'firebase', projectId: FIREBASE_PROJECT_ID, x509Uri: 'http://127.0.0.1:9/x509' },
        { id: 'cookie', preset: 'firebase-session-cookie', projectId: FIREBASE_PROJECT_ID, x509Uri: 'http://127.0.0.1:9/x509' },
      ]),
      SESSION_EXCHANGE_ALLOW_EMULATOR: '1',
    });
    try {
      const email = uniqueEmail('fb-prod');
      const localId = await emu.signUp(email, PASSWORD);
      const { idToken } = await signIn(emu, email);
      const cookie = await emu.createSessionCookie(idToken, 3600);
      const refused = { status: 'INVALID_TOKEN_ERROR', reason: "The token's algorithm is not accepted" };
      expect((await exchange(idToken, production)).json).toEqual(refused);
      expect((await exchange(cookie, production)).json).toEqual(refused);
      expect(production.logs.some((l) => l.includes('keys unavailable'))).toBe(false);
      // Imported or not: the refusal comes before the user is looked up.
      expect(localId).not.toBe('');
    } finally {
      await production.stop();
    }
  });

  itEmulator('the emulator preset itself refuses to start without SESSION_EXCHANGE_ALLOW_EMULATOR=1, or for a project not named demo-…', async () => {
    const issuers = (projectId: string) => JSON.stringify([{ id: 'emu', preset: 'firebase-emulator', projectId }]);
    await expect(startApi({ SESSION_EXCHANGE_ISSUERS: issuers(FIREBASE_PROJECT_ID) })).rejects.toThrow(
      'SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs SESSION_EXCHANGE_ALLOW_EMULATOR=1',
    );
    await expect(startApi({ SESSION_EXCHANGE_ISSUERS: issuers('my-real-project'), SESSION_EXCHANGE_ALLOW_EMULATOR: '1' })).rejects.toThrow(
      'SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs a projectId starting with demo-',
    );
  });
});
