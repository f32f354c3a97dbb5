import { CapacityGate } from '../../lib/recipes/bulkimport/worker';

const tick = () => new Promise((r) => setTimeout(r, 1));

/**
 * The bulk worker's gate on rows in flight: a worker DynamoDB refuses for capacity must send less
 * (halving at each refusal) and come back up as rows get through, never running more than the
 * gate allows.
 */
describe('CapacityGate', () => {
  /** Runs `n` tasks through the gate at once, each taking a tick; the most seen in flight. */
  async function mostInFlight(gate: CapacityGate, n: number): Promise<number> {
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: n }, () =>
        gate.run(async () => {
          running++;
          most = Math.max(most, running);
          await tick();
          running--;
        }),
      ),
    );
    return most;
  }

  it('lets up to its maximum run at once', async () => {
    expect(await mostInFlight(new CapacityGate(16), 40)).toBe(16);
  });

  it('halves at each refusal, down to one, and grows back by one for about as many rows done', async () => {
    const gate = new CapacityGate(16);
    gate.refused();
    expect(await mostInFlight(gate, 40)).toBe(8);
    gate.refused();
    gate.refused();
    gate.refused();
    gate.refused();
    expect(await mostInFlight(gate, 10)).toBe(1);
    // Each row done adds 1 / the limit: from 1, seven rows make 4.1.
    for (let i = 0; i < 7; i++) gate.done();
    expect(await mostInFlight(gate, 10)).toBe(4);
    for (let i = 0; i < 500; i++) gate.done();
    expect(await mostInFlight(gate, 40)).toBe(16);
  });

  it('passes on what the work answers or throws, and frees its place either way', async () => {
    const gate = new CapacityGate(1);
    await expect(gate.run(async () => 'imported')).resolves.toBe('imported');
    await expect(gate.run(async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await expect(gate.run(async () => 'after')).resolves.toBe('after');
  });
});
