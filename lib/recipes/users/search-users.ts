import type { AuthUser, UserRecord } from '../../storage/model';

/** The dashboard's search tags (SPEC §18b), in the core's order. */
export const SEARCH_TAGS = ['email', 'phone', 'provider'] as const;
export type SearchTag = (typeof SEARCH_TAGS)[number];

/** At most this many users answer a search (the core's `LIMIT 1000`); there is no next page. */
export const MAX_SEARCH_RESULTS = 1000;

/**
 * What `GET /users` searches for: per tag given, its values (trimmed, lower-cased, none empty).
 * A user matches when, for every tag given, one of its login methods in the tenant matches one
 * of the tag's values.
 */
export type UserSearch = Partial<Record<SearchTag, readonly string[]>>;

/** `GET /user/search/tags`. */
export function searchTags(): { status: 'OK'; tags: SearchTag[] } {
  return { status: 'OK', tags: [...SEARCH_TAGS] };
}

/**
 * Whether a login method matches a value of a tag, as the core's storage compares them:
 * - email: the email starts with the value, or the part after its `@` does (so `gmail.com`
 *   finds every Gmail user);
 * - phone: the phone number starts with the value (`+1415`; numbers are stored in E.164);
 * - provider: the third-party id starts with the value, case-insensitively.
 */
function loginMatches(lm: UserRecord, tag: SearchTag, value: string): boolean {
  switch (tag) {
    case 'email': {
      const email = lm.email?.toLowerCase();
      return email !== undefined && (email.startsWith(value) || email.slice(email.indexOf('@') + 1).startsWith(value));
    }
    case 'phone':
      return lm.phoneNumber?.toLowerCase().startsWith(value) ?? false;
    case 'provider':
      return lm.thirdParty?.id.toLowerCase().startsWith(value) ?? false;
  }
}

/** Whether a user matches a search in a tenant: every tag by some login method of the tenant (not necessarily the same one). */
export function matchesSearch(user: AuthUser, tenantId: string, search: UserSearch): boolean {
  const logins = user.loginMethods.filter((lm) => lm.tenantIds.includes(tenantId));
  return SEARCH_TAGS.every((tag) => {
    const values = search[tag];
    return values === undefined || logins.some((lm) => values.some((value) => loginMatches(lm, tag, value)));
  });
}
