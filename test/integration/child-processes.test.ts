import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every process a test starts ends with the test's process, however that ends. jest kills a worker
 * that outlives its time (SIGTERM, then SIGKILL): no `afterAll`, `finally` or `exit` handler runs
 * (and inside a test file `process.on('exit')` is jest's copy of `process`, which never emits it).
 * So DynamoDB Local watches the process that started it, and the server the IPC channel to it.
 */

/** Whether a process is still running: neither gone nor a zombie waiting for a parent to reap it. */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync(stat)) return readFileSync(stat, 'utf8').split(') ')[1]?.[0] !== 'Z';
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` is no longer running; false if it still is after `limitMs` (far past the few seconds it takes). */
async function ends(pid: number, limitMs = 30_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (running(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

describe('the processes a test starts', () => {
  it('end when the test process is killed: its DynamoDB Local and its server', async () => {
    const script = join(__dirname, '..', 'support', 'children-parent.ts');
    const parent = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    parent.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const pids = await new Promise<{ dynamo: number; server: number }>((resolve, reject) => {
      let line = '';
      parent.stdout?.on('data', (d: Buffer) => {
        line += d.toString();
        if (line.includes('\n')) resolve(JSON.parse(line.split('\n')[0]));
      });
      parent.on('exit', (code) => reject(new Error(`the parent exited with ${code}: ${output}`)));
    });
    const survivors: number[] = [];
    try {
      expect([running(pids.dynamo), running(pids.server)]).toEqual([true, true]);
      const exited = new Promise((r) => parent.once('exit', r));
      parent.kill('SIGKILL');
      await exited;
      const [dynamo, server] = await Promise.all([ends(pids.dynamo), ends(pids.server)]);
      expect({ dynamo, server }).toEqual({ dynamo: true, server: true });
    } finally {
      for (const pid of [pids.dynamo, pids.server]) {
        if (running(pid)) {
          survivors.push(pid);
          process.kill(pid, 'SIGKILL');
        }
      }
    }
    expect(survivors).toEqual([]);
  }, 120_000);
});
