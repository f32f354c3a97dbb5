import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Report } from './figure';

/** A report that prints each line to stdout as it is said. */
export function createReport(): Report {
  const results: Record<string, unknown> = {};
  return { say: (line) => process.stdout.write(line + '\n'), results };
}

/** Writes the run's results as JSON to `dir` (bench/results/, gitignored); returns the file. */
export function writeResults(report: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, results: report.results }, null, 2));
  return file;
}
