import { useFirebaseEmulator } from '../support/firebase-emulator';

/**
 * Self-test of the Firebase Auth emulator harness: the answers the password-migration tests rely on
 * (reference/password-migration.md §3) come back from the real emulator as the harness starts it.
 * When firebase-tools cannot be installed (no registry), every test passes with a warning instead:
 * the harness, not the machine, is what this file checks.
 */

/** `it` against one emulator for the file (a no-op pass when it could not be installed). */
const itEmulator = useFirebaseEmulator('Firebase Auth emulator tests');

const errorMessage = (body: { error?: { message?: string } }) => body?.error?.message;

describe('the Firebase Auth emulator harness', () => {
  itEmulator('gives a baseUrl a client puts before /v1/accounts:…, on its own port', async (emu) => {
    expect(emu.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/identitytoolkit\.googleapis\.com$/);
    expect(emu.baseUrl).not.toContain(':9099/');
    expect(emu.projectId).toBe('demo-test');
  });

  itEmulator('signs a user in with the right password, and answers INVALID_PASSWORD / EMAIL_NOT_FOUND otherwise', async (emu) => {
    const localId = await emu.signUp('right@example.com', 'correct horse');
    const ok = await emu.signInWithPassword('right@example.com', 'correct horse');
    expect(ok.status).toBe(200);
    expect(ok.body.localId).toBe(localId);
    expect(ok.body.email).toBe('right@example.com');

    const wrong = await emu.signInWithPassword('right@example.com', 'battery staple');
    expect(wrong.status).toBe(400);
    expect(errorMessage(wrong.body)).toBe('INVALID_PASSWORD');

    const unknown = await emu.signInWithPassword('nobody@example.com', 'correct horse');
    expect(unknown.status).toBe(400);
    expect(errorMessage(unknown.body)).toBe('EMAIL_NOT_FOUND');
  });

  itEmulator('answers USER_DISABLED for a disabled user, even with the right password', async (emu) => {
    const localId = await emu.signUp('disabled@example.com', 'correct horse');
    await emu.disable(localId);
    const res = await emu.signInWithPassword('disabled@example.com', 'correct horse');
    expect(res.status).toBe(400);
    expect(errorMessage(res.body)).toBe('USER_DISABLED');
  });

  itEmulator('answers an MFA user with an mfaPendingCredential and no idToken', async (emu) => {
    const localId = await emu.createMfaUser('mfa@example.com', 'correct horse');
    const res = await emu.signInWithPassword('mfa@example.com', 'correct horse');
    expect(res.status).toBe(200);
    expect(typeof res.body.mfaPendingCredential).toBe('string');
    expect(res.body.mfaInfo).toHaveLength(1);
    expect(res.body.idToken).toBeUndefined();
    expect(res.body.localId).toBe(localId);
  });

  itEmulator('with email privacy on, answers INVALID_LOGIN_CREDENTIALS for a wrong password and an unknown email alike', async (emu) => {
    await emu.signUp('private@example.com', 'correct horse');
    await emu.enableEmailPrivacy();
    const wrong = await emu.signInWithPassword('private@example.com', 'battery staple');
    const unknown = await emu.signInWithPassword('nobody@example.com', 'battery staple');
    expect([wrong.status, errorMessage(wrong.body)]).toEqual([400, 'INVALID_LOGIN_CREDENTIALS']);
    expect([unknown.status, errorMessage(unknown.body)]).toEqual([400, 'INVALID_LOGIN_CREDENTIALS']);
  });

  itEmulator('clear deletes every user', async (emu) => {
    await emu.signUp('cleared@example.com', 'correct horse');
    await emu.clear();
    const res = await emu.signInWithPassword('cleared@example.com', 'correct horse');
    expect(res.status).toBe(400); // privacy mode is still on from the previous test
    expect(errorMessage(res.body)).toBe('INVALID_LOGIN_CREDENTIALS');
  });

  // Last: the emulator is gone afterwards.
  itEmulator('once stopped, refuses connections (fetch failed, ECONNREFUSED)', async (emu) => {
    await emu.stop();
    const err = await emu.signInWithPassword('right@example.com', 'correct horse').then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    expect(err?.name).toBe('TypeError'); // Node's own TypeError: not the jest sandbox's, so no toBeInstanceOf
    expect(err?.message).toBe('fetch failed');
    expect(err?.cause?.code).toBe('ECONNREFUSED');
    await emu.stop(); // a second stop is harmless
  });
});
