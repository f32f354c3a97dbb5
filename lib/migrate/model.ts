/**
 * The migration command's model (SPEC §17): what a source user becomes once read and mapped, and
 * what the report says of it. The sources (Firebase, Auth0, a SuperTokens bulk file) map their own
 * records to `MappedUser`; everything after that (collisions, staging, the report) is shared.
 */

/** A login method of the bulk user schema (SPEC §15), as the command sends it. */
export interface BulkLoginMethodInput {
  recipeId: 'emailpassword' | 'thirdparty' | 'passwordless' | 'webauthn';
  tenantIds: string[];
  isVerified: boolean;
  isPrimary?: boolean;
  timeJoinedInMSSinceEpoch?: number;
  email?: string;
  phoneNumber?: string;
  passwordHash?: string;
  hashingAlgorithm?: string;
  /** SPEC §16: imported without a hash, checked against the old provider at the first sign-in. */
  migratePasswordOnSignIn?: boolean;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  /** webauthn (SPEC §21): the passkeys' public parts (`./passkeys.ts`). */
  credentials?: BulkPasskeyInput[];
}

/** A passkey of a webauthn login method (SPEC §21, passkey import): public parts only, nothing here can sign. */
export interface BulkPasskeyInput {
  /** base64url, unpadded. */
  credentialId: string;
  /** The COSE_Key, base64url unpadded. */
  publicKey: string;
  rpId: string;
  counter: number;
  transports?: string[];
  aaguid?: string;
  createdAt?: number;
}

/** A TOTP device of the bulk user schema (SPEC §20): a verified authenticator, its secret in base32. */
export interface BulkTotpDeviceInput {
  secretKey: string;
  /** Absent: the service names it `TOTP Device <n>`. */
  deviceName?: string;
  period: number;
  skew: number;
}

export interface BulkUserInput {
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: { role: string; tenantIds: string[] }[];
  loginMethods: BulkLoginMethodInput[];
  totpDevices?: BulkTotpDeviceInput[];
  [key: string]: unknown;
}

export interface Warning {
  readonly code: string;
  readonly text: string;
}

/** Why a user is not imported. `needsAction`: the operator must do something (exit code 1). */
export interface NotImported {
  readonly code: string;
  readonly reason: string;
  readonly needsAction: boolean;
}

/** One source user, read and mapped. */
export interface MappedUser {
  /** The source's id (Firebase `localId`, Auth0 `user_id`), or `#<n>` for a record without one. */
  readonly sourceId: string;
  /** Creation time in ms (the oldest wins with `--duplicates oldest`), when the source has it. */
  readonly createdAt?: number;
  /** The bulk user to import, unless the user is skipped or failed while mapping. */
  readonly user?: BulkUserInput;
  /** Set when the user is not imported: `failed` for data that needs fixing, `skipped` otherwise. */
  readonly notImported?: NotImported & { readonly outcome: 'skipped' | 'failed' };
  readonly warnings: readonly Warning[];
  /** SMS second factors carried as phone login methods, which the run drops when another user holds the phone (SPEC §20). */
  readonly smsFactors?: SmsFactors;
}

/** The SMS second factors of a mapped user: the phone login methods added for them (`lib/migrate/mfa.ts`). */
export interface SmsFactors {
  /** The phones (E.164) of the passwordless login methods added only as second factors. */
  readonly phones: readonly string[];
  /** Whether an SMS factor used a phone the user already signs in with (`otp-phone` stays required whatever is dropped). */
  readonly onOwnPhone: boolean;
}

/** `updated`, `conflict`, `gone-from-source` and `removed`: a re-run on a newer export (SPEC §17c). */
export type Outcome = 'imported' | 'skipped' | 'failed' | 'updated' | 'conflict' | 'gone-from-source' | 'removed';

