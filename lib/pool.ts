/**
 * Runs `work` over `items`, in order of start, with at most `limit` in flight at once. After the
 * first failure nothing new starts: the work in flight ends, then that first error is thrown, so
 * no work goes on once the caller has its answer (a staging request answered 503 stages nothing
 * more behind it).
 */
export async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && failure === undefined) {
      try {
        await work(items[next++]);
      } catch (error) {
        failure ??= { error };
      }
    }
  });
  await Promise.all(runners);
  if (failure !== undefined) throw failure.error;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
