import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/**
 * Files planted inside the repository, where biome.jsonc applies to them as to the code; they live
 * only while this file runs, so `npm run lint` and `npm run format:check` never see them.
 */
const PLANTED = mkdtempSync(join(ROOT, 'test', 'unit', 'lint-planted-'));
afterAll(() => rmSync(PLANTED, { recursive: true, force: true }));

function plant(dir: string, name: string, text: string): string {
  const path = join(PLANTED, dir);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, name), text);
  return relative(ROOT, path);
}

/** Runs an npm script's Biome command as the script does, on `dir` in place of the whole repository (`.`). */
function run(script: 'lint' | 'format:check', dir: string): Promise<{ code: number; output: string }> {
  const [tool, ...args] = SCRIPTS[script].split(' ');
  expect([tool, args.at(-1)]).toEqual(['biome', '.']);
  return new Promise((resolve) => {
    execFile(BIOME, [...args.slice(0, -1), dir], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, output: stdout + stderr });
    });
  });
}

const CLEAN = `/** Whether two codes are the same. */
export function sameCode(a: string, b: string): boolean {
  return a === b;
}
`;

describe('npm run lint and npm run format:check (Biome, biome.jsonc)', () => {
  it('pass on a clean file', async () => {
    const dir = plant('clean', 'same-code.ts', CLEAN);
    expect(await run('lint', dir)).toMatchObject({ code: 0 });
    expect(await run('format:check', dir)).toMatchObject({ code: 0 });
  });

  it('lint fails on `==`, naming the rule', async () => {
    const dir = plant('double-equals', 'same-code.ts', CLEAN.replace('a === b', 'a == b'));
    const { code, output } = await run('lint', dir);
    expect(code).not.toBe(0);
    expect(output).toContain('lint/suspicious/noDoubleEquals');
  });

  it('lint fails on an unused variable, a warning-level rule', async () => {
    const dir = plant('unused', 'same-code.ts', CLEAN.replace('  return a === b;', '  const unused = a.length;\n  return a === b;'));
    const { code, output } = await run('lint', dir);
    expect(code).not.toBe(0);
    expect(output).toContain('lint/correctness/noUnusedVariables');
  });

  it('format:check fails on a file not as the formatter writes it, naming the file', async () => {
    const dir = plant('unformatted', 'same-code.ts', CLEAN.replace('  return a === b;', '    return a===b'));
    expect(await run('lint', dir)).toMatchObject({ code: 0 });
    const { code, output } = await run('format:check', dir);
    expect(code).not.toBe(0);
    expect(output).toContain(`${dir}/same-code.ts format`);
  });
});
