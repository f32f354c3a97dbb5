import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { streamValues } from 'stream-json/streamers/StreamValues';
import { DiskJoin } from '../disk-join';
import { UsageError } from '../errors';
import { assembleUser, emailOf, noHashLoginMethod, timestampOf } from '../mapping';
import type { SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, NotImported, Source, Warning } from '../model';
import { openText, PARSER_OPTIONS } from '../read';
import { deviceUserKey, djangoFactor, isDeviceModel } from './django-otp';

/**
 * Django (SPEC §17b): `manage.py dumpdata auth.user` (with `auth.group` in the same dump, or in a
 * `--groups` file), as Django's serializer writes it: a JSON array of `{"model", "pk", "fields"}`
 * records (`--format jsonl`: one a line; `-o dump.json.gz`: gzipped), streamed, never loaded
 * whole. The dump is read once when the source opens (the groups and the second factors'
 * devices, which come after the users, and every check that makes it exit 2), then once per
 * reading of the users. Devices: `./django-otp.ts`.
 */

type Obj = Record<string, unknown>;

/** One record of a dump, checked to have the serializer's shape. */
export interface DumpRecord {
  readonly model: string;
  readonly pk?: unknown;
  readonly fields: Obj;
}

const USER_MODEL = 'auth.user';
const GROUP_MODEL = 'auth.group';
/** Fields every `auth.user` record carries (Django 1.x to 5.x); one missing means the file is something else. */
const USER_FIELDS = ['username', 'password', 'email', 'is_active', 'date_joined'] as const;

const WHAT = 'a Django dumpdata file (the JSON array, or JSONL, that manage.py dumpdata writes)';

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The first character of a file that is not white space (gunzipped when it is gzipped). */
async function firstCharacter(file: string): Promise<string | undefined> {
  for await (const chunk of openText(file)) {
    const text = String(chunk)
      .replace(/^\uFEFF/, '')
      .trimStart();
    if (text !== '') return text[0];
  }
  return undefined;
}

/**
 * The records of a dump, in file order with their place (`record <n>`, from 1). A document that
 * is not one (broken JSON, a JSON object that is no record, an element without `model` and
 * `fields`) throws the usage error that names the file.
 */
