import type { ApiResponse, TestApi } from './api';
import { passwordlessSignIn, tenantPath, uniqueEmail } from './flows';

/** A BCrypt vector (supertokens-core's tests): import only validates it, sign-in checks the password. */
export const BCRYPT = { hash: '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq', password: 'testPass123' };

/**
 * Waits past the current millisecond, so login methods created one after another have distinct
 * times joined and a known join order (ties are broken by id, which tests cannot predict).
 */
const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 2));

/** The users and login methods a test builds through the HTTP API, with what they answer. */
export function linkingClient(api: TestApi) {
  const ok = (res: ApiResponse, what: string) => {
    if (res.status !== 200 || res.json?.status !== 'OK') throw new Error(`${what} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  let tp = 0;
  return {
    /** An email-password login method with a known password (imported BCrypt hash); its id. */
    async emailPassword(email = uniqueEmail('ep'), tenantId?: string): Promise<string> {
      const res = await api.post(tenantPath(tenantId, '/recipe/user/passwordhash/import'), { email, passwordHash: BCRYPT.hash });
      await nextMillisecond();
      return ok(res, 'import').user.id;
    },
    /** A third-party login method; its id. */
    async thirdParty(
      email = uniqueEmail('tp'),
      tenantId?: string,
      identity = { thirdPartyId: 'google', thirdPartyUserId: `g-${Date.now().toString(36)}-${tp++}` },
    ): Promise<string> {
      const res = await api.post(tenantPath(tenantId, '/recipe/signinup'), { ...identity, email: { id: email, isVerified: true } });
      await nextMillisecond();
      return ok(res, 'third-party sign-in-up').user.id;
    },
    /** A passwordless login method (signed up with a code); its id. */
    async passwordless(identity: { email: string } | { phoneNumber: string }, tenantId?: string): Promise<string> {
      const { recipeUserId } = await passwordlessSignIn(api, identity, tenantId);
      await nextMillisecond();
      return recipeUserId;
    },
    primaryCheck: (recipeUserId: string) => api.get(`/recipe/accountlinking/user/primary/check?recipeUserId=${encodeURIComponent(recipeUserId)}`),
    createPrimary: (recipeUserId: string) => api.post('/recipe/accountlinking/user/primary', { recipeUserId }),
    linkCheck: (recipeUserId: string, primaryUserId: string) =>
      api.get(`/recipe/accountlinking/user/link/check?recipeUserId=${encodeURIComponent(recipeUserId)}&primaryUserId=${encodeURIComponent(primaryUserId)}`),
    link: (recipeUserId: string, primaryUserId: string) => api.post('/recipe/accountlinking/user/link', { recipeUserId, primaryUserId }),
    unlink: (recipeUserId: string) => api.post('/recipe/accountlinking/user/unlink', { recipeUserId }),
    remove: (userId: string, removeAllLinkedAccounts?: boolean) =>
      api.post('/user/remove', { userId, ...(removeAllLinkedAccounts === undefined ? {} : { removeAllLinkedAccounts }) }),
    /** `GET /user/id`: the user's JSON, or `undefined` for `UNKNOWN_USER_ID_ERROR`. */
    async user(userId: string) {
      const res = await api.get(`/user/id?userId=${encodeURIComponent(userId)}`);
      if (res.json?.status === 'UNKNOWN_USER_ID_ERROR') return undefined;
      return ok(res, 'get user').user;
    },
    /** Makes `primaryId` primary and links every other id to it; the primary user's JSON. */
    async group(primaryId: string, ...others: string[]) {
      ok(await api.post('/recipe/accountlinking/user/primary', { recipeUserId: primaryId }), 'create primary');
      let user;
      for (const id of others) user = ok(await api.post('/recipe/accountlinking/user/link', { recipeUserId: id, primaryUserId: primaryId }), 'link').user;
      return user;
    },
    signIn: (email: string, password = BCRYPT.password, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/signin'), { email, password }),
  };
}
