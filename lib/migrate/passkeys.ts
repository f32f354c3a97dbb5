import { decodeCborWhole } from '../webauthn/cbor';
import { COSE_ALGORITHMS, coseKeyOf } from '../webauthn/cose-key';
import { AAGUID_PATTERN, MAX_CREDENTIAL_ID_BYTES, MAX_SIGNATURE_COUNTER, MIN_CREDENTIAL_ID_BYTES } from '../webauthn/limits';
import { UsageError } from './errors';
import { SeenTwice } from './seen-twice';
import type { BulkLoginMethodInput, BulkPasskeyInput, ExportedPasskey, PasskeyPlanLike, ReadPasskey, RpIdAnswer, Warning } from './model';
import type { ServiceClient } from './service';

/**
 * Passkeys carried over by the migration command (SPEC §21): the checks of passkey import done
 * before sending (so one bad passkey costs a warning, not its user's row), and the RP id rule. A
 * passkey only works under the RP id it was made for, so the service must import passkeys of the
 * export's RP id (`WEBAUTHN_RP_ID`): the command asks it with a staging request the service
 * refuses whatever it says (its validation answers name the RP ids it does not take, and nothing
 * is staged), and stops with exit 2 when the export's main RP id is not one of them. Other RP ids
 * the service does not take (Keycloak's 2FA policy) are passkeys not carried, each a
 * `passkey-not-migrated` warning. Never a key or a counter in a text: ids only.
 *
 * The service is asked only when a passkey is to be sent (SPEC §17c: an unchanged re-run sends no
 * request): the sources name the RP ids while they read (`ensure`, which only notes them), the
 * run's first read maps with the answer the ledger remembers from the run that last asked (none:
 * every RP id taken), and `ask` sends the probe, before any write, when a user that costs
 * requests carries a passkey; the second read maps with its answer.
 */

/** The probe's poison: a counter no passkey has, so the probe user is refused whatever else the service says. */
const PROBE_POISON = 'counter should be >= 0 for a webauthn recipe.';

/** A domain name: what `WEBAUTHN_RP_ID` holds. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** `--webauthn-rp-id`, checked (a usage error: exit 2) and lower-cased. */
export function rpIdOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const rpId = value.trim().toLowerCase();
  if (!DOMAIN.test(rpId))
    throw new UsageError(`--webauthn-rp-id ${JSON.stringify(value.slice(0, 80))} is not a domain name (the RP ID, e.g. login.example.com).`);
  return rpId;
}

/** The warning of a passkey not carried over. */
export function passkeyNotMigrated(credentialId: string, why: string): Warning {
  return {
    code: 'passkey-not-migrated',
    text: `passkey ${credentialId}: ${why}: not migrated (the user signs in with their other login methods and enrols a new passkey)`,
  };
}

/** The warning of a source whose export shows passkeys but holds no public key (SPEC §21: Clerk, Cognito, Auth0, Firebase). */
export function passkeysNotExported(source: string, what: string): Warning {
  return { code: 'passkey-not-migrated', text: `${what}: ${source} exports no passkey public key: users re-enrol` };
}

/**
 * The passkey kinds a record of another source lists (SPEC §21: its export shows passkeys but no
 * public key): each string of `values` (or of each object's `field`) that is one of `kinds`, once.
 */
export function passkeyKindsShown(values: unknown, kinds: ReadonlySet<string>, field?: string): string[] {
  if (!Array.isArray(values)) return [];
  const names = values.map((v) => (field !== undefined && v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[field] : v));
  return [...new Set(names.filter((n): n is string => typeof n === 'string' && kinds.has(n)))];
}

/** A webauthn login method of the user's email holding the carried passkeys. */
export function webauthnMethod(email: string, isVerified: boolean, credentials: BulkPasskeyInput[]): BulkLoginMethodInput {
  return { recipeId: 'webauthn', tenantIds: [], isVerified, email, credentials };
}

/**
 * The user's webauthn login method from its passkeys as read (SPEC §21): each passkey that
 * cannot be carried a `passkey-not-migrated` warning; `undefined` when none is carried. Its email
 * is the user's (none: nothing is carried).
 */
export function webauthnMethodOf(
  owner: string,
  passkeys: readonly ReadPasskey[],
  plan: PasskeyPlanLike | undefined,
  email: string | undefined,
  verified: boolean,
  warnings: Warning[],
): BulkLoginMethodInput | undefined {
  const carried: BulkPasskeyInput[] = [];
  for (const read of passkeys) {
    if ('why' in read) {
      warnings.push(passkeyNotMigrated(read.id, read.why));
      continue;
    }
    const id = read.credentialId.toString('base64url');
    if (carried.some((c) => c.credentialId === id)) continue;
    const why =
      plan === undefined ? 'this run carries no passkeys' : email === undefined ? 'the user has no email, which a webauthn login method needs' : undefined;
    const taken = why === undefined ? plan!.take(read, owner) : { why };
    if ('why' in taken) warnings.push(passkeyNotMigrated(id, taken.why));
    else carried.push(taken);
  }
  return carried.length > 0 && email !== undefined ? webauthnMethod(email, verified, carried) : undefined;
}

