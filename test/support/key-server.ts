import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import type { TestApi } from './api';
import { BCRYPT } from './linking';

/**
 * An old provider for the session exchange (SPEC §19), on loopback: signing keys, the JWKS they are
 * published in, and tokens signed with them, for tests and the bench.
 */

/** A signing key and its public JWK (with `kid`). */
export interface Signer {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly jwk: Record<string, unknown>;
}

export function rsaSigner(kid: string): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg: 'RS256', privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' } };
}

/** A P-256 key as Supabase's asymmetric signing keys are (its JWKS gives `alg: ES256`, `use: sig`). */
export function ecSigner(kid: string): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg: 'ES256', privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'ES256' } };
}

/** A JWT of `claims`, signed by `signer` or with an HS256 secret; `header` adds to (or, with `undefined`, removes from) the header. */
export function signToken(
  signer: Signer | { alg: 'HS256'; secret: string | Buffer; kid?: string },
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: signer.alg, ...(signer.kid ? { kid: signer.kid } : {}), ...header });
  return 'secret' in signer ? jwt.sign(Buffer.from(signer.secret)) : jwt.sign(signer.privateKey);
}

/** A loopback HTTP server answering each path with the JSON set for it (503 when unset), counting every request. */
export interface KeyServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** Serves `body` (JSON) at `path`. */
  serve(path: string, body: unknown): void;
  /** How many requests `path` got; without a path, all of them. */
  fetches(path?: string): number;
  stop(): Promise<void>;
}

export async function startKeyServer(): Promise<KeyServer> {
  const served = new Map<string, string>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const body = served.get(path);
    if (body === undefined) res.writeHead(503).end('down');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (path, body) => void served.set(path, JSON.stringify(body)),
    fetches: (path) => (path === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(path) ?? 0)),
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** An imported email-password user (§12) mapped to `externalUserId`, as the migration leaves one; answers its SuperTokens id. */
export async function importMappedUser(api: TestApi, externalUserId: string, email = `${randomUUID()}@example.test`): Promise<string> {
  const imported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT.hash });
  if (imported.json?.status !== 'OK') throw new Error(`import failed: ${imported.status} ${imported.text}`);
  const mapped = await api.post('/recipe/userid/map', { superTokensUserId: imported.json.user.id, externalUserId });
  if (mapped.json?.status !== 'OK') throw new Error(`mapping failed: ${mapped.status} ${mapped.text}`);
  return imported.json.user.id;
}
