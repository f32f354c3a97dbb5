import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A company's identity provider on loopback, as a tenant's provider stored in the core (SPEC §22)
 * names it: a token endpoint that trades a code for an access token (only with a client's own
 * secret) and a userinfo endpoint that answers who the token is for. Codes are handed to the test
 * (`codeFor`) instead of through a browser; there is no id token, so the SDK's generic provider
 * reads the user from the userinfo endpoint (`sub`, `email`, `email_verified`).
 */
export interface OAuthStandIn {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly tokenEndpoint: string;
  readonly userInfoEndpoint: string;
  /** A single-use code that signs `email` in, for the client `clientId`. */
  codeFor(email: string, clientId: string): string;
  /** The `sub` it gives `email` (stable): the one `subjects` names, else one derived from the email. */
  subjectOf(email: string): string;
  /** The token requests refused for a wrong client or secret, and the exchanges made. */
  readonly counts: { refusedClients: number; exchanges: number; userInfos: number };
  stop(): Promise<void>;
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts the stand-in for these clients (client id → its secret); `subjects` (email → `sub`) gives
 * some users the subject their old identity provider gave them (a migrated user's `thirdPartyUserId`).
 */
export async function startOAuthStandIn(clients: Readonly<Record<string, string>>, subjects: Readonly<Record<string, string>> = {}): Promise<OAuthStandIn> {
  const codes = new Map<string, { email: string; clientId: string }>();
  const tokens = new Map<string, string>();
  const counts = { refusedClients: 0, exchanges: 0, userInfos: 0 };
  const subjectOf = (email: string) => subjects[email] ?? `sub-${createHash('sha256').update(email).digest('hex').slice(0, 16)}`;
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'POST' && url.pathname === '/token') {
        const f = await form(req);
        const clientId = f.get('client_id') ?? '';
        if (clients[clientId] === undefined || clients[clientId] !== f.get('client_secret')) {
          counts.refusedClients++;
          return send(res, 401, { error: 'invalid_client' });
        }
        const pending = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        if (f.get('grant_type') !== 'authorization_code' || !pending || pending.clientId !== clientId) return send(res, 400, { error: 'invalid_grant' });
        const token = randomBytes(16).toString('hex');
        tokens.set(token, pending.email);
        counts.exchanges++;
        return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
      }
      if (req.method === 'GET' && url.pathname === '/userinfo') {
        const email = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (email === undefined) return send(res, 401, { error: 'invalid_token' });
        counts.userInfos++;
        return send(res, 200, { sub: subjectOf(email), email, email_verified: true });
      }
      send(res, 404, { error: 'not_found' });
    })().catch(() => send(res, 500, { error: 'server_error' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    tokenEndpoint: `${base}/token`,
    userInfoEndpoint: `${base}/userinfo`,
    codeFor: (email, clientId) => {
      const code = randomBytes(12).toString('hex');
      codes.set(code, { email, clientId });
      return code;
    },
    subjectOf,
    counts,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
