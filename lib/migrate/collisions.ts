import { emailOf, phoneOf } from './mapping';
import type { BulkUserInput, MappedUser, NotImported } from './model';

/**
 * Collisions between source users (SPEC §17), found before anything is written: two users whose
 * normalised email, phone number or third-party identity is equal in one tenant and one recipe
 * (what the service would refuse as E003/E005/E006/E007), or two users that both become primary
 * users holding one email or phone number (E027). None of them is imported over another.
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
      if (m.recipeId === 'thirdparty' && m.thirdPartyId && m.thirdPartyUserId) add(`thirdparty ${m.thirdPartyId} ${m.thirdPartyUserId}`);
      if (isPrimary && email) add(`primary user email ${email}`);
      if (isPrimary && phone) add(`primary user phone ${phone}`);
    }
  }
  return [...keys];
}

interface Holder {
  readonly sourceId: string;
  readonly createdAt: number;
}

interface Entry {
  first: Holder;
  /** The oldest holder (first on ties). */
  oldest: Holder;
  /** Every holder, once there are two or more. */
  all?: string[];
}

export type DuplicatesMode = 'fail' | 'oldest';

const split = (key: string) => {
  const at = key.indexOf('\u0000');
  return { tenant: key.slice(0, at), key: key.slice(at + 1) };
};

export class CollisionIndex {
  private readonly entries = new Map<string, Entry>();
  /** Emails held by several users without a collision (different recipes): for the report only. */
  private readonly emails = new Map<string, { first: string; all?: string[] }>();

  add(mapped: MappedUser): void {
    if (!mapped.user) return;
    const holder = { sourceId: mapped.sourceId, createdAt: mapped.createdAt ?? Number.POSITIVE_INFINITY };
    for (const key of identityKeys(mapped.user)) {
      const entry = this.entries.get(key);
      if (!entry) {
        this.entries.set(key, { first: holder, oldest: holder });
        continue;
      }
      entry.all ??= [entry.first.sourceId];
      entry.all.push(holder.sourceId);
      if (holder.createdAt < entry.oldest.createdAt) entry.oldest = holder;
    }
    const emails = new Set((Array.isArray(mapped.user.loginMethods) ? mapped.user.loginMethods : []).map((m) => emailOf(m?.email)).filter((e): e is string => e !== undefined));
    for (const email of emails) {
      const seen = this.emails.get(email);
      if (!seen) this.emails.set(email, { first: mapped.sourceId });
      else (seen.all ??= [seen.first]).push(mapped.sourceId);
    }
  }

  /** Why a user is not imported because of a collision, or undefined when it is imported. */
  verdict(mapped: MappedUser, mode: DuplicatesMode): (NotImported & { outcome: 'skipped' | 'failed' }) | undefined {
    if (!mapped.user) return undefined;
    for (const full of identityKeys(mapped.user)) {
      const entry = this.entries.get(full);
      if (!entry?.all) continue;
      const { tenant, key } = split(full);
      if (mode === 'oldest') {
        if (entry.oldest.sourceId === mapped.sourceId) continue;
        return { outcome: 'skipped', code: 'duplicate', reason: `duplicate of ${entry.oldest.sourceId} (${key})`, needsAction: false };
      }
      const others = entry.all.filter((id) => id !== mapped.sourceId);
      return {
        outcome: 'failed',
        code: 'duplicate',
        reason: `${key} is also used by ${others.join(', ')} in tenant ${tenant}; none of them imported (--duplicates oldest imports the oldest)`,
        needsAction: true,
      };
    }
    return undefined;
  }

  collisions(): { tenant: string; key: string; sourceIds: string[] }[] {
    const out: { tenant: string; key: string; sourceIds: string[] }[] = [];
    for (const [full, entry] of this.entries) if (entry.all) out.push({ ...split(full), sourceIds: entry.all });
    return out;
  }

  /** Emails several users hold in different recipes (not a collision: the service keeps them apart). */
  sharedEmails(): { email: string; sourceIds: string[] }[] {
    const colliding = new Set(this.collisions().flatMap((c) => c.sourceIds));
    const out: { email: string; sourceIds: string[] }[] = [];
    for (const [email, seen] of this.emails) {
      if (seen.all && !seen.all.every((id) => colliding.has(id))) out.push({ email, sourceIds: seen.all });
    }
    return out;
  }
}
