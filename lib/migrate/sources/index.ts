import { readHashConfig } from '../hash-config';
import type { SourceDefinition } from '../model';
import { auth0Source, HashIndex } from './auth0';
import { djangoSource, DumpIndex } from './django';
import { cognitoSource, GroupIndex } from './cognito';
import { clerkSource } from './clerk';
import { firebaseSource } from './firebase';
import { keycloakSource } from './keycloak';
import { readIdentities, supabaseSource } from './supabase';
import { readFactors } from './supabase-factors';
import { readPasskeys } from './supabase-passkeys';
import { UsageError } from '../errors';
import { supertokensSource } from './supertokens';
import { wordpressSource } from './wordpress';
import { UsermetaIndex } from './wordpress-usermeta';

/**
 * Every `<source>` of the migration command (SPEC §17, §17b), in `--help`'s order. A source is a
 * module of pure mappers (a provider's record → a bulk user) and one definition here; the command
 * checks its companions, and reading, collisions, staging, the report and the ledger are shared.
 */
export const SOURCES: readonly SourceDefinition[] = [
  {
    name: 'firebase',
    file: 'Firebase auth:export JSON or CSV',
    companions: ['hashConfig'],
    open: async (file, opts, { hashConfig }) => firebaseSource(file, { opts, ...(hashConfig ? { hashConfig: readHashConfig(hashConfig) } : {}) }),
  },
  {
    name: 'auth0',
    file: 'Auth0 user export NDJSON (plain or gzipped)',
    companions: ['hashes', 'connections'],
    open: async (file, opts, { hashes }) => auth0Source(file, { opts, ...(hashes ? { hashes: await HashIndex.read(hashes) } : {}) }),
  },
  {
    name: 'cognito',
    file: 'aws cognito-idp list-users output (one JSON document, or pages concatenated or one per line)',
    companions: ['groups', 'connections'],
    noHash: 'migrate-on-signin',
    open: async (file, opts, { groups }) => cognitoSource(file, { opts, ...(groups ? { groups: await GroupIndex.read(groups) } : {}) }),
  },
  {
    name: 'supabase',
    file: 'Supabase auth.users (psql CSV with header or JSON)',
    companions: ['identities', 'mfaFactors', 'connections', 'webauthnCredentials', 'webauthnRpId'],
    open: async (file, opts, { identities, mfaFactors, webauthnCredentials }) => {
      if (webauthnCredentials !== undefined && opts.passkeys?.rpIdOption === undefined)
        throw new UsageError("--webauthn-credentials needs --webauthn-rp-id: the RP ID the passkeys were made for (Supabase's GOTRUE_WEBAUTHN_RP_ID).");
      return supabaseSource(file, {
        opts,
        ...(identities ? { identities: await readIdentities(identities) } : {}),
        ...(mfaFactors ? { factors: await readFactors(mfaFactors) } : {}),
        ...(webauthnCredentials ? { passkeys: await readPasskeys(webauthnCredentials, opts.passkeys?.rpIdOption) } : {}),
      });
    },
  },
  {
    name: 'keycloak',
    file: 'Keycloak kc.sh export: a realm file with users, a <realm>-users-<n>.json file, or the export folder',
    companions: ['connections', 'webauthnRpId'],
    directory: true,
    open: async (file, opts) => keycloakSource(file, { opts }),
  },
  {
    name: 'django',
    file: 'Django manage.py dumpdata auth.user (JSON or JSONL, optionally with auth.group and the otp_totp, two_factor, otp_static devices)',
    companions: ['groups', 'assumeVerified'],
    open: async (file, opts, { groups, assumeVerified }) =>
      djangoSource(file, { opts, index: await DumpIndex.read(file, groups), assumeVerified: assumeVerified === true }),
  },
  {
    name: 'wordpress',
    file: 'WordPress wp_users as CSV with a header row',
    companions: ['assumeVerified', 'usermeta'],
    open: async (file, opts, { assumeVerified, usermeta }) =>
      wordpressSource(file, { opts, assumeVerified, ...(usermeta ? { usermeta: await UsermetaIndex.read(usermeta) } : {}) }),
  },
  {
    name: 'clerk',
    file: "Clerk's dashboard CSV export",
    companions: [],
    open: async (file, opts) => clerkSource(file, { opts }),
  },
  {
    name: 'supertokens',
    file: 'a SuperTokens bulk file {"users":[…]}',
    companions: [],
    open: async (file) => supertokensSource(file),
  },
];
