import { MAX_JSON_DEPTH } from './limits';

/** What may be wrong with a free-form JSON value stored as given (user metadata). */
export type JsonValueProblem = 'NOT_UNICODE' | 'TOO_DEEP';

/**
 * The problems of a JSON value stored as given, each kind once, in the order a walk meets them: a
 * string (keys too) that is not valid Unicode (a lone surrogate), an object or array nested deeper
 * than `MAX_JSON_DEPTH` levels. Walked without recursion, so no input can overflow the stack.
 */
export function jsonValueProblems(root: unknown): JsonValueProblem[] {
  const problems = new Set<JsonValueProblem>();
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0 && problems.size < 2) {
    const [value, depth] = pending.pop() as [unknown, number];
    if (typeof value === 'string' && !value.isWellFormed()) problems.add('NOT_UNICODE');
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) problems.add('TOO_DEEP');
    for (const [key, child] of Object.entries(value)) {
      if (!key.isWellFormed()) problems.add('NOT_UNICODE');
      pending.push([child, depth + 1]);
    }
  }
  return [...problems];
}
