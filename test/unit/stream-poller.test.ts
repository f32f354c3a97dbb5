import { parallelBatches } from '../../local/stream-poller';

/**
 * The local stream poller's batches (`npm start`'s stand-in for the event source mapping with its
 * parallelization factor): batches of one shard run at once, so a lane's rows must never be split
 * between two of them, or two invocations would import one lane's rows side by side and its
 * counter would have two writers.
 */
describe('parallelBatches', () => {
  // 600 records of 40 lanes in stream order, as GetRecords returns them.
  const records = Array.from({ length: 600 }, (_, seq) => ({ seq, pk: `BULKROW#${(seq * 7) % 40}` }));
  const keyOf = (r: { pk: string }) => r.pk;

  it('keeps all the records of one partition key in one group, in stream order', () => {
    const groups = parallelBatches(records, keyOf, 10, 100);
    const groupOfKey = new Map<string, number>();
    groups.forEach((batches, g) => {
      for (const r of batches.flat()) {
        expect(groupOfKey.get(r.pk) ?? g).toBe(g);
        groupOfKey.set(r.pk, g);
      }
      const seqs = batches.flat().map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    });
    expect(groupOfKey.size).toBe(40);
  });

  it('hands over every record once, in at most `parallelization` groups of batches no larger than the batch size', () => {
    const groups = parallelBatches(records, keyOf, 10, 100);
    expect(groups.length).toBeLessThanOrEqual(10);
    // 40 keys over 10 groups: more than one group is used (the point of the factor).
    expect(groups.length).toBeGreaterThan(1);
    for (const batches of groups) for (const batch of batches) expect(batch.length).toBeGreaterThan(0);
    for (const batches of groups) for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(100);
    expect(
      groups
        .flat(2)
        .map((r) => r.seq)
        .sort((a, b) => a - b),
    ).toEqual(records.map((r) => r.seq));
  });

  it('with a factor of 1, is the records in order cut into batches', () => {
    const groups = parallelBatches(records, keyOf, 1, 100);
    expect(groups).toHaveLength(1);
    expect(groups[0].map((b) => b.length)).toEqual([100, 100, 100, 100, 100, 100]);
    expect(groups[0].flat()).toEqual(records);
  });

  it('gives no batch for no records', () => {
    expect(parallelBatches([], keyOf, 10, 100)).toEqual([]);
  });
});
