import { resolve } from 'node:path';

/**
 * What a figure reports to: `say` prints a line of markdown, `results` is the run's JSON, where
 * each figure puts its numbers under its own keys (bench/README.md).
 */
export interface Report {
  say(line: string): void;
  readonly results: Record<string, unknown>;
}

interface AboutFigure {
  /** Its `BENCH_ONLY` name, which is also its module's: `bench/figures/<name>.ts`. */
  readonly name: string;
  /** Its number in bench/README.md, "The figures". */
  readonly number: number;
}

/**
 * One figure of `npm run bench`, a module of `bench/figures/` listed in `bench/figures/index.ts`.
 * Every figure that starts the local server (`startApi`) needs the run's shared DynamoDB Local,
 * whose endpoint it is given; one that needs no service runs without it.
 */
export type Figure =
  | (AboutFigure & { readonly needs: 'dynamodb'; run(report: Report, endpoint: string): Promise<void> })
  | (AboutFigure & { readonly needs: 'nothing'; run(report: Report): Promise<void> });

/** The repository's root. */
export const ROOT = resolve(__dirname, '..');
/** Concurrency of the import and count figures' writes. */
export const CONCURRENCY = 16;
/** A BCrypt cost-10 hash, for users imported where the hash is not what is measured. */
export const BCRYPT_HASH = '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq';
