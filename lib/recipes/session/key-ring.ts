import { generateKeyPair as generateRsaKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { exportJWK, importPKCS8, importSPKI, type CryptoKey, type JWK } from 'jose';
import type { SessionConfig } from '../../config/config';
import type { SigningKeyRecord, StoredSigningKeys } from '../../storage/model';
import type { SessionStore } from '../../storage/ports/sessions';
import type { Clock, RandomSource } from '../deps';

const generateKeyPair = promisify(generateRsaKeyPair);

/** RSA 2048, e = 65537: the core's keys (`Utils.generateNewPubPriKey`); jose refuses anything shorter. */
const RSA_BITS = 2048;

/** The core publishes a new key 60 s before it signs with it (`SIGNING_KEY_VALIDITY_OVERLAP` aside). */
const CORE_PUBLISH_LEAD_MS = 60_000;

/**
 * How soon after a reload for a token with an unknown `kid` another one may happen: a stream of
 * forged kids then costs one read per half second per container, not one per token (the SDK's
 * own JWKS cool-down is the same 500 ms).
 */
export const UNKNOWN_KID_COOLDOWN_MS = 500;

/** The rotation's times (SPEC §18, "Signing keys"). */
export interface RotationTimes {
  /** I: `ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL`. */
  readonly intervalMs: number;
  /** V: `ACCESS_TOKEN_VALIDITY`. */
  readonly accessTokenValidityMs: number;
}

export const rotationTimesOf = (c: SessionConfig): RotationTimes => ({ intervalMs: c.keyUpdateIntervalMs, accessTokenValidityMs: c.accessTokenValidityMs });

/** P: how long a new key is published before it signs: the core's 60 s, scaled for tiny test intervals. */
export const publishLeadMs = (t: RotationTimes): number => Math.min(CORE_PUBLISH_LEAD_MS, t.intervalMs / 2);

/** How long a dynamic key verifies (and is published) after its creation: I + 2V, as the core. */
export const keyLifetimeMs = (t: RotationTimes): number => t.intervalMs + 2 * t.accessTokenValidityMs;

type DynamicKey = StoredSigningKeys['dynamic'][number];

/** The dynamic keys still valid at `now`, newest first. */
export function liveDynamicKeys(keys: readonly DynamicKey[], now: number, t: RotationTimes): DynamicKey[] {
  return keys.filter((k) => k.createdAt + keyLifetimeMs(t) > now).sort((a, b) => b.createdAt - a.createdAt || b.generation - a.generation);
}

/** When the next dynamic key is due: P before the newest reaches the interval (at once when there is none). */
export function nextKeyDueAt(live: readonly DynamicKey[], t: RotationTimes): number {
  return live.length === 0 ? Number.NEGATIVE_INFINITY : live[0].createdAt + t.intervalMs - publishLeadMs(t);
}

/**
 * The dynamic key that signs at `now`: the newest once it has been published for P; until then the
 * previous one while it is younger than the interval; the very first key at once.
 */
export function signingKeyOf(live: readonly DynamicKey[], now: number, t: RotationTimes): DynamicKey | undefined {
  const [newest, previous] = live;
  if (!newest) return undefined;
  if (now - newest.createdAt < publishLeadMs(t) && previous && now - previous.createdAt < t.intervalMs) return previous;
  return newest;
}

/** A key ready for use: its imported private key (signing) and public key (verification, JWKS). */
interface ReadyKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: JWK;
}

interface RingState {
  readonly dynamic: readonly DynamicKey[];
  readonly staticKey: SigningKeyRecord;
  readonly refreshTokenKey: Buffer;
  readonly dueAt: number;
}

/** A key of the JWKS (`GET /.well-known/jwks.json`). */
export interface PublicJwk {
  readonly kty: 'RSA';
  readonly kid: string;
  readonly n: string;
  readonly e: string;
  readonly alg: 'RS256';
  readonly use: 'sig';
}

/**
 * The signing keys and the refresh-token key of one function container: read from the table on
 * first need and kept until the next key is due, so a warm function signs and verifies without a
 * read. Missing keys are made here, by whichever function needs them first (a conditional write
 * per slot: of functions making one key at once exactly one wins, and all use the winner's).
 * Private keys stay in memory and in the table; nothing here logs.
 */
export class KeyRing {
  private state: RingState | undefined;
  private loading: Promise<RingState> | undefined;
  private readonly ready = new Map<string, Promise<ReadyKey>>();
  private lastUnknownKidReload = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: SessionStore,
    private readonly times: RotationTimes,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  /** The key that signs at `now`: the static key, or the current dynamic one. */
  async signer(useStaticKey: boolean): Promise<ReadyKey> {
    const now = this.clock.now();
    const state = await this.current(now);
    const key = useStaticKey ? state.staticKey : signingKeyOf(liveDynamicKeys(state.dynamic, now, this.times), now, this.times);
    // `current` made a live dynamic key if there was none.
    if (!key) throw new Error('No dynamic signing key after making one');
    return this.readyKey(key);
  }

  /** The public key of `kid` while it verifies; a kid this container does not know re-reads the keys once per cool-down. */
  async verifier(kid: string): Promise<CryptoKey | undefined> {
    const now = this.clock.now();
    let state = await this.current(now);
    let key = this.findLive(state, kid, now);
    if (!key && now - this.lastUnknownKidReload >= UNKNOWN_KID_COOLDOWN_MS) {
      this.lastUnknownKidReload = now;
      state = await this.reload(now);
      key = this.findLive(state, kid, now);
    }
    return key ? (await this.readyKey(key)).publicKey : undefined;
  }

