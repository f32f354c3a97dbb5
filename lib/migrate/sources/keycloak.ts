import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { argon2Format } from '../../password/argon2';
import { base64 } from '../../password/forms/fields';
import { passlibPbkdf2Form } from '../../password/forms/pbkdf2';
import { droppedConnection, enterpriseMethod } from '../connections';
import { UsageError } from '../errors';
import { assembleUser, emailOf, failedUser, noHashLoginMethod, thirdPartyIdOf, nonEmpty } from '../mapping';
import { base32Of, quoted, type SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, ProviderPlan, Source, Warning } from '../model';
import { webauthnMethodOf } from '../passkeys';
import { jsonFilesOf, usersArray } from '../read';
import { keycloakPasskeys, keycloakRpIdsOf, PASSKEY_TYPES, readKeycloakRpIds } from './keycloak-passkeys';
import { ENTERPRISE_PROVIDER_IDS, keycloakProviderPlans, readIdentityProviders, type KeycloakIdentityProvider } from './keycloak-providers';

/**
 * Keycloak (SPEC §17b): what `kc.sh export` writes — a realm file (`{"realm", …, "users":[…]}`
 * with `--users realm_file`), `<realm>-users-<n>.json` files (`{"realm","users":[…]}`, the
 * default `different_files`), or the folder holding them. Users are `UserRepresentation`s; their
 * `credentials[]` carry `secretData` and `credentialData` as JSON **strings**, turned here into
 * the self-describing forms of SPEC §7b (PBKDF2 as PHC, Argon2 as its standard string); `otp`
 * credentials become TOTP devices (SPEC §20: `keycloakFactors`).
 */

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What the refusal says the file should be. */
const WHAT = 'a Keycloak export (kc.sh export: a realm file with users, a <realm>-users-<n>.json file, or their folder)';

/** Realm roles every user holds, which mean nothing outside Keycloak (SPEC §17b); `default-roles-<realm>` besides. */
const BUILT_IN_ROLES = new Set(['offline_access', 'uma_authorization']);

/** Keycloak's PBKDF2 algorithm ids → the digest of the PHC form. */
const PBKDF2_DIGESTS: Readonly<Record<string, string>> = { pbkdf2: 'sha1', 'pbkdf2-sha256': 'sha256', 'pbkdf2-sha512': 'sha512' };

/** Keycloak's Argon2 `version` → the PHC `v=`. */
const ARGON2_VERSIONS: Readonly<Record<string, number>> = { '1.3': 19, '1.0': 16 };
const ARGON2_TYPES = new Set(['id', 'i', 'd']);

/** A password credential converted (SPEC §7b's form and family), or why it cannot be. */
export type ConvertedCredential = { readonly passwordHash: string; readonly hashingAlgorithm: 'pbkdf2' | 'argon2' } | { readonly unsupported: string };