/** One line of the report's `users`. Never holds a hash, a password or a key. */
export interface ReportEntry {
  sourceId: string;
  outcome: Outcome;
  /** The id the app sees: the external id when there is one. */
  userId?: string;
  reasonCode?: string;
  reason?: string;
  needsAction?: boolean;
  warnings?: readonly Warning[];
  /** Dry run: the user is already in the service (a real run would be a no-op for it). */
  alreadyInService?: boolean;
  /** Imported by an earlier run (the ledger): no request was sent for it. */
  fromLedger?: boolean;
  /** `updated`: the fields the run wrote (SPEC §17c). */
  changed?: readonly string[];
  /** `conflict`: the fields the export and the service both changed, left as the service has them. */
  conflicts?: readonly { field: string; ledger: unknown; export: unknown; service: unknown }[];
  /** Fields that differ and that a sync never writes (a login method the export dropped). */
  differences?: readonly { field: string; export: unknown; service: unknown }[];
}

/** What to do with a user that has an email but no password hash and no social identity. */
export type NoHashMode = 'passwordless' | 'migrate-on-signin' | 'skip';

/** `--mfa`: carry second factors over (SPEC §20), or only report them. */
export type MfaMode = 'carry' | 'report';

/** One entry of `--connections` (SPEC §22): where an enterprise connection's users sign in. */
export interface ConnectionEntry {
  readonly key: string;
  readonly tenantId: string;
  readonly thirdPartyId: string;
  readonly clientSecretEnv?: string;
}

/** The `--connections` file as the mappers read it (`./connections.ts`): a look-up that records which keys some user has. */
export interface ConnectionLookup {
  /** The entry of a connection key as the export names it (exact, else the only one equal ignoring case). */
  get(key: string): ConnectionEntry | undefined;
  /** Every entry, in file order (no use recorded). */
  all(): ConnectionEntry[];
  /** The value of the entry's `clientSecretEnv` in the command's environment, when set and not empty. */
  secretFromEnv(entry: ConnectionEntry): string | undefined;
}

/** The options every source's mapping reads. */
export interface MapOptions {
  readonly tenant: string;
  readonly noHash: NoHashMode;
  readonly includeDisabled: boolean;
  /** `carry` when absent. */
  readonly mfa?: MfaMode;
  /** `--connections` (SPEC §22): enterprise connections mapped to a tenant's provider. */
  readonly connections?: ConnectionLookup;
  /** Passkeys carried over (SPEC §21): which RP ids the service takes, checked once per RP id (`./passkeys.ts`). */
  readonly passkeys?: PasskeyPlanLike;
}

/** What a mapper asks of the passkey plan (`./passkeys.ts`'s `PasskeyPlan`). */
export interface PasskeyPlanLike {
  /** `--webauthn-rp-id`: the RP id of passkeys whose export names none. */
  readonly rpIdOption?: string;
  /**
   * Notes the RP ids the source's passkeys need (`head`: the one the export's passkeys are made
   * for); the run asks the service about them later, only when a passkey is to be sent (`ask`).
   */
  ensure(rpIds: readonly string[], head?: string): Promise<void>;
  /** A source starts a read of its export (SPEC §17: the command reads it twice); a credential id repeated under a second user is found from the second read on. */
  startRead(): void;
  /** A passkey of the user `owner` (its source id) as the export gives it → the bulk credential, or why it is not carried. */
  take(passkey: ExportedPasskey, owner: string): BulkPasskeyInput | { readonly why: string };
  /** The service to ask (none: nothing is asked, and every passkey that passes the other checks is carried). */
  useService(service: { readonly url: string } | undefined): void;
  /** The answer the ledger remembers: the export is mapped with it until the service is asked. */
  remember(answer: RpIdAnswer): void;
  /**
   * Asks the service, once, whether it imports passkeys of the RP ids noted; refuses (exit 2)
   * when it does not take the head. The run calls it before any write, only when a passkey is to be sent.
   */
  ask(): Promise<void>;
  /** This run's answer, for the ledger (undefined: the service was not asked). */
  answer(): RpIdAnswer | undefined;
  /** The report's head: `{passkeys: {rpId, serviceRpIds, carried, notCarried}}` once there were passkeys. */
  notes(): Record<string, unknown>;
}

