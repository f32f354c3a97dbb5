import type { RoleRecord } from '../model';

/**
 * A role's current incarnation and the list of roles: all that bulk import needs of roles (its
 * checks of `userRoles`), apart from `RoleStore`, so that its functions bundle these two reads and
 * none of the role store's writes (esbuild keeps every method of a class it keeps).
 */
export interface RoleReader {
  getRole(role: string): Promise<RoleRecord | undefined>;
  /** Every role (read from an index). */
  listRoles(): Promise<string[]>;
}

/**
 * Roles and permissions (app-wide) and their assignments to user ids per tenant (SPEC §14). User
 * ids are taken exactly as the app gives them, as in the core.
 */
export interface RoleStore extends RoleReader {
  /** Creates the role unless it exists; `false` when it did. */
  createRole(role: RoleRecord): Promise<boolean>;
  /** Adds permissions (idempotent), only while the role is this incarnation (`ROLE_GONE` otherwise). */
  addPermissions(role: RoleRecord, permissions: readonly string[]): Promise<'OK' | 'ROLE_GONE'>;
  permissionsOf(role: string): Promise<string[]>;
  removePermissions(role: string, permissions: readonly string[]): Promise<void>;
  /** The roles holding a permission (read from an index: a change may show a moment late). */
  rolesWithPermission(permission: string): Promise<string[]>;
  /** How many roles there are (counted on the index `listRoles` reads). */
  countRoles(): Promise<number>;
  /**
   * Removes a role, its permissions, and its assignments to users (as far as `deadline` allows:
   * assignments of a removed role never count again, see `RoleRecord`); `false` if it did not exist.
   */
  removeRole(role: string, deadline: number): Promise<boolean>;
  /** Assigns a role to a user id in a tenant: `ALREADY` if it had it, `ROLE_GONE` if the role is no longer this incarnation. */
  assignRole(tenantId: string, userId: string, role: RoleRecord): Promise<'OK' | 'ALREADY' | 'ROLE_GONE'>;
  /** Removes a role from a user id in a tenant; whether it had it. */
  unassignRole(tenantId: string, userId: string, role: RoleRecord): Promise<boolean>;
  /**
   * Removes every role assignment of a user id in a tenant (SPEC §22: its login method left the
   * tenant); whether it had any.
   */
  removeUserRolesInTenant(tenantId: string, userId: string): Promise<boolean>;
  /** The roles of a user id in a tenant (only of roles that exist). */
  rolesOfUser(tenantId: string, userId: string): Promise<string[]>;
  /** How many role assignments a user id has, in every tenant (of roles that exist: a removed role's leftovers do not count). */
  countAssignments(userId: string): Promise<number>;
  /**
   * The user ids holding a role in a tenant (read from an index); `undefined` when they take more
   * than `maxBytes` (each its length and 5), where reading stops.
   */
  usersWithRole(tenantId: string, role: RoleRecord, maxBytes: number): Promise<string[] | undefined>;
}
