import express, { type NextFunction, type Request, type Response } from 'express';
import supertokens, { RecipeUserId } from 'supertokens-node';
import { errorHandler, middleware, type SessionRequest } from 'supertokens-node/framework/express';
import AccountLinking from 'supertokens-node/recipe/accountlinking';
import Dashboard from 'supertokens-node/recipe/dashboard';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import EmailVerification from 'supertokens-node/recipe/emailverification';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Passwordless from 'supertokens-node/recipe/passwordless';
import Session from 'supertokens-node/recipe/session';
import { verifySession } from 'supertokens-node/recipe/session/framework/express';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import Totp from 'supertokens-node/recipe/totp';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import UserRoles from 'supertokens-node/recipe/userroles';
import WebAuthn from 'supertokens-node/recipe/webauthn';

/** What the example app needs to know; `server.ts` reads it from the environment. */
export interface ExampleAppConfig {
  /** The core: this service (`npm start`: `http://localhost:3567`). */
  coreUrl: string;
  /** One of the core's API keys. */
  coreApiKey?: string;
  /** Where this app is reached, e.g. `http://localhost:3001` (cookies and links are made for it). */
  apiDomain: string;
  /** Where the app's frontend would be: the emailed links point there. */
  websiteDomain: string;
  /** The third-party provider: an OpenID Connect provider found by discovery (locally the stand-in). */
  oidc: { discoveryEndpoint: string; clientId: string; clientSecret: string };
  /** The key the Dashboard recipe's APIs take as `Authorization: Bearer <key>`. */
  dashboardApiKey: string;
  /** Mounts `GET /dev/outbox` (the captured emails and SMS, links and codes included): for development only. */
  devOutbox?: boolean;
  /** Told every request the SDK sends to the core (the SDK's `networkInterceptor`). */
  onCoreRequest?: (method: string, url: string) => void;
}

/** An email or SMS the app would have sent: there is no mail server, so it is kept here. */
export interface OutboxMessage {
  /** The email address or phone number. */
  to: string;
  kind: 'email-verification' | 'password-reset' | 'passwordless' | 'recover-account';
  tenantId: string;
  /** The link in the message (verify email, reset password, magic link, recover a passkey account). */
  link?: string;
  /** The passwordless one-time code. */
  code?: string;
}

/** The messages the app sent, newest last. */
export class Outbox {
  readonly messages: OutboxMessage[] = [];

  add(message: OutboxMessage): void {
    this.messages.push(message);
  }

  /** The newest message to `to` (of `kind`, when given). */
  latest(to: string, kind?: OutboxMessage['kind']): OutboxMessage | undefined {
    const address = to.trim().toLowerCase();
    return this.messages.findLast((m) => m.to.toLowerCase() === address && (kind === undefined || m.kind === kind));
  }
}

/** The third party's id in the SDK's config, the `thirdPartyId` the frontend names. */
export const OIDC_PROVIDER_ID = 'local-oidc';

/**
 * The whole app: `supertokens.init` with every recipe (MultiFactorAuth, Totp and WebAuthn included), then
 * an Express app with the SDK's middleware (`/auth/*`), three protected routes, one that
 * refreshes a claim, and the error handler. `supertokens.init` is global: call this once per
 * process.
 */