export async function* dumpRecords(file: string): AsyncGenerator<{ at: string; record: DumpRecord }> {
  const first = await firstCharacter(file);
  if (first !== '[' && first !== '{') throw new UsageError(`${file} is not ${WHAT}: ${first === undefined ? 'it is empty' : 'it is not JSON'}.`);
  const items =
    first === '['
      ? chain([openText(file), parser(PARSER_OPTIONS), streamArray()])
      : chain([openText(file), parser({ ...PARSER_OPTIONS, jsonStreaming: true }), streamValues()]);
  let n = 0;
  try {
    for await (const { value } of items as AsyncIterable<{ value: unknown }>) {
      n++;
      if (!isObject(value) || typeof value.model !== 'string' || !isObject(value.fields)) {
        const keys = isObject(value) ? Object.keys(value).slice(0, 5).join(', ') : '';
        const what = isObject(value) ? (keys === '' ? 'an empty object' : `an object with ${keys}`) : Array.isArray(value) ? 'an array' : 'not an object';
        throw new UsageError(
          first === '{' && n === 1
            ? `${file} is not ${WHAT}: it is a JSON object with ${keys || 'no key'}, not a list of {"model", "pk", "fields"} records.`
            : `${file} is not ${WHAT}: record ${n} is ${what}, not a {"model", "pk", "fields"} record.`,
        );
      }
      yield { at: `record ${n}`, record: { model: value.model.toLowerCase(), ...('pk' in value ? { pk: value.pk } : {}), fields: value.fields } };
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file} is not ${WHAT}: its JSON breaks after record ${n} (${(err as Error).message.replace(/\.$/, '')}).`);
  }
}

/** A group reference of a user's `groups`: its pk, or its natural key `["<name>"]` (`--natural-foreign`). */
type GroupRef = { readonly pk: number } | { readonly name: string } | undefined;

function groupRef(v: unknown): GroupRef {
  if (typeof v === 'number' && Number.isInteger(v)) return { pk: v };
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' && v[0] !== '') return { name: v[0] };
  return undefined;
}

/**
 * What the dump holds beside its users, read before them: the groups' names by pk (from the dump
 * and the `--groups` file), and the records of other models (counted, not read). Reading it checks
 * the whole dump: not a dump, no `auth.user` record, a user record without its fields or its pk,
 * a group no file names: exit 2, before anything is written.
 */
export class DumpIndex {
  readonly groups = new Map<number, string>();
  /** Records of other models than auth.user, auth.group and the second factors' devices: their count by model. */
  readonly ignored = new Map<string, number>();
  /**
   * Confirmed devices' second factors, by the user they name (`deviceUserKey`), in dump order: on
   * disk (`../disk-join.ts`: SPEC §17c, bounded memory), since a dump may hold one per user.
   */
  private devices: DiskJoin<SecondFactor> | undefined;
  users = 0;

  static async read(dump: string, groupsFile?: string): Promise<DumpIndex> {
    const index = new DumpIndex();
    if (groupsFile !== undefined) {
      const models = new Set<string>();
      for await (const { record } of dumpRecords(groupsFile)) {
        models.add(record.model);
        if (record.model === GROUP_MODEL) index.addGroup(groupsFile, record);
      }
      if (models.size > 0 && !models.has(GROUP_MODEL))
        throw new UsageError(
          `--groups ${groupsFile} holds no auth.group record (only ${[...models].slice(0, 5).join(', ')}): dump it with manage.py dumpdata auth.group.`,
        );
    }
    const referenced = new Map<number, string>();
    let groupRecords = 0;
    // One pass over the dump: its checks and counts on the way, the devices' factors into the join.
    async function* factors(): AsyncGenerator<{ key: string; item: SecondFactor }> {
      for await (const { at, record } of dumpRecords(dump)) {
        if (record.model === GROUP_MODEL) {
          groupRecords++;
          index.addGroup(dump, record);
        } else if (record.model === USER_MODEL) {
          index.users++;
          const missing = USER_FIELDS.filter((k) => !(k in record.fields));
          if (missing.length > 0) throw new UsageError(`${dump} is not ${WHAT}: ${at} (auth.user) has no ${missing.join(', ')}.`);
          if (typeof record.pk !== 'number' && (typeof record.pk !== 'string' || record.pk === ''))
            throw new UsageError(
              `${dump}: ${at} (auth.user) has no pk, the user's id: dump without --natural-primary (--natural-foreign alone keeps the ids).`,
            );
          const groups = Array.isArray(record.fields.groups) ? record.fields.groups : [];
          for (const g of groups) {
            const ref = groupRef(g);
            if (ref && 'pk' in ref && !referenced.has(ref.pk)) referenced.set(ref.pk, `user ${String(record.pk)}`);
          }
        } else if (isDeviceModel(record.model)) {
          const user = deviceUserKey(record.fields.user);
          const factor = djangoFactor(record.model, record.fields);
          if (user !== undefined && factor !== undefined) yield { key: user, item: factor };
        } else {
          index.ignored.set(record.model, (index.ignored.get(record.model) ?? 0) + 1);
        }
      }
    }
    index.devices = await DiskJoin.build(factors());
    if (index.users === 0 && (groupRecords > 0 || index.ignored.size > 0)) {
      const models = [...(groupRecords > 0 ? [GROUP_MODEL] : []), ...index.ignored.keys()];
      const hint =
        index.ignored.size === 0
          ? ': give the auth.group dump with --groups and the auth.user dump as the file'
          : ': dump the users with manage.py dumpdata auth.user (a custom AUTH_USER_MODEL is not read)';
      throw new UsageError(`${dump} holds no auth.user record (only ${models.slice(0, 5).join(', ')})${hint}.`);
    }
    const unknown = [...referenced.keys()].filter((pk) => !index.groups.has(pk));
    if (unknown.length > 0) {
      const where = groupsFile === undefined ? 'the dump holds no auth.group record of that id' : `neither the dump nor --groups ${groupsFile} names it`;
      throw new UsageError(
        `${dump}: ${referenced.get(unknown[0])} is in group ${unknown[0]}${unknown.length > 1 ? ` (and ${unknown.length - 1} more unknown groups)` : ''} but ${where}: dump auth.group with the users, give --groups, or dump with --natural-foreign.`,
      );
    }
    return index;
  }

  /** A user's second factors: its devices, named by its pk or (`--natural-foreign`) its username. */
  factorsOf(pk: unknown, username: unknown): SecondFactor[] {
    const rows = (key: string) => this.devices?.rows(key).map((r) => r.item) ?? [];
    return [...rows(`pk:${String(pk)}`), ...(typeof username === 'string' ? rows(`username:${username}`) : [])];
  }

  private addGroup(file: string, record: DumpRecord): void {
    const name = record.fields.name;
    if (typeof name !== 'string' || name === '') throw new UsageError(`${file}: an auth.group record has no name.`);
    // With --natural-primary a group has no pk: users then name it (--natural-foreign), not by id.
    if (typeof record.pk !== 'number') return;
    const known = this.groups.get(record.pk);
    if (known !== undefined && known !== name)
      throw new UsageError(`${file}: group ${record.pk} is named both ${JSON.stringify(known)} and ${JSON.stringify(name)}: give one dump of auth.group.`);
    this.groups.set(record.pk, name);
  }
}

