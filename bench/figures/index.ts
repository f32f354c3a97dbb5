import type { Figure } from '../figure';
import { figure as bulk } from './bulk';
import { figure as capacity } from './capacity';
import { figure as cold } from './cold';
import { figure as count } from './count';
import { figure as exchange } from './exchange';
import { figure as hashes } from './hashes';
import { figure as importThroughput } from './import';
import { figure as linking } from './linking';
import { figure as load } from './load';
import { figure as mapping } from './mapping';
import { figure as migrate } from './migrate';
import { figure as passwordless } from './passwordless';
import { figure as pwmig } from './pwmig';
import { figure as scale } from './scale';
import { figure as sessions } from './sessions';
import { figure as signin } from './signin';

/**
 * The figures of `npm run bench`, in the order a run measures them (bench/README.md). A figure
 * is added as a module of this folder exporting `figure` (named after its file) and one entry
 * here; `test/unit/bench-figures.test.ts` fails on a module that is not listed.
 */
export const FIGURES: readonly Figure[] = [
  importThroughput,
  signin,
  passwordless,
  linking,
  cold,
  bulk,
  migrate,
  capacity,
  pwmig,
  load,
  count,
  sessions,
  exchange,
  hashes,
  // Needs no service: runs after the shared DynamoDB Local has stopped.
  mapping,
  scale,
];

/**
 * The figures `BENCH_ONLY` (a comma-separated list of names) selects, in the run's order; every
 * figure when it is not set. A name that is no figure's is refused, naming the figures there are.
 */
export function selectFigures(benchOnly: string | undefined): Figure[] {
  if (benchOnly === undefined) return [...FIGURES];
  const names = benchOnly
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !FIGURES.some((f) => f.name === n));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`BENCH_ONLY must name figures of ${FIGURES.map((f) => f.name).join(',')}; it names ${unknown.length > 0 ? unknown.join(',') : 'none'}`);
  }
  return FIGURES.filter((f) => names.includes(f.name));
}
