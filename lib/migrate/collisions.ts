import { emailOf, phoneOf } from './mapping';
import { dropHeldSmsFactors, isSmsFactorMethod } from './mfa';
import type { BulkUserInput, MappedUser, NotImported } from './model';
import { SeenTwice } from './seen-twice';

/**
 * Collisions between source users (SPEC §17), found before anything is written: two users whose
 * normalised email, phone number or third-party identity is equal in one tenant and one recipe
 * (what the service would refuse as E003/E005/E006/E007), or two users that both become primary
 * users holding one email or phone number (E027). None of them is imported over another.
 *
 * Memory stays small however large the export (SPEC §17c): the first look writes a 48-bit hash per
 * identity to scratch files and keeps only the hashes seen twice (`./seen-twice.ts`), and only
 * identities whose hash was seen twice get a second, exact look (their full text and holders),
 * which also rules out two identities that merely share a hash.
 * The exact look happens during the second read (`decideUsers`), so the export is read twice.
 *
 * The phone of an SMS second factor (SPEC §20) is no identity of the user's own: a phone another
 * user also holds drops the factor (`dropHeldSmsFactors`), never the user.
 */

/** Identities of a bulk user, one string per (tenant, recipe, identity): `<tenant>\u0000<key>`. */
export function identityKeys(user: BulkUserInput): string[] {
  const keys = new Set<string>();
  // A SuperTokens bulk file goes through as it is: its users are not checked here (the service does).
  const methods = Array.isArray(user.loginMethods) ? user.loginMethods.filter((m) => m !== null && typeof m === 'object') : [];
  const isPrimary = methods.some((m) => m.isPrimary === true);
  for (const m of methods) {
    const tenants = Array.isArray(m.tenantIds) && m.tenantIds.length > 0 ? m.tenantIds.map((t) => String(t).trim().toLowerCase()) : ['public'];
    const email = emailOf(m.email);
    const phone = phoneOf(m.phoneNumber);
    for (const t of tenants) {
      const add = (key: string) => keys.add(`${t}\u0000${key}`);
      if (m.recipeId === 'emailpassword' && email) add(`emailpassword email ${email}`);
      if (m.recipeId === 'passwordless' && email) add(`passwordless email ${email}`);
      if (m.recipeId === 'passwordless' && phone) add(`passwordless phone ${phone}`);
      if (m.recipeId === 'webauthn' && email) add(`webauthn email ${email}`);
      if (m.recipeId === 'thirdparty' && m.thirdPartyId && m.thirdPartyUserId) add(`thirdparty ${m.thirdPartyId} ${m.thirdPartyUserId}`);
      if (isPrimary && email) add(`primary user email ${email}`);
      if (isPrimary && phone) add(`primary user phone ${phone}`);
    }
  }
  return [...keys];
}

/** The identities of a mapped user's own login methods: not those added for its SMS second factors. */
function ownKeys(mapped: MappedUser): string[] {
  const user = mapped.user!;
  const phones = mapped.smsFactors?.phones ?? [];
  if (phones.length === 0) return identityKeys(user);
  return identityKeys({ ...user, loginMethods: user.loginMethods.filter((lm) => !isSmsFactorMethod(lm, phones)) });
}

/** The identity of each SMS second factor's phone login method, by phone. */
function smsKeys(mapped: MappedUser): Map<string, string[]> {
  const phones = mapped.smsFactors?.phones ?? [];
  const methods = phones.length === 0 ? [] : mapped.user!.loginMethods.filter((lm) => isSmsFactorMethod(lm, phones));
  return new Map(methods.map(({ isPrimary: _isPrimary, ...lm }) => [lm.phoneNumber!, identityKeys({ loginMethods: [lm] })]));
}

function emailsOf(user: BulkUserInput): string[] {
  const methods = Array.isArray(user.loginMethods) ? user.loginMethods : [];
  return [...new Set(methods.map((m) => emailOf(m?.email)).filter((e): e is string => e !== undefined))];
}

interface Holder {
  readonly sourceId: string;
  readonly createdAt: number;
}

export type DuplicatesMode = 'fail' | 'oldest';

const split = (key: string) => {
  const at = key.indexOf('\u0000');
  return { tenant: key.slice(0, at), key: key.slice(at + 1) };
};

export class CollisionIndex {
  private readonly keys = new SeenTwice();
  private readonly emails = new SeenTwice();
  /** The exact look: holders of every candidate identity and email (filled by `addExact`). */
  private readonly exact = new Map<string, Holder[]>();
  private readonly exactEmails = new Map<string, string[]>();
  /** The exact look at SMS second factors' phones: the users whose factor is on each. */
  private readonly exactSms = new Map<string, string[]>();

  /** First look (first pass over the export): hashes only. */
  add(mapped: MappedUser): void {
    if (!mapped.user) return;
    for (const key of ownKeys(mapped)) this.keys.add(key);
    for (const keys of smsKeys(mapped).values()) for (const key of keys) this.keys.add(key);
    for (const email of emailsOf(mapped.user)) this.emails.add(email);
  }

