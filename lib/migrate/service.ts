import { sleep } from '../pool';
import { UsageError } from './errors';

/**
 * The service as the migration command uses it: the bulk-import API (SPEC §15) and a few reads,
 * over HTTP with the API key. Network errors and 5xx are retried 4 times with backoff; 429 and 503
 * (the stage throttle, and the service or DynamoDB busy) are back-pressure and retried for up to
 * five minutes: a migration slows while the table is short of capacity instead of reporting its
 * users as failed. What is left is the caller's to report. The API key is sent in its header
 * only, never logged.
 */

export interface ServiceResponse {
  readonly status: number;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON answer of any route; each caller checks the fields it reads
  readonly json: any;
}

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
}

const RETRIES = 4;

/** How the client waits between tries (tests shorten it). */
export interface RetryTiming {
  /** The first wait; each next one doubles, up to `maxMs`, jittered down by up to half. */
  readonly baseMs: number;
  readonly maxMs: number;
  /** How long 429 and 503 (back-pressure) are tried again before the request fails. */
  readonly busyForMs: number;
}

export const RETRY_TIMING: RetryTiming = { baseMs: 250, maxMs: 8000, busyForMs: 5 * 60_000 };

/** A whole number of milliseconds from the environment, within bounds, else the default (knobs for tests, not options). */
export function msFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = Number(env[name] ?? fallback);
  return Number.isSafeInteger(value) && value >= min && value <= max ? value : fallback;
}

/** `RETRY_TIMING` with its first wait from `MIGRATE_RETRY_BASE_MS` (the tests shorten it; the doubling and the limits stay). */
export const retryTimingFrom = (env: NodeJS.ProcessEnv): RetryTiming => ({
  ...RETRY_TIMING,
  baseMs: msFromEnv(env, 'MIGRATE_RETRY_BASE_MS', RETRY_TIMING.baseMs, 1, 60_000),
});

/** Answers that mean "slow down", not "failed": the stage throttle, and the service busy. */
const isBusy = (status: number) => status === 429 || status === 503;

export class ServiceClient {
  /** A check left for the first request (`deferChecks`), and its run once started. */
  private checks?: () => Promise<void>;
  private checked?: Promise<void>;

  constructor(
    readonly url: string,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs = 60_000,
    private readonly retry: RetryTiming = RETRY_TIMING,
  ) {}

  /**
   * Leaves the usage checks (`preflight` and the like) for the first request: a re-run on an
   * unchanged export sends none (SPEC §17c). A failed check fails that request and every later one.
   */
  deferChecks(checks: () => Promise<void>): void {
    this.checks = checks;
  }

  /** Runs the deferred checks, once (nothing when none were deferred). */
  ready(): Promise<void> {
    if (!this.checks) return Promise.resolve();
    this.checked ??= this.checks();
    return this.checked;
  }

  /** Sends a request (after the deferred checks), trying again as above; every try sends the same `headers` and body. */
  async request(method: string, path: string, body?: unknown, headers: Readonly<Record<string, string>> = {}): Promise<ServiceResponse> {
    await this.ready();
    return this.send(method, path, body, headers);
  }

