/**
 * A usage or configuration error found before anything is written (unknown source, unreadable
 * file, a hash config that is not one, service unreachable, wrong API key): the command prints
 * the message and exits with code 2 (SPEC §17).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Ctrl-C while the export was still being read, before anything was written: no report. */
export class InterruptedBeforeWriting extends Error {
  override readonly name = 'InterruptedBeforeWriting';
  constructor() {
    super('interrupted while reading the export: nothing was written');
  }
}
