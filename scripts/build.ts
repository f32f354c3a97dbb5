import { build, type BuildOptions } from 'esbuild';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUNDLE_EXTERNALS, BUNDLE_LOADER, BUNDLE_MAIN_FIELDS, routeDefine } from '../infra/bundling';
import { BACKGROUND_FUNCTIONS, ROUTES } from '../infra/routes';

/**
 * Bundles one handler per route into `dist/functions/<id>/index.js` (what Lambda and the local
 * server run) and the local server into `dist/local/serve.js`. The Argon2 native binary is copied
 * beside the bundles that hash passwords (`.node` loader: copy).
 */
export const BUNDLE_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  loader: BUNDLE_LOADER,
  mainFields: BUNDLE_MAIN_FIELDS,
  external: BUNDLE_EXTERNALS,
  logLevel: 'warning',
};

export async function buildAll(outDir = resolve(__dirname, '..', 'dist')): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  const root = resolve(__dirname, '..');
  await Promise.all([
    ...[...ROUTES, ...BACKGROUND_FUNCTIONS].map((fn) =>
      build({ ...BUNDLE_OPTIONS, define: routeDefine(fn.id), entryPoints: [join(root, fn.entry)], outfile: join(outDir, 'functions', fn.id, 'index.js') }),
    ),
    build({ ...BUNDLE_OPTIONS, minify: false, entryPoints: [join(root, 'local', 'serve.ts')], outfile: join(outDir, 'local', 'serve.js') }),
    // The migration command (the package's bin): no native module, no AWS SDK.
    build({ ...BUNDLE_OPTIONS, minify: false, entryPoints: [join(root, 'scripts', 'migrate.ts')], outfile: join(outDir, 'cli', 'migrate.js') }),
  ]);
}

if (require.main === module) {
  const started = Date.now();
  buildAll().then(
    () => process.stdout.write(`built ${ROUTES.length + BACKGROUND_FUNCTIONS.length} handler bundles in ${Date.now() - started} ms\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