  /**
   * Exact look (during the second read): the full identities of the candidates (hash seen twice)
   * and their holders. Answers whether the user holds a candidate identity: then it may collide.
   */
  addExact(mapped: MappedUser): boolean {
    if (!mapped.user) return false;
    let candidate = false;
    const holder = { sourceId: mapped.sourceId, createdAt: mapped.createdAt ?? Number.POSITIVE_INFINITY };
    for (const key of ownKeys(mapped)) {
      if (!this.keys.candidate(key)) continue;
      candidate = true;
      const holders = this.exact.get(key);
      if (holders) holders.push(holder);
      else this.exact.set(key, [holder]);
    }
    for (const keys of smsKeys(mapped).values()) {
      for (const key of keys) {
        if (!this.keys.candidate(key)) continue;
        candidate = true;
        const ids = this.exactSms.get(key);
        if (ids) ids.push(mapped.sourceId);
        else this.exactSms.set(key, [mapped.sourceId]);
      }
    }
    for (const email of emailsOf(mapped.user)) {
      if (!this.emails.candidate(email)) continue;
      const ids = this.exactEmails.get(email);
      if (ids) ids.push(mapped.sourceId);
      else this.exactEmails.set(email, [mapped.sourceId]);
    }
    return candidate;
  }

  /**
   * Who else in the export holds the phone of one of the user's SMS second factors: a user that
   * signs in with it, or another user with a factor on it (then neither carries it).
   */
  smsHolderOf(mapped: MappedUser): (phone: string) => string | undefined {
    const keys = smsKeys(mapped);
    return (phone) => {
      const others = new Set<string>();
      for (const key of keys.get(phone) ?? []) {
        for (const h of this.exact.get(key) ?? []) others.add(h.sourceId);
        for (const id of this.exactSms.get(key) ?? []) others.add(id);
      }
      others.delete(mapped.sourceId);
      if (others.size === 0) return undefined;
      return `${others.size === 1 ? 'user' : 'users'} ${[...others].join(', ')} of the export`;
    };
  }

  /** Why a user is not imported because of a collision, or undefined when it is imported. */
  verdict(mapped: MappedUser, mode: DuplicatesMode): (NotImported & { outcome: 'skipped' | 'failed' }) | undefined {
    if (!mapped.user) return undefined;
    for (const full of identityKeys(mapped.user)) {
      const holders = this.exact.get(full);
      if (!holders || holders.length < 2) continue;
      const { tenant, key } = split(full);
      if (mode === 'oldest') {
        // The oldest holder, first in the export on ties.
        const oldest = holders.reduce((a, b) => (b.createdAt < a.createdAt ? b : a));
        if (oldest.sourceId === mapped.sourceId) continue;
        return { outcome: 'skipped', code: 'duplicate', reason: `duplicate of ${oldest.sourceId} (${key})`, needsAction: false };
      }
      const others = holders.map((h) => h.sourceId).filter((id) => id !== mapped.sourceId);
      // The same record twice (a concatenated export) collides with itself.
      const who = others.length > 0 ? others.join(', ') : `another record with the id ${mapped.sourceId}`;
      return {
        outcome: 'failed',
        code: 'duplicate',
        reason: `${key} is also used by ${who} in tenant ${tenant}; none of them imported (--duplicates oldest imports the oldest)`,
        needsAction: true,
      };
    }
    return undefined;
  }

  collisions(): { tenant: string; key: string; sourceIds: string[] }[] {
    const out: { tenant: string; key: string; sourceIds: string[] }[] = [];
    for (const [full, holders] of this.exact) if (holders.length > 1) out.push({ ...split(full), sourceIds: holders.map((h) => h.sourceId) });
    return out;
  }

  /** Emails several users hold in different recipes (not a collision: the service keeps them apart). */
  sharedEmails(): { email: string; sourceIds: string[] }[] {
    const colliding = new Set(this.collisions().flatMap((c) => c.sourceIds));
    const out: { email: string; sourceIds: string[] }[] = [];
    for (const [email, ids] of this.exactEmails) if (ids.length > 1 && !ids.every((id) => colliding.has(id))) out.push({ email, sourceIds: ids });
    return out;
  }
}

/** A user and why it is not imported (no verdict: import it). */
export interface Decided {
  readonly mapped: MappedUser;
  readonly verdict?: NotImported & { readonly outcome: 'skipped' | 'failed' };
}

/**
 * The second read of the export: every user with its verdict. A user holding an identity whose
 * hash was seen twice may collide with a user further on, so it is held back until the whole
 * export has been read and the exact look knows every holder; the others (nearly all) are decided
 * at once and can be staged while the file is still being read.
 */
export async function* decideUsers(users: AsyncIterable<MappedUser>, index: CollisionIndex, mode: DuplicatesMode): AsyncGenerator<Decided> {
  const held: MappedUser[] = [];
  for await (const mapped of users) {
    const mayCollide = index.addExact(mapped);
    if (mapped.notImported) yield { mapped, verdict: mapped.notImported };
    else if (mayCollide) held.push(mapped);
    else yield { mapped };
  }
  for (const mapped of held) {
    const verdict = index.verdict(mapped, mode);
    yield verdict ? { mapped, verdict } : { mapped: dropHeldSmsFactors(mapped, index.smsHolderOf(mapped)) };
  }
}