/** `secretData` / `credentialData`: a JSON string in exports, an object in some tools' output. */
function dataOf(v: unknown): Obj | undefined {
  if (isObject(v)) return v;
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A number as Keycloak writes it: a JSON integer, or one decimal string in a one-element array (`additionalParameters`). */
function integerOf(v: unknown): string | undefined {
  const one = Array.isArray(v) && v.length === 1 ? v[0] : v;
  if (typeof one === 'number' && Number.isSafeInteger(one)) return String(one);
  return typeof one === 'string' && /^\d{1,15}$/.test(one) ? one : undefined;
}

/** The first string of an `additionalParameters` entry (`["id"]`). */
const parameterOf = (params: Obj, name: string): string | undefined =>
  Array.isArray(params[name]) ? nonEmpty((params[name] as unknown[])[0]) : nonEmpty(params[name]);

/** An algorithm id as the report may show it: an identifier, at most 32 characters. */
const shown = (algorithm: string): string => JSON.stringify(algorithm.replace(/[^\w.-]/g, '?').slice(0, 32));

/**
 * A `password` credential in the form SPEC §7b accepts: PBKDF2 → `$pbkdf2-<digest>$i=<hashIterations>,
 * l=<decoded value length>$<salt>$<value>` (both base64 as Keycloak wrote them), Argon2 →
 * `$argon2<type>$v=<19|16>$m=<memory>,t=<hashIterations>,p=<parallelism>$<salt>$<value>` (unpadded).
 * The result is parsed by the service's own form parser, so a string the service would refuse is
 * never sent. Legacy credentials (`hashedSaltedValue`, `salt`, `hashIterations`, `algorithm` on
 * the credential itself, before Keycloak 12) are read too. Reasons never quote the hash or its salt.
 */
export function convertKeycloakCredential(credential: Obj): ConvertedCredential {
  const legacy = credential.secretData === undefined && credential.hashedSaltedValue !== undefined;
  const secret = legacy ? { value: credential.hashedSaltedValue, salt: credential.salt } : dataOf(credential.secretData);
  const data = legacy ? { algorithm: credential.algorithm, hashIterations: credential.hashIterations } : dataOf(credential.credentialData);
  if (secret === undefined || data === undefined) return { unsupported: 'its secretData or credentialData is not a JSON object' };
  const algorithm = nonEmpty(data.algorithm);
  const value = nonEmpty(secret.value);
  const salt = nonEmpty(secret.salt);
  const iterations = integerOf(data.hashIterations);
  if (algorithm === undefined) return { unsupported: 'its credentialData names no algorithm' };
  if (value === undefined || salt === undefined || iterations === undefined)
    return { unsupported: `its ${shown(algorithm)} credential has no value, salt or hashIterations` };
  const digest = PBKDF2_DIGESTS[algorithm];
  if (digest !== undefined) {
    const key = base64(value);
    if (key === undefined) return { unsupported: `its ${shown(algorithm)} value is not base64` };
    const passwordHash = `$pbkdf2-${digest}$i=${iterations},l=${key.length}$${salt}$${value}`;
    const parsed = passlibPbkdf2Form.parse(passwordHash);
    return parsed.ok
      ? { passwordHash, hashingAlgorithm: 'pbkdf2' }
      : { unsupported: `its ${shown(algorithm)} credential is not a PBKDF2 hash: ${parsed.reason}` };
  }
  if (algorithm === 'argon2') {
    const params = isObject(data.additionalParameters) ? data.additionalParameters : {};
    const type = parameterOf(params, 'type');
    const version = ARGON2_VERSIONS[parameterOf(params, 'version') ?? ''];
    const memory = integerOf(params.memory);
    const parallelism = integerOf(params.parallelism);
    if (type === undefined || !ARGON2_TYPES.has(type) || version === undefined || memory === undefined || parallelism === undefined) {
      return { unsupported: 'its argon2 credential lacks a known type, version (1.3 or 1.0), memory or parallelism' };
    }
    const unpadded = (b64: string) => b64.replace(/=+$/, '');
    const passwordHash = `$argon2${type}$v=${version}$m=${memory},t=${iterations},p=${parallelism}$${unpadded(salt)}$${unpadded(value)}`;
    const parsed = argon2Format.parse(passwordHash);
    // The parser's message repeats `Password hash is in invalid Argon2 format: `, never the hash.
    return parsed.ok ? { passwordHash, hashingAlgorithm: 'argon2' } : { unsupported: `its argon2 credential is not an Argon2 hash: ${parsed.message}` };
  }
  return { unsupported: `its algorithm ${shown(algorithm)} is none the service checks (pbkdf2, pbkdf2-sha256, pbkdf2-sha512, argon2)` };
}

/**
 * The user's second factors (SPEC §20): each `otp` credential, and its recovery codes. A TOTP
 * secret is the raw UTF-8 bytes of `secretData.value` unless `credentialData.secretEncoding` is
 * `BASE32` (Keycloak's `OTPCredentialModel.getDecodedSecret`); only HmacSHA1, 6-digit, time-based
 * credentials can be carried.
 */
export function keycloakFactors(credentials: readonly Obj[]): SecondFactor[] {
  const factors: SecondFactor[] = [];
  for (const c of credentials) {
    const label = nonEmpty(c.userLabel);
    if (c.type === 'recovery-authn-codes') factors.push({ kind: 'recovery', what: 'the recovery codes (recovery-authn-codes)' });
    if (c.type !== 'otp') continue;
    const what = `the OTP credential${label !== undefined ? ` ${quoted(label)}` : ''}`;
    const data = dataOf(c.credentialData);
    const value = nonEmpty(dataOf(c.secretData)?.value);
    const lost = (why: string): SecondFactor => ({ kind: 'lost', what, why, authenticator: true });
    if (data === undefined || value === undefined) {
      factors.push(lost('its secretData or credentialData is unreadable'));
      continue;
    }
    const subType = data.subType ?? 'totp';
    const algorithm = data.algorithm ?? 'HmacSHA1';
    const digits = data.digits ?? 6;
    const period = data.period ?? 30;
    const encoding = data.secretEncoding ?? null;
    if (subType !== 'totp')
      factors.push(
        lost(`it is ${subType === 'hotp' ? 'counter-based (HOTP)' : `of subType ${shown(String(subType))}`}, and the service checks time-based codes only`),
      );
    else if (algorithm !== 'HmacSHA1') factors.push(lost(`it uses ${shown(String(algorithm))}, and the service checks HMAC-SHA1 codes only`));
    else if (digits !== 6) factors.push(lost(`it makes ${shown(String(digits))}-digit codes, and the service checks 6 digits only`));
    else if (!Number.isSafeInteger(period) || (period as number) < 1) factors.push(lost('its period is not a positive whole number of seconds'));
    else if (encoding !== null && encoding !== 'BASE32') factors.push(lost(`its secretEncoding ${shown(String(encoding))} is unknown`));
    else {
      const secret = encoding === 'BASE32' ? value : base32Of(Buffer.from(value, 'utf8'));
      factors.push({ kind: 'totp', what, ...(label !== undefined ? { name: label } : {}), secret, period: period as number, skew: 1 });
    }
  }
  return factors;
}

export interface KeycloakMapContext {
  readonly opts: MapOptions;
  /** The `realm` of the file the user came from, when it was read before its users (Keycloak writes it first). */
  readonly realm?: string;
  /** The export's identity providers by alias (SPEC §22: which brokered identities are enterprise connections). */
  readonly identityProviders?: ReadonlyMap<string, KeycloakIdentityProvider>;
  /** The RP id of each WebAuthn credential type (SPEC §21: `keycloakRpIdsOf`). */
  readonly passkeyRpIds?: Record<string, string | undefined>;
}

/**
 * Attributes (`{"name": ["value", …]}`) as metadata: one value → the string, more → the array,
 * none → left out. `username`, `firstName` and `lastName` come first and win over an attribute
 * of the same name (warning `metadata-key-clash`).
 */
function metadataOf(raw: Obj, warnings: Warning[]): Obj {
  const own: Obj = {};
  for (const key of ['username', 'firstName', 'lastName'] as const) if (nonEmpty(raw[key]) !== undefined) own[key] = raw[key];
  const attributes: Obj = {};
  if (isObject(raw.attributes)) {
    for (const [name, values] of Object.entries(raw.attributes)) {
      if (!Array.isArray(values)) attributes[name] = values;
      else if (values.length === 1) attributes[name] = values[0];
      else if (values.length > 1) attributes[name] = values;
    }
  }
  const clashes = Object.keys(attributes).filter((k) => Object.hasOwn(own, k) && JSON.stringify(own[k]) !== JSON.stringify(attributes[k]));
  if (clashes.length > 0)
    warnings.push({
      code: 'metadata-key-clash',
      text: `attribute(s) ${clashes.join(', ')} differ from the user's own field(s) of that name: the field is kept`,
    });
  return { ...attributes, ...own };
}

/** Realm roles less Keycloak's built-in ones (`default-roles-<realm>` is lower-cased by Keycloak). */
function rolesOf(raw: Obj, realm: string | undefined): string[] {
  const roles = Array.isArray(raw.realmRoles) ? raw.realmRoles.filter((r): r is string => typeof r === 'string' && r !== '') : [];
  const isDefault = (role: string) => (realm !== undefined ? role === `default-roles-${realm.toLowerCase()}` : role.startsWith('default-roles-'));
  return roles.filter((role) => !BUILT_IN_ROLES.has(role) && !isDefault(role));
}

/** Maps one Keycloak `UserRepresentation` to a bulk user (or says why it is not imported); `at` names it in its file. */
export function mapKeycloakUser(raw: Obj, ctx: KeycloakMapContext, at: string): MappedUser {
  const { opts } = ctx;
  const warnings: Warning[] = [];
  const created = raw.createdTimestamp;
  const createdAt = typeof created === 'number' && Number.isSafeInteger(created) && created >= 0 ? created : undefined;
  if (created !== undefined && createdAt === undefined)
    warnings.push({ code: 'bad-created-at', text: 'createdTimestamp is not a time in ms: timeJoined is the import time' });
  const sourceId = nonEmpty(raw.id);
  if (sourceId === undefined) return failedUser(`#${at}`, createdAt, 'no-source-id', `${at} has no id`, warnings);
  if (nonEmpty(raw.serviceAccountClientId) !== undefined) {
    return {
      sourceId,
      ...(createdAt !== undefined ? { createdAt } : {}),
      warnings,
      notImported: {
        outcome: 'skipped',
        code: 'service-account',
        reason: `service account of client ${raw.serviceAccountClientId}: no person signs in with it`,
        needsAction: false,
      },
    };
  }

  const email = emailOf(raw.email);
  if (nonEmpty(raw.email) !== undefined && email === undefined)
    warnings.push({ code: 'bad-email', text: `email ${JSON.stringify(String(raw.email).slice(0, 80))} is not an email address: not imported` });
  const verified = raw.emailVerified === true;
  const credentials = Array.isArray(raw.credentials) ? raw.credentials.filter(isObject) : [];
  // Keycloak lists credentials by priority: the first password is the one it checks.
  const password = credentials.find((c) => c.type === 'password');
  const factors = keycloakFactors(credentials);

  const methods: BulkLoginMethodInput[] = [];
  let unsupported = false;
  if (password !== undefined && email !== undefined) {
    const converted = convertKeycloakCredential(password);
    if ('unsupported' in converted) {
      unsupported = true;
      warnings.push({ code: 'hash-unsupported', text: `the password credential cannot be imported: ${converted.unsupported}` });
    } else {
      methods.push({ recipeId: 'emailpassword', tenantIds: [], isVerified: verified, email, ...converted });
    }
  }
  const identities = Array.isArray(raw.federatedIdentities) ? raw.federatedIdentities.filter(isObject) : [];
  let droppedSaml = false;
  for (const identity of identities) {
    const provider = nonEmpty(identity.identityProvider);
    const userId = nonEmpty(identity.userId);
    if (provider === undefined || userId === undefined) {
      warnings.push({ code: 'identity-unreadable', text: 'a federated identity without identityProvider or userId: not imported' });
      continue;
    }
    if (email === undefined) {
      warnings.push({
        code: 'identity-without-email',
        text: `${provider} identity ${userId}: the user has no email, which the login method needs: not imported`,
      });
      continue;
    }
    // SPEC §22: an alias of an enterprise identity provider (or one the export does not describe) the mapping names → its tenant's provider.
    const kind = ctx.identityProviders?.get(provider)?.providerId;
    const entry = kind === undefined || ENTERPRISE_PROVIDER_IDS.has(kind) ? opts.connections?.get(provider) : undefined;
    if (entry !== undefined) methods.push(enterpriseMethod(entry, userId, email, verified));
    else if (kind === 'saml') {
      droppedSaml = true;
      warnings.push(droppedConnection(`the ${provider} identity ${userId}`));
    } else
      methods.push({ recipeId: 'thirdparty', tenantIds: [], isVerified: verified, email, thirdPartyId: thirdPartyIdOf(provider), thirdPartyUserId: userId });
  }
  // SPEC §21: passkeys (and WebAuthn second factors) as one webauthn login method, linked to the others.
  const webauthn = webauthnMethodOf(sourceId, keycloakPasskeys(credentials, ctx.passkeyRpIds ?? {}), opts.passkeys, email, verified, warnings);
  if (webauthn !== undefined) methods.push(webauthn);
  let emptyReason = {
    code: 'no-email',
    reason: password !== undefined ? 'a password but no email, which the login method needs' : 'no email, which every login method needs',
    needsAction: false,
  };
  if (droppedSaml && methods.length === 0 && password === undefined) {
    emptyReason = {
      code: 'enterprise-connection',
      reason: 'only SAML sign-in through a connection --connections does not map: not migrated',
      needsAction: false,
    };
  } else if (email !== undefined && methods.length === 0) {
    const why = unsupported
      ? 'a password hash the service cannot check'
      : nonEmpty(raw.federationLink) !== undefined
        ? 'no password credential in the export (a user of a user federation such as LDAP keeps it there)'
        : 'no password credential';
    const noHash = noHashLoginMethod(email, verified, opts, why);
    if (noHash.warning) warnings.push(noHash.warning);
    if (noHash.method) methods.push(noHash.method);
    if (noHash.skip) emptyReason = noHash.skip;
  }

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata: metadataOf(raw, warnings),
    roles: rolesOf(raw, ctx.realm),
    warnings,
    disabled: raw.enabled === false ? 'disabled' : undefined,
    opts,
    emptyReason,
    factors,
  });
}

