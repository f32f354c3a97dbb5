import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '../../local/dynamodb-local';

/**
 * DynamoDB Local holds users' password hashes: it listens on the loopback interface only. Checked
 * on the instance the tests run against (started by the global setup with `startDynamoDbLocal`,
 * as `npm start` starts its own), from the kernel's list of listening sockets and by connecting.
 */
const port = Number(new URL(process.env.TEST_DYNAMODB_ENDPOINT as string).port);

/** The local addresses of the TCP sockets listening on `port`, from /proc/net/tcp and tcp6 (Linux). */
function listeningAddresses(): string[] {
  const addresses: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [hexAddress, hexPort] = local.split(':');
      if (state === '0A' && parseInt(hexPort, 16) === port) addresses.push(decodeAddress(hexAddress));
    }
  }
  return addresses;
}

/** A /proc/net address (32-bit words in host order, little-endian here) as text: 127.0.0.1, ::ffff:127.0.0.1, ::. */
function decodeAddress(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  return groups
    .join(':')
    .replace(/^(0:)+0$/, '::')
    .replace(/(^|:)0(:0)+(:|$)/, '::');
}

const isLoopback = (address: string) => /^(::ffff:)?127\./.test(address) || address === '0:0:0:0:0:0:0:1' || address === '::1';

describe('DynamoDB Local', () => {
  const linux = existsSync('/proc/net/tcp');

  (linux ? it : it.skip)('listens on the loopback interface only (the kernel’s listening sockets on its port)', () => {
    const addresses = listeningAddresses();
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((a) => !isLoopback(a))).toEqual([]);
  });

  // Some machines have no other interface; where one is, DynamoDB Local is not reachable through it.
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4');
  (external ? it : it.skip)('refuses a connection to its port on another interface, and accepts one on 127.0.0.1', async () => {
    const attempt = (host: string) =>
      new Promise<string>((resolve) => {
        const socket = connect({ host, port });
        socket.setTimeout(10_000, () => (socket.destroy(), resolve('timeout')));
        socket.on('connect', () => (socket.destroy(), resolve('connected')));
        socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
    expect(await attempt('127.0.0.1')).toBe('connected');
    expect(await attempt(external!.address)).toBe('ECONNREFUSED');
  });

  it('writes nothing into the working folder of the process that starts it (its jar writes dynamodb-local-metadata.json into its own)', async () => {
    const cwd = process.cwd();
    const folder = mkdtempSync(join(tmpdir(), 'dynamodb-local-cwd-'));
    const data = mkdtempSync(join(tmpdir(), 'dynamodb-local-data-'));
    try {
      // jest runs one file at a time in a worker: the folder is this file's alone while it is changed.
      process.chdir(folder);
      // The jar writes its metadata at start, before it answers: once started, it would be there.
      const inMemory = await startDynamoDbLocal();
      await inMemory.stop();
      const persisted = await startDynamoDbLocal({ dbPath: join(data, 'db') });
      await persisted.stop();
      expect(readdirSync(folder)).toEqual([]);
      // A persisted one keeps it beside its data.
      expect(readdirSync(join(data, 'db'))).toContain('dynamodb-local-metadata.json');
    } finally {
      process.chdir(cwd);
      rmSync(folder, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});