export function createExampleApp(config: ExampleAppConfig): { app: express.Express; outbox: Outbox } {
  const outbox = new Outbox();
  supertokens.init({
    framework: 'express',
    supertokens: {
      connectionURI: config.coreUrl,
      apiKey: config.coreApiKey,
      networkInterceptor: (request) => {
        config.onCoreRequest?.(request.method.toUpperCase(), request.url);
        return request;
      },
    },
    appInfo: { appName: 'sdk-example-app', apiDomain: config.apiDomain, websiteDomain: config.websiteDomain, apiBasePath: '/auth' },
    recipeList: [
      EmailPassword.init({
        emailDelivery: {
          service: {
            sendEmail: async (input) => outbox.add({ to: input.user.email, kind: 'password-reset', tenantId: input.tenantId, link: input.passwordResetLink }),
          },
        },
      }),
      Passwordless.init({
        contactMethod: 'EMAIL_OR_PHONE',
        flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK',
        emailDelivery: {
          service: {
            sendEmail: async (input) =>
              outbox.add({ to: input.email, kind: 'passwordless', tenantId: input.tenantId, link: input.urlWithLinkCode, code: input.userInputCode }),
          },
        },
        smsDelivery: {
          service: {
            sendSms: async (input) =>
              outbox.add({ to: input.phoneNumber, kind: 'passwordless', tenantId: input.tenantId, link: input.urlWithLinkCode, code: input.userInputCode }),
          },
        },
      }),
      ThirdParty.init({
        signInAndUpFeature: {
          providers: [
            {
              config: {
                thirdPartyId: OIDC_PROVIDER_ID,
                name: 'Local OIDC',
                oidcDiscoveryEndpoint: config.oidc.discoveryEndpoint,
                clients: [{ clientId: config.oidc.clientId, clientSecret: config.oidc.clientSecret, scope: ['openid', 'email'] }],
              },
            },
          ],
        },
      }),
      EmailVerification.init({
        mode: 'REQUIRED',
        emailDelivery: {
          service: {
            sendEmail: async (input) => outbox.add({ to: input.user.email, kind: 'email-verification', tenantId: input.tenantId, link: input.emailVerifyLink }),
          },
        },
      }),
      // Automatic linking: a new login method with the verified email of an existing user joins that user.
      // MultiFactorAuth needs it (a second factor is a login method, or a device, of one primary user).
      AccountLinking.init({ shouldDoAutomaticAccountLinking: async () => ({ shouldAutomaticallyLink: true, shouldRequireVerification: true }) }),
      // Second factors: every login method is a first factor; a user needs a second one when its
      // metadata (`_supertokens.requiredSecondaryFactors`, as the migration writes it) or its tenant
      // (`requiredSecondaryFactors`) says so. The `st-mfa` claim joins every `verifySession()`.
      MultiFactorAuth.init(),
      Totp.init({
        override: {
          apis: (original) => ({
            ...original,
            // TOTP as an opt-in (SuperTokens' guide): a user who verifies a device needs a code at every later sign-in.
            verifyDevicePOST: async (input) => {
              const answer = await original.verifyDevicePOST!(input);
              if (answer.status === 'OK') {
                await MultiFactorAuth.addToRequiredSecondaryFactorsForUser(input.session.getUserId(), MultiFactorAuth.FactorIds.TOTP, input.userContext);
              }
              return answer;
            },
          }),
        },
      }),
      // Passkeys (SPEC §21). The relying party is the website's domain: a browser makes and uses a
      // passkey only for the RP id of the page's host (or a suffix of it), and sends the page's
      // origin, which the core checks against what these options said.
      WebAuthn.init({
        getRelyingPartyId: new URL(config.websiteDomain).hostname,
        getRelyingPartyName: 'sdk-example-app',
        getOrigin: async () => config.websiteDomain,
        emailDelivery: {
          service: {
            // "Lost my passkey": the link carries the recover-account token (`?token=…&tenantId=…`).
            sendEmail: async (input) => outbox.add({ to: input.user.email, kind: 'recover-account', tenantId: input.tenantId, link: input.recoverAccountLink }),
          },
        },
      }),
      Multitenancy.init(),
      UserRoles.init(),
      UserMetadata.init(),
      Dashboard.init({ apiKey: config.dashboardApiKey }),
      // Cookies by default; a client sending `st-auth-mode: header` gets tokens in headers instead.
      Session.init(),
    ],
  });

  const app = express();
  app.disable('x-powered-by');
  app.use((req: Request, res: Response, next: NextFunction) => {
    // CORS for the frontend at websiteDomain, with the headers the SDK's frontend sends.
    if (req.headers.origin === config.websiteDomain) {
      res.setHeader('Access-Control-Allow-Origin', config.websiteDomain);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Headers', ['content-type', ...supertokens.getAllCORSHeaders()].join(', '));
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
        res.status(204).end();
        return;
      }
    }
    next();
  });
  // Every SuperTokens API: /auth/signup, /auth/signinup/code, /auth/session/refresh, /auth/dashboard/api/users, …
  app.use(middleware());

  const sessionView = (session: NonNullable<SessionRequest['session']>) => ({
    userId: session.getUserId(),
    recipeUserId: session.getRecipeUserId().getAsString(),
    tenantId: session.getTenantId(),
    sessionHandle: session.getHandle(),
    accessTokenPayload: session.getAccessTokenPayload(),
  });

  /**
   * Any live session whose email is verified (the EmailVerification claim, REQUIRED mode) and whose
   * required second factors are done (the MultiFactorAuth claim, `st-mfa`): from the token alone, no
   * core call (a session made without the MFA claim, as `/auth/exchange` makes, gets it once here).
   */
  app.get('/me', verifySession(), (req: SessionRequest, res: Response) => {
    res.json(sessionView(req.session!));
  });

  /** The same, and the core confirms the session still exists: a revoked session's token is refused at once. */
  app.get('/me/strict', verifySession({ checkDatabase: true }), (req: SessionRequest, res: Response) => {
    res.json(sessionView(req.session!));
  });

  /** Only for users holding the `admin` role (the UserRoles claim in the access token). */
  app.get(
    '/admin',
    verifySession({ overrideGlobalClaimValidators: async (validators) => [...validators, UserRoles.UserRoleClaim.validators.includes('admin')] }),
    (req: SessionRequest, res: Response) => {
      res.json({ message: 'welcome, admin', ...sessionView(req.session!) });
    },
  );

  /** Reads the user's roles from the core into the access token now (`fetchAndSetClaim`), instead of at the claim's next refresh. */
  app.post('/me/roles/refresh', verifySession(), async (req: SessionRequest, res: Response) => {
    await req.session!.fetchAndSetClaim(UserRoles.UserRoleClaim);
    res.json({ roles: await req.session!.getClaimValue(UserRoles.UserRoleClaim) });
  });

  /**
   * Keeps a user of the old provider signed in (docs/MIGRATE.md, "Keep users signed in"): the
   * frontend posts `{token}`, the token the old provider gave the user (Firebase
   * `getIdToken()`, Auth0's ID token); the core checks it and names the imported user; the SDK
   * makes the session, in cookies or headers like any sign-in. The SDK has no function for the
   * exchange, so it is a plain call to the core. Any other status: the frontend shows sign-in.
   */
  app.post(['/auth/exchange', '/auth/:tenantId/exchange'], express.json({ limit: '32kb' }), async (req: Request, res: Response) => {
    const token = req.body?.token;
    if (typeof token !== 'string' || token === '') {
      res.status(400).json({ message: "Field 'token' (the old provider's token) is required" });
      return;
    }
    const tenantId = typeof req.params.tenantId === 'string' ? req.params.tenantId : 'public';
    const core = await fetch(`${config.coreUrl}/${encodeURIComponent(tenantId)}/recipe/migration/session/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.coreApiKey ? { 'api-key': config.coreApiKey } : {}) },
      body: JSON.stringify({ token }),
    });
    // 400: a token the core cannot take (over 16,384 characters) or an unknown tenant. 503: the old
    // provider's keys cannot be fetched; the frontend keeps its old session and tries later.
    if (core.status === 503 || core.status === 400) {
      res.status(core.status).json({ message: await core.text() });
      return;
    }
    if (core.status !== 200) throw new Error(`session exchange: the core answered ${core.status}`);
    const answer = (await core.json()) as { status: string; tenantId: string; recipeUserId: string; user: unknown };
    if (answer.status !== 'OK') {
      res.json({ status: answer.status });
      return;
    }
    await Session.createNewSession(req, res, answer.tenantId, new RecipeUserId(answer.recipeUserId));
    res.json({ status: 'OK', user: answer.user });
  });

  if (config.devOutbox) {
    /** Development only: the messages sent to `to` (newest last), since there is no mail server. */
    app.get('/dev/outbox', (req: Request, res: Response) => {
      const to = typeof req.query.to === 'string' ? req.query.to.trim().toLowerCase() : '';
      if (!to) {
        res.status(400).json({ message: "Query parameter 'to' (an email address or phone number) is required" });
        return;
      }
      res.json({ messages: outbox.messages.filter((m) => m.to.toLowerCase() === to) });
    });
  }

  // The SDK's errors (401 try refresh / unauthorised, 403 invalid claim, …), then anything else as a plain 500.
  app.use(errorHandler());
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // A body that is not JSON (express.json): the client's mistake, not ours.
    if ((err as { type?: string }).type === 'entity.parse.failed') {
      res.status(400).json({ message: 'The body is not valid JSON' });
      return;
    }
    process.stderr.write(`example app: ${err instanceof Error ? err.message : String(err)}\n`);
    res.status(500).json({ message: 'Internal error' });
  });
  return { app, outbox };
}