/** The service's answer about RP ids, as the ledger remembers it (`Ledger.passkeyRpIds`, `./passkeys.ts`). */
export interface RpIdAnswer {
  /** Per RP id asked: whether the service imports its passkeys. */
  readonly accepted: Readonly<Record<string, boolean>>;
  /** The service's `WEBAUTHN_RP_ID` as its answer quoted it (`[]`: not set). */
  readonly serviceRpIds: readonly string[];
}

/** A passkey of the export as read: the passkey, or why it is unreadable (`id`: its credential id, or what names it). */
export type ReadPasskey = ExportedPasskey | { readonly id: string; readonly why: string };

/** A passkey as a source reads it, before the checks of SPEC §21. */
export interface ExportedPasskey {
  readonly credentialId: Buffer;
  readonly publicKey: Buffer;
  /** Undefined: the export names no RP id and `--webauthn-rp-id` was not given. */
  readonly rpId?: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly aaguid?: string;
  readonly createdAt?: number;
}

/**
 * A tenant's provider the command writes from the export (SPEC §22: Keycloak's OIDC identity
 * providers): `config` is the body's `config`, its client secret included, or absent with the
 * reason it is not written. Never reported or logged as it is (`sso-setup.ts` reports the outcome).
 */
export interface ProviderPlan {
  readonly tenantId: string;
  readonly thirdPartyId: string;
  readonly config?: Record<string, unknown>;
  /** Where the client secret came from: `export`, or `env <NAME>`. */
  readonly secretFrom?: string;
  readonly skipped?: { readonly code: string; readonly reason: string };
}

/** A source: reads its file(s) as a stream of mapped users; may be read more than once. */
export interface Source {
  /** Every user of the file, in file order. */
  users(): AsyncIterable<MappedUser>;
  /** Facts found while reading, for the report (for example Auth0 hash lines that join no user). */
  notes(): Record<string, unknown>;
  /**
   * Whether the roles its users name are created when the service lacks them (Auth0's
   * `app_metadata.roles`). A SuperTokens bulk file goes through as it is: its roles must exist.
   */
  readonly createsRoles?: boolean;
  /** The tenants' providers to write before the first user (SPEC §22; Keycloak only), once the users were read. */
  providers?(): Promise<readonly ProviderPlan[]>;
}

/**
 * What a source takes beside its export, from the command line: companion files (paths, checked
 * readable before the source opens them) and flags. A source says which it takes; any other given
 * is refused with exit 2.
 */
export interface Companions {
  /** firebase: the project's password hash parameters. */
  readonly hashConfig?: string;
  /** auth0: the password-hash export. */
  readonly hashes?: string;
  /** supabase: `auth.identities`. */
  readonly identities?: string;
  /** cognito: `list-users-in-group` per group; django: a `dumpdata auth.group` file. */
  readonly groups?: string;
  /** django, wordpress: every imported email is verified. */
  readonly assumeVerified?: boolean;
  /** supabase: `auth.mfa_factors`. */
  readonly mfaFactors?: string;
  /** wordpress: `wp_usermeta`. */
  readonly usermeta?: string;
  /** keycloak, auth0, cognito, supabase: the enterprise connections' tenants and providers (SPEC §22). */
  readonly connections?: string;
  /** supabase: `auth.webauthn_credentials` (SPEC §21). */
  readonly webauthnCredentials?: string;
  /** keycloak, supabase: the RP id of the passkeys when the export names none (SPEC §21). */
  readonly webauthnRpId?: string;
}

export type CompanionName = keyof Companions;

/** One `<source>` of the command: its name, what it reads and takes, and how it opens its export. */
export interface SourceDefinition {
  readonly name: string;
  /** What `<file>` is for this source, for `--help` (e.g. `Auth0 user export NDJSON`). */
  readonly file: string;
  /** The companions it takes (SPEC §17, §17b). */
  readonly companions: readonly CompanionName[];
  /** `--no-hash` when the option is not given (SPEC §17b: cognito migrates passwords at sign-in). */
  readonly noHash?: NoHashMode;
  /** Whether `<file>` may be a folder (SPEC §17b: Keycloak's export directory). */
  readonly directory?: boolean;
  open(file: string, map: MapOptions, companions: Companions): Promise<Source>;
}
