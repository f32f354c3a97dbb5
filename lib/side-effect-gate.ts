import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A request's side effects wait for its gate: a check that runs beside the request's first reads
 * and must pass before the request may change anything. The HTTP layer checks that a tenant other
 * than `public` exists this way (issue #15: one sequential DynamoDB round trip less in every such
 * request), so a request to a missing tenant reads at most, and writes nothing: every DynamoDB
 * write (`awaitGateBeforeWrites`, on the client) and every call to an old provider (password
 * migration) waits for the gate and throws its error instead.
 */
const gates = new AsyncLocalStorage<Promise<void>>();

/** Runs `work` with `gate` in front of its side effects (and those of everything it starts). */
export function runGated<T>(gate: Promise<void>, work: () => Promise<T>): Promise<T> {
  return gates.run(gate, work);
}

/** Resolves once the current request may have side effects (at once outside a gated request). */
export async function sideEffectsAllowed(): Promise<void> {
  await gates.getStore();
}
