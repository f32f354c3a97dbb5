import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Figure } from '../../bench/figure';
import { FIGURES, selectFigures } from '../../bench/figures';

/**
 * The registry of `npm run bench`'s figures (bench/figures/index.ts) cannot drift from its
 * modules or from bench/README.md: every module is listed under its file's name, and every
 * `BENCH_ONLY` the README shows still selects its figures. No figure is run here.
 */
const DIR = join(__dirname, '..', '..', 'bench', 'figures');
const README = readFileSync(join(__dirname, '..', '..', 'bench', 'README.md'), 'utf8');
const modules = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => f.slice(0, -'.ts'.length))
  .sort();
const names = FIGURES.map((f) => f.name);

it('lists every module of bench/figures/ once, under its file name', () => {
  expect([...names].sort()).toEqual(modules);
  for (const file of modules) {
    const { figure } = require(join(DIR, file)) as { figure: Figure };
    expect([file, figure.name, FIGURES.includes(figure)]).toEqual([file, file, true]);
  }
});

it('gives each figure its own number, each one a figure of bench/README.md', () => {
  const numbers = FIGURES.map((f) => f.number);
  expect(new Set(numbers).size).toBe(numbers.length);
  for (const f of FIGURES) expect([f.name, README.includes(`\n${f.number}. **`)]).toEqual([f.name, true]);
});

it("resolves every BENCH_ONLY of bench/README.md, and the README's full list is every figure in the run's order", () => {
  const shown = [...README.matchAll(/BENCH_ONLY=([a-z,]+)/g)].map((m) => m[1]);
  expect(shown.length).toBeGreaterThan(1);
  for (const only of shown) expect(selectFigures(only).map((f) => f.name)).toEqual(names.filter((n) => only.split(',').includes(n)));
  expect(shown).toContain(names.join(','));
});

it('selects every figure without BENCH_ONLY, the named ones in the run order with it', () => {
  expect(selectFigures(undefined)).toEqual(FIGURES);
  expect(selectFigures('mapping,import, sessions').map((f) => f.name)).toEqual(['import', 'sessions', 'mapping']);
});

it('refuses a BENCH_ONLY that names no figure, saying which names there are', () => {
  expect(() => selectFigures('signin,sesions')).toThrow(`BENCH_ONLY must name figures of ${names.join(',')}; it names sesions`);
  expect(() => selectFigures('')).toThrow('it names none');
});

it('runs every figure that needs no service after those that need DynamoDB Local', () => {
  const needs = FIGURES.map((f) => f.needs);
  expect(needs.slice(needs.indexOf('nothing')).every((n) => n === 'nothing')).toBe(true);
});
