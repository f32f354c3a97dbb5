/**
 * The most roles one user id may hold, in all tenants together: far beyond real use, and removing
 * a user deletes its assignments in the one transaction that removes it (100 items at most).
 */
export const MAX_ROLES_PER_USER = 50;

/**
 * The most roles the app may have, and permissions one role may hold (400 beyond, naming the
 * field; the core has no bound, real apps have tens). 2,000 names of up to 255 characters answer
 * in at most 3.1 MB even when every character is written as a 6-byte JSON escape, within what one
 * answer carries (`MAX_ANSWER_BODY_BYTES`), so `GET /recipe/roles`, a role's permissions and a
 * permission's roles never pass Lambda's 6 MB; and a role's removal deletes its permissions in 20
 * transactions, well within its function's 5 s, so none outlives it.
 */
export const MAX_ROLES = 2000;
export const MAX_PERMISSIONS_PER_ROLE = 2000;

/** The most permissions one request may add or remove: a role is written in transactions of 99. */
export const MAX_PERMISSIONS_PER_REQUEST = 500;

/**
 * How long removing a role may spend deleting its assignments to users, in ms: well within the
 * function's 5 s timeout (`infra/sizing.ts`). Assignments left when it runs out never count again
 * (they name the removed role's incarnation) and go with the next removal of a role of that name.
 */
export const ROLE_REMOVAL_BUDGET_MS = 3000;

/** Role and permission names may be this long (the core's columns). */
export const MAX_ROLE_LENGTH = 255;
