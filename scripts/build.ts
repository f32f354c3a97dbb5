import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUNDLE_OPTIONS, functionBundleOptions, hostLambdaArch, LAMBDA_TARGET } from '../infra/bundling';
import { BACKGROUND_FUNCTIONS, ROUTES } from '../infra/routes';
import type { LambdaArch } from '../infra/settings';

const ROOT = resolve(__dirname, '..');
/** This machine's Node major, the target of the bundles it runs itself. */
const HOST_TARGET = `node${process.versions.node.split('.')[0]}`;

/**
 * Bundles one handler per route and background function into `<outDir>/<id>/index.js` (with the
 * Argon2 binary and the phone metadata beside the bundles that use them), the way
 * `infra/bundling.ts` says. For Lambda: `arch` set, target Node 22 (what `infra/app.ts` deploys).
 * For this machine: `arch` of this host when it can stand in for Lambda's platform.
 */
export async function buildFunctions(outDir: string, platform: { arch: LambdaArch | undefined; target: string }): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  // Every build settles before a failure is reported, so none is still writing when it is.
  const results = await Promise.allSettled([...ROUTES, ...BACKGROUND_FUNCTIONS].map((fn) => build(functionBundleOptions(fn.id, fn.entry, outDir, platform, ROOT))));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The bundles Lambda runs for one architecture (`infra/app.ts`, the stack tests). */
export function buildLambdaFunctions(outDir: string, arch: LambdaArch): Promise<void> {
  return buildFunctions(outDir, { arch, target: LAMBDA_TARGET });
}

/**
 * What `npm start`, the tests and the benchmarks run: `dist/functions/<id>/index.js`, the local
 * server `dist/local/serve.js` that calls those very bundles, and the migration command.
 */
export async function buildAll(outDir = join(ROOT, 'dist')): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await Promise.all([
    buildFunctions(join(outDir, 'functions'), { arch: hostLambdaArch(), target: HOST_TARGET }),
    build({ ...BUNDLE_OPTIONS, target: HOST_TARGET, minify: false, entryPoints: [join(ROOT, 'local', 'serve.ts')], outfile: join(outDir, 'local', 'serve.js') }),
    // The migration command (the package's bin): no native module, no AWS SDK.
    build({ ...BUNDLE_OPTIONS, target: HOST_TARGET, minify: false, entryPoints: [join(ROOT, 'scripts', 'migrate.ts')], outfile: join(outDir, 'cli', 'migrate.js') }),
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
