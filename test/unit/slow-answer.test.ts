import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * A stub's late answer (`slowAnswer`) ends with its client. A timer left pending past the client's
 * time outlived its test file and held the jest worker past jest's half second of grace ("A worker
 * process has failed to exit gracefully and has been force exited"). Here a process serves one
 * request with a late answer of a minute, gives up on it as a client at 0.2 s, closes its server,
 * and must then end by itself: nothing of the late answer may keep it alive.
 */
const SCRIPT = `
import { createServer } from 'node:http';
import { slowAnswer } from ${JSON.stringify(join(__dirname, '..', 'support', 'slow-answer'))};
const server = createServer((_req, res) => void slowAnswer(res, 60_000).then(() => res.end()));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  const answer = await fetch(\`http://127.0.0.1:\${port}/\`, { signal: AbortSignal.timeout(200) }).then(() => 'answered', (err) => err.name);
  server.close();
  process.stdout.write(answer);
});
`;

describe('a stub answering late', () => {
  it('leaves nothing running once its client has given up', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    // It ends in a second or two; with the minute's timer pending it would still run at 30 s.
    const ended = await new Promise<boolean>((resolve) => {
      const limit = setTimeout(() => resolve(false), 30_000);
      child.on('exit', () => (clearTimeout(limit), resolve(true)));
    });
    if (!ended) child.kill('SIGKILL');
    expect([ended, output]).toEqual([true, 'TimeoutError']);
  }, 60_000);
});
