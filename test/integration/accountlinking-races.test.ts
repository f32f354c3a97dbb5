import { startApi, tableProblems, type TestApi } from '../support/api';
import { consumeLink, createCode, passwordlessSignIn, uniqueEmail } from '../support/flows';
import { linkingClient } from '../support/linking';

/**
 * Races on account linking: every claim, link and login method is written in one transaction
 * conditional on what was read, so of two requests racing for one identity exactly one wins, and
 * the table stays consistent (checked after each race, and by `TestApi.stop()`).
 */
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
beforeAll(async () => {
  api = await startApi({ ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1' });
  al = linkingClient(api);
});
afterAll(() => api.stop());

const ROUNDS = 8;

describe('account-linking races', () => {
  it('of login methods of three recipes racing to become primary for one email, exactly one wins', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = uniqueEmail('race-primary');
      const ids = [await al.emailPassword(email), await al.thirdParty(email), await al.passwordless({ email })];
      const answers = (await Promise.all(ids.map((id) => al.createPrimary(id)))).map((r) => r.json);
      const winners = ids.filter((_, i) => answers[i].status === 'OK');
      expect(winners).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 'OK')) {
        expect(a).toEqual({
          status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
          primaryUserId: winners[0],
          description: "This user's email is already associated with another user ID",
        });
      }
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('a link racing a sign-up that makes itself primary with the same email: exactly one of them holds the email', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = uniqueEmail('race-link');
      const target = await al.emailPassword();
      await al.group(target);
      const member = await al.thirdParty(email);
      const [linked, primary] = await Promise.all([
        al.link(member, target),
        (async () => {
          const signUp = await api.post('/recipe/signup', { email, password: 'a password 12345' });
          expect(signUp.json.status).toBe('OK');
          return { id: signUp.json.user.id as string, res: await al.createPrimary(signUp.json.user.id) };
        })(),
      ]);
      const outcomes = [linked.json.status, primary.res.json.status];
      expect(outcomes.filter((s) => s === 'OK')).toHaveLength(1);
      const loser = linked.json.status === 'OK' ? primary.res.json : linked.json;
      expect(loser.status).toBe('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR');
      expect(loser.primaryUserId).toBe(linked.json.status === 'OK' ? target : primary.id);
      const holders = (await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users.filter(
        (u: { isPrimaryUser: boolean }) => u.isPrimaryUser,
      );
      expect(holders).toHaveLength(1);
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('one login method linked to two primary users at once ends in exactly one of them', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b] = [await al.emailPassword(), await al.emailPassword()];
      await al.group(a);
      await al.group(b);
      const member = await al.thirdParty();
      const answers = (await Promise.all([al.link(member, a), al.link(member, b)])).map((r) => r.json);
      expect(answers.filter((x) => x.status === 'OK')).toHaveLength(1);
      const winner = answers[0].status === 'OK' ? a : b;
      expect(answers.find((x) => x.status !== 'OK')).toEqual(
        expect.objectContaining({ status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', primaryUserId: winner }),
      );
      expect((await al.user(member)).id).toBe(winner);
    }
  });

  it('several login methods linked to one primary user at once all end in it', async () => {
    const primary = await al.emailPassword();
    await al.group(primary);
    const members = await Promise.all(Array.from({ length: 5 }, () => al.thirdParty()));
    const answers = await Promise.all(members.map((m) => al.link(m, primary)));
    expect(answers.map((r) => [r.status, r.json?.status])).toEqual(members.map(() => [200, 'OK']));
    const user = await al.user(primary);
    expect(user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId).sort()).toEqual([primary, ...members].sort());
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('unlink racing sign-ins: every sign-in answers the login method it used, as the user it was in at that moment', async () => {
    const email = uniqueEmail('race-unlink');
    const primary = await al.thirdParty(uniqueEmail('race-unlink-tp'));
    const member = await al.emailPassword(email);
    await al.group(primary, member);
    for (let round = 0; round < ROUNDS; round++) {
      const [unlinked, ...signIns] = await Promise.all([al.unlink(member), ...Array.from({ length: 4 }, () => al.signIn(email))]);
      expect(unlinked.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
      for (const s of signIns) {
        expect(s.json.status).toBe('OK');
        expect(s.json.recipeUserId).toBe(member);
        expect([primary, member]).toContain(s.json.user.id);
        expect(s.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toContain(member);
      }
      expect((await al.user(member)).id).toBe(member);
      expect((await al.link(member, primary)).json.status).toBe('OK');
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it("unlinking the primary user's own login method (which deletes it) racing sign-ins through it: each sign-in is the whole user or a wrong credential, never half", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = uniqueEmail('race-own');
      const primary = await al.emailPassword(email);
      const member = await al.thirdParty(uniqueEmail('race-own-tp'));
      await al.group(primary, member);
      const [unlinked, ...signIns] = await Promise.all([al.unlink(primary), ...Array.from({ length: 4 }, () => al.signIn(email))]);
      expect(unlinked.json).toEqual({ status: 'OK', wasRecipeUserDeleted: true, wasLinked: true });
      for (const s of signIns) {
        if (s.json.status === 'WRONG_CREDENTIALS_ERROR') continue;
        expect([s.json.status, s.json.recipeUserId, s.json.user.id]).toEqual(['OK', primary, primary]);
        expect(s.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([primary, member]);
      }
      expect((await al.signIn(email)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
      expect((await al.user(member)).loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([member]);
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('consumes of a linked passwordless login method racing each other and its unlink (the user read beside the write): one consume wins, as the user it was in', async () => {
    const email = uniqueEmail('race-pl');
    const primary = await al.thirdParty(uniqueEmail('race-pl-tp'));
    const member = (await passwordlessSignIn(api, { email })).user.id as string;
    await al.group(primary, member);
    for (let round = 0; round < ROUNDS; round++) {
      const codes = [await createCode(api, { email }), await createCode(api, { email }), await createCode(api, { email })];
      const [unlinked, ...consumed] = await Promise.all([al.unlink(member), ...codes.map((c) => consumeLink(api, c))]);
      expect(unlinked.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
      // Each consume ends the devices made before it: exactly one of the three signs in.
      const ok = consumed.filter((c) => c.json.status === 'OK');
      expect(consumed.map((c) => c.json.status).sort()).toEqual(['OK', 'RESTART_FLOW_ERROR', 'RESTART_FLOW_ERROR']);
      expect([primary, member]).toContain(ok[0].json.user.id);
      expect(ok[0].json.recipeUserId).toBe(member);
      const lm = ok[0].json.user.loginMethods.find((m: { recipeUserId: string }) => m.recipeUserId === member);
      expect([lm.email, lm.verified]).toEqual([email, true]);
      expect(ok[0].json.user.loginMethods.length).toBe(ok[0].json.user.id === primary ? 2 : 1);
      expect((await al.user(member)).id).toBe(member);
      expect((await al.link(member, primary)).json.status).toBe('OK');
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it("third-party sign-ins newly verifying a linked login method's email racing its unlink (written from the guard's copy, the user read beside): each is verified, as the user it was in", async () => {
    const email = uniqueEmail('race-tp-verify');
    const identity = { thirdPartyId: 'google', thirdPartyUserId: `g-${email}` };
    const primary = await al.emailPassword(uniqueEmail('race-tp-verify-ep'));
    const member = (await api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: false } })).json.user.id as string;
    await al.group(primary, member);
    const signIn = () => api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } });
    for (let round = 0; round < ROUNDS; round++) {
      expect((await api.post('/recipe/user/email/verify/remove', { userId: member, email })).json).toEqual({ status: 'OK' });
      const [unlinked, ...signIns] = await Promise.all([al.unlink(member), signIn(), signIn(), signIn()]);
      expect(unlinked.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
      for (const s of signIns) {
        expect([s.json.status, s.json.createdNewUser, s.json.recipeUserId]).toEqual(['OK', false, member]);
        expect([primary, member]).toContain(s.json.user.id);
        expect(s.json.user.loginMethods.length).toBe(s.json.user.id === primary ? 2 : 1);
        const lm = s.json.user.loginMethods.find((m: { recipeUserId: string }) => m.recipeUserId === member);
        expect([lm.email, lm.verified]).toEqual([email, true]);
      }
      const after = await al.user(member);
      expect([after.id, after.loginMethods[0].verified]).toEqual([member, true]);
      expect((await al.link(member, primary)).json.status).toBe('OK');
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('removing a primary user racing a link into it leaves no orphan', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const primary = await al.emailPassword();
      await al.group(primary, await al.thirdParty());
      const member = await al.passwordless({ email: uniqueEmail('race-rm') });
      const [removed, linked] = await Promise.all([al.remove(primary), al.link(member, primary)]);
      expect(removed.json).toEqual({ status: 'OK', didUserExist: true });
      expect(await al.user(primary)).toBeUndefined();
      if (linked.status === 200) {
        // The link landed first: the removal, read again after it, took the member too.
        expect(linked.json.status).toBe('OK');
        expect(await al.user(member)).toBeUndefined();
      } else {
        // The removal landed first: the link found no primary user and left the member alone.
        expect([linked.status, linked.text]).toEqual([400, 'Unknown user ID provided']);
        expect((await al.user(member)).id).toBe(member);
      }
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });
});