export interface KeycloakSourceOptions {
  readonly opts: MapOptions;
}

/**
 * The users of a Keycloak export: one file, or every `*.json` of the export folder in name order
 * (the realm file and each users file), each streamed. Each file must be a Keycloak export file
 * (an object with a top-level `realm`); the export must hold a `users` array somewhere (a realm
 * file exported with `--users skip`, alone, has none: a usage error, not zero users).
 */
export function keycloakSource(path: string, options: KeycloakSourceOptions): Source {
  const filesOf = () => (statSync(path).isDirectory() ? jsonFilesOf(path) : [path]);
  let identityProviders: Promise<Map<string, KeycloakIdentityProvider>> | undefined;
  const providersOf = () => (identityProviders ??= readIdentityProviders(filesOf()));
  return {
    createsRoles: true,
    async providers(): Promise<ProviderPlan[]> {
      const connections = options.opts.connections;
      return connections ? keycloakProviderPlans(await providersOf(), connections) : [];
    },
    async *users(): AsyncGenerator<MappedUser> {
      const files = filesOf();
      if (files.length === 0) throw new UsageError(`${path} has no *.json file: give the folder kc.sh export --dir wrote, or one of its files.`);
      const idps = await providersOf();
      const plan = options.opts.passkeys;
      plan?.startRead();
      let rpIds: ReturnType<typeof keycloakRpIdsOf> | undefined;
      let withUsers = 0;
      for (const file of files) {
        let realm: string | undefined;
        const shape = {
          required: ['realm'],
          usersOptional: true,
          onScalar: (key: string, value: unknown) => {
            if (key === 'realm' && typeof value === 'string') realm = value;
          },
          onEnd: (hadUsers: boolean) => {
            if (hadUsers) withUsers++;
          },
        };
        try {
          for await (const { key, value } of usersArray(file, shape)) {
            const at = `users[${key}] of ${basename(file)}`;
            if (plan !== undefined && isObject(value) && hasPasskey(value)) {
              // The first passkey: the realm's RP ids, and whether the service imports passkeys of them (before any write).
              rpIds ??= keycloakRpIdsOf(await readKeycloakRpIds(files), plan.rpIdOption);
              await plan.ensure(
                Object.values(rpIds.byType).filter((r): r is string => r !== undefined),
                rpIds.head,
              );
            }
            yield isObject(value)
              ? mapKeycloakUser(value, { opts: options.opts, realm, identityProviders: idps, ...(rpIds ? { passkeyRpIds: rpIds.byType } : {}) }, at)
              : failedUser(`#${at}`, undefined, 'not-a-user', `${at} is not an object`);
          }
        } catch (err) {
          const message = (err as Error).message;
          // stream-json's own errors (a document cut short or broken) never quote the input.
          throw new UsageError(`${file} is not ${WHAT}: ${/^Parser /.test(message) ? `it is not readable JSON (${message})` : message}.`);
        }
      }
      if (withUsers === 0) {
        throw new UsageError(
          `${path} has no users: the realm was exported without them (export with kc.sh export --users realm_file or different_files, and give the folder or the users file).`,
        );
      }
    },
    notes: () => options.opts.passkeys?.notes() ?? {},
  };
}

/** Whether a user holds a WebAuthn credential (SPEC §21). */
const hasPasskey = (raw: Obj): boolean =>
  Array.isArray(raw.credentials) && raw.credentials.some((c) => isObject(c) && typeof c.type === 'string' && PASSKEY_TYPES.has(c.type));
