import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A tiny OpenID Connect provider on the loopback interface, standing in for Google, Okta or any
 * OIDC provider, so that the example app's third-party sign-in runs with no network: discovery,
 * JWKS, an authorisation endpoint that "signs in" whoever it is told to, and a token endpoint
 * handing out an RS256 id token. Nothing here is a real identity provider (no passwords, no
 * consent): whoever opens `/authorize?login_hint=<email>` is that user, with a verified email.
 */
export interface OidcStandIn {
  /** `http://127.0.0.1:<port>`: the `iss` of its id tokens. */
  readonly issuer: string;
  /** What the SDK's provider config takes as `oidcDiscoveryEndpoint`. */
  readonly discoveryEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The `sub` the stand-in gives the user with this email (stable, derived from the email). */
  subjectOf(email: string): string;
  close(): Promise<void>;
}

export interface OidcStandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  clientId?: string;
  clientSecret?: string;
}

/** An authorisation code waiting for the token endpoint: single use, 60 s. */
interface PendingCode {
  email: string;
  redirectUri: string;
  codeChallenge?: string;
  expiresAt: number;
}

const CODE_LIFETIME_MS = 60_000;
const ID_TOKEN_LIFETIME_S = 600;

/** Starts the stand-in; `close()` stops it. */
export async function startOidcStandIn(options: OidcStandInOptions = {}): Promise<OidcStandIn> {
  const clientId = options.clientId ?? 'example-app';
  const clientSecret = options.clientSecret ?? 'example-app-secret';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = `stand-in-${randomBytes(4).toString('hex')}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  let issuer = '';

  const subjectOf = (email: string) => `user-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 20)}`;

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { error: 'server_error' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['openid', 'email'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks') return send(res, 200, { keys: [jwk] });
    if (req.method === 'GET' && url.pathname === '/authorize') return authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/token') return token(await readForm(req), res);
    return send(res, 404, { error: 'not_found' });
  }

  /** The provider's sign-in page: with `login_hint` the user is signed in at once, else a one-field form asks who. */
  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== clientId || !redirectUri || q.get('response_type') !== 'code') {
      return send(res, 400, { error: 'invalid_request' });
    }
    const email = q.get('login_hint')?.trim().toLowerCase();
    if (!email) {
      const hidden = [...q.entries()].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>OIDC stand-in</title><form method="get">${hidden}<label>Sign in as (email) <input name="login_hint" type="email" required></label> <button>Sign in</button></form>`,
      );
      return;
    }
    const code = randomBytes(24).toString('base64url');
    const challenge = q.get('code_challenge') ?? undefined;
    if (challenge !== undefined && q.get('code_challenge_method') !== 'S256') return send(res, 400, { error: 'invalid_request' });
    const now = Date.now();
    for (const [unused, pending] of codes) if (pending.expiresAt < now) codes.delete(unused);
    codes.set(code, { email, redirectUri, codeChallenge: challenge, expiresAt: now + CODE_LIFETIME_MS });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  /** The token endpoint: the client's secret, a live code for the same redirect URI, and its PKCE verifier when one was challenged. */
  async function token(form: URLSearchParams, res: ServerResponse): Promise<void> {
    if (form.get('client_id') !== clientId || !sameSecret(form.get('client_secret') ?? '', clientSecret)) return send(res, 401, { error: 'invalid_client' });
    const code = form.get('code') ?? '';
    const pending = codes.get(code);
    codes.delete(code);
    if (form.get('grant_type') !== 'authorization_code' || !pending || pending.expiresAt < Date.now() || pending.redirectUri !== form.get('redirect_uri')) {
      return send(res, 400, { error: 'invalid_grant' });
    }
    if (pending.codeChallenge !== undefined) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== pending.codeChallenge) return send(res, 400, { error: 'invalid_grant' });
    }
    const idToken = await new SignJWT({ email: pending.email, email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(clientId)
      .setSubject(subjectOf(pending.email))
      .setIssuedAt()
      .setExpirationTime(`${ID_TOKEN_LIFETIME_S}s`)
      .sign(privateKey as CryptoKey);
    send(res, 200, { access_token: randomBytes(24).toString('base64url'), token_type: 'Bearer', expires_in: ID_TOKEN_LIFETIME_S, id_token: idToken });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    discoveryEndpoint: `${issuer}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    subjectOf,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) break;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