  /** The JWKS: live dynamic keys newest first, then the static key; and the seconds until the next key is due (≥ 1). */
  async jwks(): Promise<{ keys: PublicJwk[]; maxAgeSeconds: number }> {
    const now = this.clock.now();
    const state = await this.current(now);
    const live = [...liveDynamicKeys(state.dynamic, now, this.times), state.staticKey];
    const keys = await Promise.all(
      live.map(async (k) => {
        const { jwk } = await this.readyKey(k);
        return { kty: 'RSA' as const, kid: k.kid, n: String(jwk.n), e: String(jwk.e), alg: 'RS256' as const, use: 'sig' as const };
      }),
    );
    return { keys, maxAgeSeconds: Math.max(1, Math.floor((state.dueAt - now) / 1000)) };
  }

  /** The AES-256-GCM key refresh tokens are sealed with. */
  async refreshTokenKey(): Promise<Buffer> {
    return (await this.current(this.clock.now())).refreshTokenKey;
  }

  private findLive(state: RingState, kid: string, now: number): SigningKeyRecord | undefined {
    if (state.staticKey.kid === kid) return state.staticKey;
    return liveDynamicKeys(state.dynamic, now, this.times).find((k) => k.kid === kid);
  }

  private async current(now: number): Promise<RingState> {
    if (this.state && now < this.state.dueAt) return this.state;
    return this.reload(now);
  }

  /** Reads the keys (one Query), makes what is missing or due, and keeps the result; one load at a time. */
  private reload(now: number): Promise<RingState> {
    this.loading ??= this.load(now).finally(() => {
      this.loading = undefined;
    });
    return this.loading.then((state) => {
      this.state = state;
      return state;
    });
  }

  private async load(now: number): Promise<RingState> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const stored = await this.store.readSigningKeys();
      const live = liveDynamicKeys(stored.dynamic, now, this.times);
      const made = await Promise.all([
        now >= nextKeyDueAt(live, this.times) ? this.makeDynamicKey(stored, now) : undefined,
        stored.staticKey ? undefined : this.makeStaticKey(now),
        stored.refreshTokenKey ? undefined : this.makeRefreshTokenKey(),
      ]);
      // Another function made one of them first: read the winner's.
      if (made.some((m) => m === false)) continue;
      const [dynamicKey, staticKey, refreshKey] = made;
      const dynamic = dynamicKey ? [...stored.dynamic, dynamicKey] : stored.dynamic;
      const finalStatic = staticKey || stored.staticKey;
      const finalRefresh = refreshKey || stored.refreshTokenKey;
      if (!finalStatic || !finalRefresh) continue;
      return {
        dynamic,
        staticKey: finalStatic,
        refreshTokenKey: Buffer.from(finalRefresh, 'base64'),
        dueAt: nextKeyDueAt(liveDynamicKeys(dynamic, now, this.times), this.times),
      };
    }
    throw new Error('Signing keys kept changing while they were read');
  }

  private async makeDynamicKey(stored: StoredSigningKeys, now: number): Promise<DynamicKey | false> {
    const generation = stored.dynamic.reduce((max, k) => Math.max(max, k.generation), -1) + 1;
    const key = { ...(await newRsaKey()), kid: `d-${now}`, createdAt: now, generation };
    return (await this.store.addDynamicKey(generation, key, now + keyLifetimeMs(this.times))) && key;
  }

  private async makeStaticKey(now: number): Promise<SigningKeyRecord | false> {
    const key = { ...(await newRsaKey()), kid: `s-${this.random.uuid()}`, createdAt: now };
    return (await this.store.addStaticKey(key)) && key;
  }

  private async makeRefreshTokenKey(): Promise<string | false> {
    const key = this.random.bytes(32).toString('base64');
    return (await this.store.addRefreshTokenKey(key)) && key;
  }

  private readyKey(key: SigningKeyRecord): Promise<ReadyKey> {
    let ready = this.ready.get(key.kid);
    if (!ready) {
      ready = (async () => {
        const [privateKey, publicKey] = await Promise.all([importPKCS8(key.privateKey, 'RS256'), importSPKI(key.publicKey, 'RS256', { extractable: true })]);
        return { kid: key.kid, privateKey, publicKey, jwk: await exportJWK(publicKey) };
      })();
      this.ready.set(key.kid, ready);
    }
    return ready;
  }
}

async function newRsaKey(): Promise<{ privateKey: string; publicKey: string }> {
  const { privateKey, publicKey } = await generateKeyPair('rsa', {
    modulusLength: RSA_BITS,
    publicExponent: 0x10001,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKey, publicKey };
}

const rings = new WeakMap<SessionStore, KeyRing>();

/** The key ring of this container (one per store, so per table). */
export function keyRingOf(deps: { sessions: SessionStore; config: { sessions: SessionConfig }; clock: Clock; random: RandomSource }): KeyRing {
  let ring = rings.get(deps.sessions);
  if (!ring) {
    ring = new KeyRing(deps.sessions, rotationTimesOf(deps.config.sessions), deps.clock, deps.random);
    rings.set(deps.sessions, ring);
  }
  return ring;
}
