import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the tests of `examples/sdk-app` share (`sdk-app.test.ts`, `sdk-webauthn.test.ts`): a
 * recording proxy between the app and the core, and a browser that talks to the app as the SDK's
 * frontend does.
 */

/** A core answer as the proxy saw it. */
export interface CoreAnswer {
  method: string;
  path: string;
  status: number;
}

/** A reverse proxy to the core that pushes the method, path and status of every answer to `answers`. */
export async function startRecordingProxy(target: string, answers: CoreAnswer[]): Promise<{ server: Server; url: string }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', target).pathname;
    const forward = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      (answer) => {
        answers.push({ method: req.method ?? '?', path, status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      answers.push({ method: req.method ?? '?', path, status: 502 });
      res.writeHead(502).end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

/** Where the app is: `url` may be filled in later (in `beforeAll`), it is read at each request. */
export interface AppTarget {
  url: string;
  /** The frontend's origin, sent as `Origin` (the app's `websiteDomain`). */
  website: string;
}

/**
 * A browser's view of the app, sending `st-auth-mode` as the SDK's frontend does: in cookie mode a cookie jar (each cookie sent only under its
 * path, removed when the app expires it), in header mode the `st-access-token` /
 * `st-refresh-token` headers kept and sent back as `Authorization: Bearer …` (the refresh token
 * only to the refresh API), as the SDK's frontend does.
 */
export class Browser {
  readonly cookies = new Map<string, { value: string; path: string }>();
  accessToken?: string;
  refreshToken?: string;

  constructor(
    readonly mode: 'cookie' | 'header',
    readonly app: AppTarget,
  ) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const h: Record<string, string> = { origin: this.app.website, ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    if (this.mode === 'header') {
      h['st-auth-mode'] = 'header';
      const token = path === '/auth/session/refresh' ? this.refreshToken : this.accessToken;
      if (token !== undefined) h.authorization = `Bearer ${token}`;
    } else {
      // The SDK's frontend says which it wants: without it, a new session would go to headers.
      h['st-auth-mode'] = 'cookie';
      const sent = [...this.cookies].filter(([, c]) => path.startsWith(c.path)).map(([name, c]) => `${name}=${c.value}`);
      if (sent.length > 0) h.cookie = sent.join('; ');
    }
    const res = await fetch(this.app.url + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    this.keep(res.headers);
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, body: unknown = {}) => this.request('POST', path, body);

  /** The access token whichever way it travels. */
  get access(): string | undefined {
    return this.mode === 'header' ? this.accessToken : this.cookies.get('sAccessToken')?.value;
  }

  private keep(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attr = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const expires = attr('expires');
      if (value === '' || (expires !== undefined && Date.parse(expires) <= Date.now()) || attr('max-age') === '0') this.cookies.delete(name);
      else this.cookies.set(name, { value, path: attr('path') ?? '/' });
    }
    const access = headers.get('st-access-token');
    const refresh = headers.get('st-refresh-token');
    if (access !== null) this.accessToken = access || undefined;
    if (refresh !== null) this.refreshToken = refresh || undefined;
  }
}