/** What a Django `password` becomes (SPEC §17b): a hash to send, none, or one §7b has no form for. */
export type DjangoPassword =
  | { readonly hash: string; readonly hashingAlgorithm: string }
  | { readonly none: 'unusable' | 'empty' }
  /** `hasher`: Django's name for it (`md5`, `unsalted_md5`, a custom tag), when it has one. */
  | { readonly unsupported: true; readonly hasher?: string };

/**
 * Django's hashers (`django.contrib.auth.hashers`) → §7b's families. `strip`: the tag Django puts
 * in front of a standard hash, which §7b's prefix rule asks to remove (`argon2$argon2id$…` →
 * `$argon2id$…`, `bcrypt$$2b$…` → `$2b$…`); the others are §7b forms as they stand.
 */
const HASHERS: Readonly<Record<string, { readonly hashingAlgorithm: string; readonly strip?: boolean }>> = {
  pbkdf2_sha256: { hashingAlgorithm: 'pbkdf2' },
  pbkdf2_sha1: { hashingAlgorithm: 'pbkdf2' },
  bcrypt_sha256: { hashingAlgorithm: 'bcrypt_sha256' },
  scrypt: { hashingAlgorithm: 'scrypt' },
  argon2: { hashingAlgorithm: 'argon2', strip: true },
  bcrypt: { hashingAlgorithm: 'bcrypt', strip: true },
};

/** The hasher's name as Django's `identify_hasher` finds it; never more of the string than its tag. */
function hasherOf(password: string): string | undefined {
  if (!password.includes('$')) return password.length === 32 ? 'unsalted_md5' : undefined;
  if (password.length === 37 && password.startsWith('md5$$')) return 'unsalted_md5';
  if (password.length === 46 && password.startsWith('sha1$$')) return 'unsalted_sha1';
  const tag = password.slice(0, password.indexOf('$'));
  return /^[A-Za-z0-9_]{1,32}$/.test(tag) ? tag : undefined;
}

/** Reads a Django `password` by its hasher's tag; computes nothing and changes only the two tags §7b asks to remove. */
export function djangoPassword(password: unknown): DjangoPassword {
  if (typeof password !== 'string' || password === '') return { none: 'empty' };
  // UNUSABLE_PASSWORD_PREFIX: set_unusable_password() writes `!` and 40 random characters.
  if (password.startsWith('!')) return { none: 'unusable' };
  const hasher = hasherOf(password);
  const known = hasher !== undefined && Object.hasOwn(HASHERS, hasher) ? HASHERS[hasher] : undefined;
  if (hasher === undefined || known === undefined) return { unsupported: true, ...(hasher !== undefined ? { hasher } : {}) };
  if (!known.strip) return { hash: password, hashingAlgorithm: known.hashingAlgorithm };
  // Django writes `argon2` + `$argon2id$…` but `bcrypt$` + `$2b$…`; `bcrypt$2a$…` is seen too.
  const rest = password.slice(hasher.length + 1);
  return { hash: rest.startsWith('$') ? rest : `$${rest}`, hashingAlgorithm: known.hashingAlgorithm };
}

export interface DjangoMapContext {
  readonly opts: MapOptions;
  /** `--assume-verified`: Django keeps no verified flag. */
  readonly assumeVerified: boolean;
  /** Group names by pk (the dump's and `--groups`'s auth.group records). */
  readonly groups: ReadonlyMap<number, string>;
  /** The user's second factors (its django-otp devices in the dump). */
  readonly factorsOf?: (pk: unknown, username: unknown) => readonly SecondFactor[];
}