/** What is wrong with a COSE key, in the words of the report (never the key). */
function keyProblem(bytes: Buffer): string | undefined {
  let decoded: unknown;
  try {
    decoded = decodeCborWhole(bytes);
  } catch {
    return 'its COSE key is not CBOR';
  }
  const key = coseKeyOf(decoded);
  if (typeof key !== 'string') return undefined;
  const alg = decoded instanceof Map ? decoded.get(3) : undefined;
  if (typeof alg === 'number' && !(COSE_ALGORITHMS as readonly number[]).includes(alg))
    return `its COSE key names alg ${alg}, which the service does not verify (-7, -8 or -257)`;
  return `its COSE key does not decode (${key})`;
}

/**
 * The export's passkeys against SPEC §21's rules and the service's RP ids. One per command run,
 * shared by the mapping (`take`) and the report's head (`notes`).
 */
export class PasskeyPlan implements PasskeyPlanLike {
  private service?: ServiceClient;
  /** The RP id the export's passkeys need: the report's `rpId`. */
  private head?: string;
  /** Every RP id the sources named (`ensure`): what `ask` asks. */
  private readonly wanted = new Set<string>();
  /** Per RP id: whether the service imports its passkeys (asked, or remembered). */
  private readonly accepted = new Map<string, boolean>();
  /** The service's `WEBAUTHN_RP_ID` as its answer quoted it (`[]`: not set). */
  private serviceRpIds?: string[];
  /** Whether `accepted` is this run's answer (else the ledger's, or none). */
  private asked = false;
  /**
   * A credential id under a second user is not carried (the service refuses a repeat in one
   * request): the first owner keeps it. Memory stays small however many passkeys (SPEC §17c): the
   * first read of the export (SPEC §17: it is read twice) keeps a 48-bit hash of each credential
   * id, on disk as the collision index does (`./seen-twice.ts`); from the second read on, only the
   * ids whose hash was seen twice keep their owner (source id) here, checked exactly.
   */
  private readonly seen = new SeenTwice();
  private reads = 0;
  private readonly owners = new Map<string, string>();
  /** Passkeys carried and not carried in the current read of the export (the report's counts). */
  private carried = 0;
  private notCarried = 0;

  constructor(readonly rpIdOption?: string) {}

  /** A source starts a read of its export: the first gathers the credential ids seen twice, the next ones check them. */
  startRead(): void {
    this.reads++;
    this.owners.clear();
    this.carried = 0;
    this.notCarried = 0;
  }

  /** The service to ask (none: `--offline`, or `verify`, which carries every passkey that passes the other checks). */
  useService(service: { readonly url: string } | undefined): void {
    this.service = service as ServiceClient | undefined;
  }

  /** Notes the RP ids a source's passkeys need (`head`: the export's main one); nothing is asked here. */
  async ensure(rpIds: readonly string[], head?: string): Promise<void> {
    if (head !== undefined) this.head ??= head;
    for (const rpId of [...(this.head !== undefined ? [this.head] : []), ...rpIds]) this.wanted.add(rpId);
  }

  /** The answer the ledger remembers (the run that last asked): the first read maps with it. */
  remember(answer: RpIdAnswer): void {
    if (this.asked) return;
    for (const [rpId, ok] of Object.entries(answer.accepted)) this.accepted.set(rpId, ok);
    this.serviceRpIds = [...answer.serviceRpIds];
  }

  /** This run's answer, for the ledger (undefined: the service was not asked). */
  answer(): RpIdAnswer | undefined {
    return this.asked ? { accepted: Object.fromEntries(this.accepted), serviceRpIds: this.serviceRpIds ?? [] } : undefined;
  }

  /**
   * Asks the service about every RP id the sources named, once (no service: nothing). Refuses
   * (exit 2) when it does not take the head. The export is then read again: what the first read
   * carried is forgotten, so the second read decides each passkey with this answer.
   */
  async ask(): Promise<void> {
    if (this.asked || this.service === undefined || this.wanted.size === 0) return;
    const ask = [...this.wanted];
    const answer = await probe(this.service, ask);
    this.asked = true;
    this.serviceRpIds = answer.serviceRpIds;
    for (const rpId of ask) this.accepted.set(rpId, !answer.refused.has(rpId));
    if (this.head !== undefined && this.accepted.get(this.head) === false) {
      const has = answer.serviceRpIds.length > 0 ? `its WEBAUTHN_RP_ID is ${answer.serviceRpIds.join(',')}` : 'it has no WEBAUTHN_RP_ID';
      throw new UsageError(
        `the export's passkeys were made for RP ID ${this.head}, and the service at ${this.service.url} does not import passkeys of it (${has}): ` +
          `add ${this.head} to WEBAUTHN_RP_ID on the service and serve the app's WebAuthn under relyingPartyId ${this.head}, then run the command again. Nothing was written.`,
      );
    }
  }

