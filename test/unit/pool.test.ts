import { inPool } from '../../lib/pool';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('inPool', () => {
  it('runs every item, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inPool(
      Array.from({ length: 20 }, (_, i) => i),
      4,
      async (i) => {
        running++;
        most = Math.max(most, running);
        await tick(i % 3);
        running--;
        done.push(i);
      },
    );
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it('after the first failure starts nothing new, lets the work in flight end, then throws that first error', async () => {
    const started: number[] = [];
    const ended: number[] = [];
    const run = inPool(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (i) => {
        started.push(i);
        if (i === 4) throw new Error('item 4 failed');
        if (i === 5) throw new Error('item 5 failed too');
        await tick(20);
        ended.push(i);
      },
    );
    await expect(run).rejects.toThrow('item 4 failed');
    // Items 0-2 start first; 3, 4 and 5 as they free up; once 4 has failed nothing after 5 starts.
    expect(started.length).toBeLessThanOrEqual(7);
    expect(started).not.toContain(19);
    // Every item that started and did not fail had ended before the pool answered.
    expect(ended.sort((a, b) => a - b)).toEqual(started.filter((i) => i !== 4 && i !== 5).sort((a, b) => a - b));
  });
});