  private async send(method: string, path: string, body?: unknown, headers: Readonly<Record<string, string>> = {}): Promise<ServiceResponse> {
    let lastError = '';
    let failures = 0;
    let busySince: number | undefined;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await sleep(Math.min(this.retry.maxMs, this.retry.baseMs * 2 ** attempt) * (0.5 + Math.random() / 2));
      try {
        const res = await fetch(new URL(path, this.url), {
          method,
          headers: { ...headers, ...(this.apiKey ? { 'api-key': this.apiKey } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const text = await res.text();
        if (isBusy(res.status)) {
          lastError = `HTTP ${res.status}`;
          busySince ??= Date.now();
          if (Date.now() - busySince < this.retry.busyForMs) continue;
          break;
        }
        busySince = undefined;
        if (res.status >= 500) {
          lastError = `HTTP ${res.status}`;
          if (++failures <= RETRIES) continue;
          break;
        }
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: res.status, text, json };
      } catch (err) {
        lastError = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        busySince = undefined;
        if (++failures > RETRIES) break;
      }
    }
    throw new ServiceError(
      busySince !== undefined
        ? `${method} ${path} was refused as busy for ${Math.round((Date.now() - busySince) / 1000)} s (${lastError})`
        : `${method} ${path} failed ${RETRIES + 1} times (${lastError})`,
    );
  }

  /** Checks the service answers and takes the key, and that the tenant exists: usage errors otherwise. */
  async preflight(tenant: string): Promise<void> {
    let res: ServiceResponse;
    try {
      res = await this.send('GET', '/recipe/multitenancy/tenant/list/v2');
    } catch (err) {
      throw new UsageError(`the service at ${this.url} does not answer (${(err as Error).message}): start it (npm start) or pass --url.`);
    }
    if (res.status === 401) throw new UsageError(`the service at ${this.url} refused the API key: pass --api-key or set AUTH_CORE_API_KEY.`);
    if (res.status !== 200 || !Array.isArray(res.json?.tenants))
      throw new UsageError(`the service at ${this.url} is not an auth core: GET /recipe/multitenancy/tenant/list/v2 answered ${res.status}.`);
    const tenants = new Set<string>(['public', ...res.json.tenants.map((t: { tenantId: string }) => t.tenantId)]);
    if (!tenants.has(tenant)) throw new UsageError(`tenant ${tenant} does not exist on the service: create it first (PUT /recipe/multitenancy/tenant/v2).`);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the answer's JSON, as ServiceResponse.json
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.request(method, path, body);
    if (res.status !== 200) throw new ServiceError(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return res.json;
  }

  /**
   * Whether the service migrates passwords at sign-in (SPEC §16), which `--no-hash
   * migrate-on-signin` needs: its pending-count endpoint answers with a configured source.
   */
  async migratesPasswords(tenant: string): Promise<boolean> {
    const res = await this.send('GET', `/${tenant}/recipe/user/passwordmigration/count`);
    return res.status === 200 && typeof res.json?.source === 'string' && res.json.source !== 'off';
  }

  async roles(): Promise<Set<string>> {
    return new Set<string>((await this.ok('GET', '/recipe/roles')).roles);
  }

  async createRole(role: string): Promise<void> {
    await this.ok('PUT', '/recipe/role', { role });
  }

  /** Every row of one status, page by page (at most `maxRows`). */
  async rows(status: 'NEW' | 'PROCESSING' | 'FAILED', maxRows = Number.POSITIVE_INFINITY): Promise<{ id: string; errorMessage?: string }[]> {
    const out: { id: string; errorMessage?: string }[] = [];
    let token: string | undefined;
    do {
      const q = new URLSearchParams({ status, limit: '500', ...(token ? { paginationToken: token } : {}) });
      const page = await this.ok('GET', `/bulk-import/users?${q}`);
      for (const row of page.users) out.push({ id: row.id, ...(row.errorMessage ? { errorMessage: row.errorMessage } : {}) });
      token = page.nextPaginationToken;
    } while (token && out.length < maxRows);
    return out;
  }

  async removeRows(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) await this.ok('POST', '/bulk-import/users/remove', { ids: ids.slice(i, i + 500) });
  }

  async userCount(tenant: string): Promise<number> {
    return (await this.ok('GET', `/${tenant}/users/count`)).count;
  }

  /** The ids (the external id when mapped) of the users of a tenant that hold a phone number. */
  async phoneHolders(tenant: string, phone: string): Promise<string[]> {
    const found = await this.ok('GET', `/${tenant}/users/by-accountinfo?${new URLSearchParams({ phoneNumber: phone })}`);
    return (found.users as { id: string }[]).map((u) => u.id);
  }

  /** Every user of a tenant, page by page. */
  async *users(tenant: string): AsyncGenerator<ServiceUser> {
    let token: string | undefined;
    do {
      const q = new URLSearchParams({ limit: '500', ...(token ? { paginationToken: token } : {}) });
      const page = await this.ok('GET', `/${tenant}/users?${q}`);
      yield* page.users as ServiceUser[];
      token = page.nextPaginationToken;
    } while (token);
  }
}

/** A user as `GET /users` shows it (SPEC §4), the fields the dry run reads. */
export interface ServiceUser {
  readonly id: string;
  readonly isPrimaryUser?: boolean;
  readonly loginMethods: readonly {
    readonly recipeId: 'emailpassword' | 'thirdparty' | 'passwordless';
    readonly tenantIds: readonly string[];
    readonly email?: string;
    readonly phoneNumber?: string;
    readonly thirdParty?: { readonly id: string; readonly userId: string };
  }[];
}