  take(passkey: ExportedPasskey, owner: string): BulkPasskeyInput | { readonly why: string } {
    const credentialId = passkey.credentialId.toString('base64url');
    // The first read (or a mapper that reads once: no read started) gathers; the next ones look.
    const first = this.reads <= 1;
    if (first) this.seen.add(credentialId);
    const why = this.problem(passkey, credentialId, owner, first);
    if (why !== undefined) {
      this.notCarried++;
      return { why };
    }
    if (!first && this.seen.candidate(credentialId)) this.owners.set(credentialId, owner);
    this.carried++;
    const aaguid = passkey.aaguid?.toLowerCase();
    return {
      credentialId,
      publicKey: passkey.publicKey.toString('base64url'),
      rpId: passkey.rpId!.toLowerCase(),
      counter: passkey.counter,
      ...(passkey.transports.length > 0 ? { transports: [...passkey.transports] } : {}),
      ...(aaguid !== undefined && AAGUID_PATTERN.test(aaguid) ? { aaguid } : {}),
      ...(passkey.createdAt !== undefined ? { createdAt: passkey.createdAt } : {}),
    };
  }

  private problem(p: ExportedPasskey, id: string, owner: string, first: boolean): string | undefined {
    const bytes = p.credentialId.length;
    if (bytes < MIN_CREDENTIAL_ID_BYTES || bytes > MAX_CREDENTIAL_ID_BYTES)
      return `its credential id has ${bytes} bytes, not ${MIN_CREDENTIAL_ID_BYTES} to ${MAX_CREDENTIAL_ID_BYTES}`;
    const holder = first ? undefined : this.owners.get(id);
    if (holder !== undefined && holder !== owner) return `its credential id is also a passkey of ${holder}, which keeps it (a credential id is one passkey)`;
    const key = keyProblem(p.publicKey);
    if (key !== undefined) return key;
    if (!Number.isSafeInteger(p.counter) || p.counter < 0 || p.counter > MAX_SIGNATURE_COUNTER) return 'its counter is not a 32-bit count';
    if (p.rpId === undefined) return 'the export names no RP ID for it: pass --webauthn-rp-id <the RP ID it was made for>';
    const rpId = p.rpId.toLowerCase();
    if (this.accepted.get(rpId) === false) {
      const list = this.serviceRpIds && this.serviceRpIds.length > 0 ? ` (WEBAUTHN_RP_ID=${this.serviceRpIds.join(',')})` : '';
      return `RP ID ${rpId} is not this deployment's${list}`;
    }
    return undefined;
  }

  /** The report's head: the RP id the passkeys need, what the service said, and the counts. */
  notes(): Record<string, unknown> {
    if (this.head === undefined && this.carried + this.notCarried === 0) return {};
    return {
      passkeys: {
        ...(this.head !== undefined ? { rpId: this.head } : {}),
        ...(this.serviceRpIds !== undefined ? { serviceRpIds: this.serviceRpIds } : {}),
        ...(this.asked ? {} : { serviceAsked: false }),
        carried: this.carried,
        notCarried: this.notCarried,
      },
    };
  }
}

/**
 * Which of `rpIds` the service refuses passkeys of, and its `WEBAUTHN_RP_ID`: one staging request
 * of one user whose webauthn method holds a passkey per RP id, each with a counter of -1, so the
 * service refuses the user (and stages nothing) whatever it thinks of the RP ids, and its answer
 * names each RP id it does not take (SPEC §21's texts).
 */
async function probe(service: ServiceClient, rpIds: readonly string[]): Promise<{ refused: Set<string>; serviceRpIds: string[] }> {
  const credentials = rpIds.map((rpId, i) => ({
    credentialId: Buffer.alloc(MIN_CREDENTIAL_ID_BYTES, i + 1).toString('base64url'),
    publicKey: 'AA',
    rpId,
    counter: -1,
  }));
  const user = { loginMethods: [{ recipeId: 'webauthn', email: 'rp-id-probe@example.invalid', credentials }] };
  const res = await service.request('POST', '/bulk-import/users', { users: [user] });
  const errors: unknown = res.json?.users?.[0]?.errors;
  const texts = Array.isArray(errors) ? errors.filter((e): e is string => typeof e === 'string') : [];
  if (res.status !== 400 || !texts.includes(PROBE_POISON)) {
    throw new UsageError(
      `the service at ${service.url} does not import passkeys (POST /bulk-import/users answered ${res.status} to a webauthn login method): update it, or migrate without the passkeys.`,
    );
  }
  if (texts.some((t) => t.startsWith('Passkey import needs WEBAUTHN_RP_ID'))) return { refused: new Set(rpIds), serviceRpIds: [] };
  const refused = new Set(rpIds.filter((rpId) => texts.some((t) => t.startsWith(`rpId ${rpId} of credential `))));
  const listed = texts.map((t) => /\(WEBAUTHN_RP_ID=([^)]*)\)/.exec(t)?.[1]).find((l) => l !== undefined);
  return { refused, serviceRpIds: listed !== undefined ? listed.split(',') : rpIds.filter((r) => !refused.has(r)) };
}
