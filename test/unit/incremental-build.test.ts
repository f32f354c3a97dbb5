import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostLambdaArch, PHONE_METADATA_FILE } from '../../infra/bundling';
import { routeById } from '../../infra/routes';
import { buildFunctions, BUILD_STATE_FILE } from '../../scripts/build';
import { buildIncrementally, type BuildJob } from '../../scripts/incremental-build';

/**
 * `npm start` and `npm test` build only the bundles whose inputs or options changed. First on a
 * project of its own (three entries, two sharing a module), where files can be changed freely;
 * then on real handlers with the project's plugins.
 */
describe('an incremental build', () => {
  const root = mkdtempSync(join(tmpdir(), 'incremental-build-'));
  const out = join(root, 'out');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const write = (file: string, text: string) => writeFileSync(join(root, file), text);
  write('shared.ts', "export const shared = 'shared v1';\n");
  write('own.ts', "export const own = 'own v1';\n");
  write('a.ts', "import { shared } from './shared'; console.log('a', shared);\n");
  write('b.ts', "import { shared } from './shared'; console.log('b', shared);\n");
  write('c.ts', "import { own } from './own'; console.log('c', own, VERSION);\n");
  const job = (id: string, define: Record<string, string> = {}): BuildJob => ({
    id,
    dir: join(out, id),
    options: {
      bundle: true,
      platform: 'node',
      format: 'cjs',
      logLevel: 'silent',
      entryPoints: [join(root, `${id}.ts`)],
      outfile: join(out, id, 'index.js'),
      define: { VERSION: '"1"', ...define },
    },
  });
  const run = (jobs: BuildJob[]) => buildIncrementally(jobs, { root, stateFile: join(out, BUILD_STATE_FILE), salt: 'test', pruneDir: out });
  const sorted = (ids: string[]) => [...ids].sort();

  it('builds every bundle the first time, none the second', async () => {
    expect(sorted((await run([job('a'), job('b'), job('c')])).built)).toEqual(['a', 'b', 'c']);
    const second = await run([job('a'), job('b'), job('c')]);
    expect(second.built).toEqual([]);
    expect(sorted(second.unchanged)).toEqual(['a', 'b', 'c']);
  });

  it('rebuilds exactly the bundles that include a changed file', async () => {
    write('shared.ts', "export const shared = 'shared v2';\n");
    const report = await run([job('a'), job('b'), job('c')]);
    expect(sorted(report.built)).toEqual(['a', 'b']);
    expect(report.unchanged).toEqual(['c']);
    expect(readFileSync(join(out, 'a', 'index.js'), 'utf8')).toContain('shared v2');
    expect(readFileSync(join(out, 'b', 'index.js'), 'utf8')).toContain('shared v2');

    write('own.ts', "export const own = 'own v2';\n");
    expect((await run([job('a'), job('b'), job('c')])).built).toEqual(['c']);
  });

  it('rebuilds nothing for a file touched but not changed (contents, not times)', async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'shared.ts'), later, later);
    expect((await run([job('a'), job('b'), job('c')])).built).toEqual([]);
  });

  it('rebuilds a bundle whose options changed, or whose output is missing', async () => {
    expect((await run([job('a'), job('b'), job('c', { VERSION: '"2"' })])).built).toEqual(['c']);
    expect(readFileSync(join(out, 'c', 'index.js'), 'utf8')).toContain('"2"');
    rmSync(join(out, 'a', 'index.js'));
    expect((await run([job('a'), job('b'), job('c', { VERSION: '"2"' })])).built).toEqual(['a']);
    expect(existsSync(join(out, 'a', 'index.js'))).toBe(true);
  });

  it('removes the folder of a bundle no longer asked for, and anything else in the bundles folder', async () => {
    mkdirSync(join(out, 'left-over'));
    const report = await run([job('a'), job('c', { VERSION: '"2"' })]);
    expect(report.built).toEqual([]);
    expect(sorted(report.removed)).toEqual(['b', 'left-over']);
    expect(readdirSync(out).sort()).toEqual([BUILD_STATE_FILE, 'a', 'c']);
  });

  it('builds a bundle again after an entry file was deleted and restored with other contents', async () => {
    rmSync(join(root, 'own.ts'));
    await expect(run([job('a'), job('c', { VERSION: '"2"' })])).rejects.toThrow();
    write('own.ts', "export const own = 'own v3';\n");
    expect((await run([job('a'), job('c', { VERSION: '"2"' })])).built).toEqual(['c']);
    expect(readFileSync(join(out, 'c', 'index.js'), 'utf8')).toContain('own v3');
  });
});

describe("the handlers' incremental build", () => {
  const out = mkdtempSync(join(tmpdir(), 'incremental-functions-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const platform = { arch: hostLambdaArch(), target: 'node22' };
  const hello = routeById('hello');
  const phone = routeById('passwordless-create-code');
  type State = { bundles: Record<string, { inputs: Record<string, string> }> };
  const stateFile = join(out, BUILD_STATE_FILE);
  const readState = () => JSON.parse(readFileSync(stateFile, 'utf8')) as State;
  /** The state as if `input` had had other contents when the bundles were built (the sources stay as they are). */
  const pretendChanged = (input: (name: string) => boolean) => {
    const state = readState();
    for (const bundle of Object.values(state.bundles)) for (const name of Object.keys(bundle.inputs)) if (input(name)) bundle.inputs[name] = 'other contents';
    writeFileSync(stateFile, JSON.stringify(state));
  };

  it('skips unchanged bundles, keeps the files plugins write beside them, and rebuilds the ones an input belongs to', async () => {
    expect((await buildFunctions(out, platform, [hello, phone])).built.sort()).toEqual(['hello', 'passwordless-create-code']);
    const second = await buildFunctions(out, platform, [hello, phone]);
    expect(second.built).toEqual([]);
    expect(second.unchanged.sort()).toEqual(['hello', 'passwordless-create-code']);
    expect(existsSync(join(out, phone.id, PHONE_METADATA_FILE))).toBe(true);

    // An entry file belongs to its own bundle only.
    pretendChanged((name) => name === 'functions/core/hello.ts');
    expect((await buildFunctions(out, platform, [hello, phone])).built).toEqual(['hello']);

    // The phone metadata reaches the bundles through a plugin's namespace: the file behind it is
    // what is hashed, so a change to it rebuilds them (every bundle loads lib/phone, most drop it).
    const metadata = Object.keys(readState().bundles[phone.id].inputs).find((name) => name.endsWith('lib/phone/metadata.json'));
    expect(metadata).toMatch(/^phone-metadata:/);
    expect(readState().bundles[phone.id].inputs[metadata!]).toBe(
      createHash('sha256')
        .update(readFileSync(join(__dirname, '..', '..', 'lib', 'phone', 'metadata.json')))
        .digest('hex'),
    );
    pretendChanged((name) => name === metadata);
    expect((await buildFunctions(out, platform, [hello, phone])).built.sort()).toEqual(['hello', 'passwordless-create-code']);
    expect(existsSync(join(out, phone.id, PHONE_METADATA_FILE))).toBe(true);

    const fourth = await buildFunctions(out, platform, [hello]);
    expect(fourth.removed).toEqual([phone.id]);
    expect(existsSync(join(out, phone.id))).toBe(false);
  }, 120_000);
});
