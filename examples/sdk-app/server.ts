import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createExampleApp } from './app';
import { startOidcStandIn } from './oidc-stand-in';

/**
 * `npx tsx examples/sdk-app/server.ts`: the example app on http://localhost:3001 (`PORT`), its
 * core at `CORE_URL` (default `http://localhost:3567`, what `npm start` serves) with `CORE_API_KEY`
 * (default: the development key `npm start` keeps in `.data/dev-api-key`), and the OIDC stand-in
 * on a free loopback port (`OIDC_PORT` to fix it). Binds 127.0.0.1 only.
 */
async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const port = Number(process.env.PORT ?? 3001);
  const coreUrl = process.env.CORE_URL ?? 'http://localhost:3567';
  const keyFile = resolve(process.env.DATA_DIR ?? '.data', 'dev-api-key');
  const coreApiKey = process.env.CORE_API_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined);
  // A development key made at start and printed, as `npm start` does for the core's.
  const dashboardApiKey = process.env.DASHBOARD_API_KEY ?? randomBytes(16).toString('hex');

  const oidc = await startOidcStandIn({ port: Number(process.env.OIDC_PORT ?? 0) });
  const { app } = createExampleApp({
    coreUrl,
    coreApiKey,
    apiDomain: `http://localhost:${port}`,
    websiteDomain: process.env.WEBSITE_DOMAIN ?? 'http://localhost:3000',
    oidc,
    dashboardApiKey,
    devOutbox: process.env.DEV_OUTBOX !== 'off',
  });
  const server = app.listen(port, '127.0.0.1', () => {
    process.stdout.write(
      [
        `example app on http://localhost:${port} (core ${coreUrl}${coreApiKey ? '' : ', no API key'})`,
        `OIDC stand-in on ${oidc.issuer} (thirdPartyId local-oidc)`,
        `emails and codes: GET http://localhost:${port}/dev/outbox?to=<email>`,
        `dashboard APIs: Authorization: Bearer ${dashboardApiKey}`,
        '',
      ].join('\n'),
    );
  });
  const stop = () => {
    server.close();
    void oidc.close();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`example app failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
