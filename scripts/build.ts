import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUNDLE_OPTIONS, functionBundleOptions, hostLambdaArch, LAMBDA_TARGET } from '../infra/bundling';
import { BACKGROUND_FUNCTIONS, ROUTES } from '../infra/routes';
import type { LambdaArch } from '../infra/settings';
import { buildIncrementally, hashFiles, type BuildReport } from './incremental-build';

const ROOT = resolve(__dirname, '..');
/** This machine's Node major, the target of the bundles it runs itself. */
const HOST_TARGET = `node${process.versions.node.split('.')[0]}`;

/** The state of an incremental build, beside the bundles it describes. */
export const BUILD_STATE_FILE = '.build-state.json';

/**
 * What decides every bundle beside its own options and inputs: the plugins and this build
 * (their source), and what resolves modules (package.json, the lockfile, tsconfig.json). When
 * one of these changes, everything is built again.
 */
function buildSalt(): string {
  return hashFiles(
    ['infra/bundling.ts', 'scripts/build.ts', 'scripts/incremental-build.ts', 'package.json', 'package-lock.json', 'tsconfig.json'].map((f) => join(ROOT, f)),
  );
}

/**
 * Bundles one handler per route and background function into `<outDir>/<id>/index.js` (with the
 * Argon2 binary and the phone metadata beside the bundles that use them), the way
 * `infra/bundling.ts` says. For Lambda: `arch` set, target Node 22 (what `infra/app.ts` deploys).
 * For this machine: `arch` of this host when it can stand in for Lambda's platform.
 *
 * Only the bundles whose inputs or options changed since the last build into `outDir` are built
 * (`scripts/incremental-build.ts`); the folders of functions no longer in the list are removed.
 * `functions` is every route and background function unless given.
 */
export function buildFunctions(
  outDir: string,
  platform: { arch: LambdaArch | undefined; target: string },
  functions: readonly { id: string; entry: string }[] = [...ROUTES, ...BACKGROUND_FUNCTIONS],
): Promise<BuildReport> {
  return buildIncrementally(
    functions.map((fn) => ({ id: fn.id, dir: join(outDir, fn.id), options: functionBundleOptions(fn.id, fn.entry, outDir, platform, ROOT) })),
    { root: ROOT, stateFile: join(outDir, BUILD_STATE_FILE), salt: buildSalt(), pruneDir: outDir },
  );
}

/** The bundles Lambda runs for one architecture (`infra/app.ts`, the stack tests). */
export function buildLambdaFunctions(outDir: string, arch: LambdaArch): Promise<BuildReport> {
  return buildFunctions(outDir, { arch, target: LAMBDA_TARGET });
}

/**
 * What `npm start`, the tests and the benchmarks run: `dist/functions/<id>/index.js`, the local
 * server `dist/local/serve.js` that calls those very bundles, and the migration command. Each is
 * built only when something it is made of changed.
 */
export async function buildAll(outDir = join(ROOT, 'dist')): Promise<{ functions: BuildReport; tools: BuildReport }> {
  const tool = (id: string, entry: string, file: string) => ({
    id,
    dir: join(outDir, id),
    options: { ...BUNDLE_OPTIONS, target: HOST_TARGET, minify: false, entryPoints: [join(ROOT, entry)], outfile: join(outDir, id, file) },
  });
  const [functions, tools] = await Promise.all([
    buildFunctions(join(outDir, 'functions'), { arch: hostLambdaArch(), target: HOST_TARGET }),
    buildIncrementally(
      // The local server, and the migration command (the package's bin: no native module, no AWS SDK).
      [tool('local', 'local/serve.ts', 'serve.js'), tool('cli', 'scripts/migrate.ts', 'migrate.js')],
      { root: ROOT, stateFile: join(outDir, BUILD_STATE_FILE), salt: buildSalt() },
    ),
  ]);
  return { functions, tools };
}

/** The `count` largest function bundles in `functionsDir` (`<id>/index.js`, bytes), largest first. */
export function largestBundles(functionsDir: string, ids: readonly string[], count = 5): { id: string; bytes: number }[] {
  return ids
    .map((id) => ({ id, bytes: statSync(join(functionsDir, id, 'index.js')).size }))
    .sort((a, b) => b.bytes - a.bytes || a.id.localeCompare(b.id))
    .slice(0, count);
}

if (require.main === module) {
  const started = Date.now();
  buildAll().then(
    ({ functions }) => {
      const total = functions.built.length + functions.unchanged.length;
      const what = functions.unchanged.length === 0 ? `${total}` : `${functions.built.length} of ${total}`;
      process.stdout.write(
        `built ${what} handler bundles for ${HOST_TARGET} in ${Date.now() - started} ms${functions.unchanged.length > 0 ? ` (${functions.unchanged.length} unchanged)` : ''}\n`,
      );
      // The stack test holds every bundle to 260 KiB (266,240 B): how close the largest are.
      const largest = largestBundles(join(ROOT, 'dist', 'functions'), [...functions.built, ...functions.unchanged]);
      process.stdout.write(`largest bundles (bytes of index.js):\n${largest.map((b) => `  ${String(b.bytes).padStart(7)}  ${b.id}`).join('\n')}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