const NO_HASH_WHY = {
  unusable: 'an unusable password (set_unusable_password: a social or invited user)',
  empty: 'no password',
} as const;

/** Maps one `auth.user` record to a bulk user (or says why it is not imported); `at` names the record. */
export function mapDjangoUser(record: DumpRecord, ctx: DjangoMapContext, at: string): MappedUser {
  const { opts } = ctx;
  const f = record.fields;
  const warnings: Warning[] = [];
  const sourceId = String(record.pk);
  const joined = timestampOf(f.date_joined);
  const createdAt = joined !== undefined && Number.isFinite(joined) ? joined : undefined;
  if (createdAt === undefined)
    warnings.push({
      code: 'bad-created-at',
      text: `${at}: date_joined ${JSON.stringify(String(f.date_joined).slice(0, 40))} is not a time: timeJoined is the import time`,
    });

  const roles: string[] = [];
  for (const g of Array.isArray(f.groups) ? f.groups : []) {
    const ref = groupRef(g);
    const name = ref === undefined ? undefined : 'name' in ref ? ref.name : ctx.groups.get(ref.pk);
    if (name === undefined) {
      warnings.push({
        code: 'group-unknown',
        text: `${at}: groups holds ${JSON.stringify(g).slice(0, 40)}, neither a known group id nor a group name: not assigned`,
      });
    } else if (!roles.includes(name)) roles.push(name);
  }
  const metadata: Obj = {};
  for (const key of ['username', 'first_name', 'last_name']) if (typeof f[key] === 'string' && f[key] !== '') metadata[key] = f[key];

  const email = emailOf(f.email);
  const verified = ctx.assumeVerified;
  const methods: BulkLoginMethodInput[] = [];
  let emptyReason: NotImported =
    typeof f.email === 'string' && f.email.trim() !== ''
      ? { code: 'no-email', reason: `email ${JSON.stringify(f.email.slice(0, 80))} is not an email address: fix it in Django first`, needsAction: true }
      : { code: 'no-email', reason: 'no email: Django users sign in with their username, which the service does not take', needsAction: false };
  if (email !== undefined) {
    const password = djangoPassword(f.password);
    if ('hash' in password) {
      methods.push({
        recipeId: 'emailpassword',
        tenantIds: [],
        isVerified: verified,
        email,
        passwordHash: password.hash,
        hashingAlgorithm: password.hashingAlgorithm,
      });
    } else {
      if ('unsupported' in password)
        warnings.push({
          code: 'hash-unsupported',
          text: `the password hash is ${password.hasher !== undefined ? `Django's ${password.hasher} hasher` : 'of no hasher Django names'}, which the service cannot check: the password is not imported`,
        });
      const why = 'none' in password ? NO_HASH_WHY[password.none] : 'a password hash the service cannot check';
      const noHash = noHashLoginMethod(email, verified, opts, why);
      if (noHash.warning) warnings.push(noHash.warning);
      if (noHash.method) methods.push(noHash.method);
      if (noHash.skip) emptyReason = noHash.skip;
    }
  }

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata,
    roles,
    warnings,
    disabled: f.is_active === false ? 'disabled' : undefined,
    opts,
    emptyReason,
    factors: ctx.factorsOf?.(record.pk, f.username),
  });
}

export interface DjangoSourceOptions {
  readonly opts: MapOptions;
  readonly index: DumpIndex;
  readonly assumeVerified?: boolean;
}

/** The users of a dump read by {@link DumpIndex.read}: records of other models are passed over. */
export function djangoSource(file: string, options: DjangoSourceOptions): Source {
  const { index } = options;
  const ctx: DjangoMapContext = {
    opts: options.opts,
    assumeVerified: options.assumeVerified === true,
    groups: index.groups,
    factorsOf: (pk, username) => index.factorsOf(pk, username),
  };
  return {
    createsRoles: true,
    async *users() {
      for await (const { at, record } of dumpRecords(file)) if (record.model === USER_MODEL) yield mapDjangoUser(record, ctx, at);
    },
    notes: () => (options.index.ignored.size > 0 ? { ignoredRecords: Object.fromEntries(options.index.ignored) } : {}),
  };
}
