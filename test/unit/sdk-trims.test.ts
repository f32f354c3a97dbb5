import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_OPTIONS, partitionsWithoutDescriptions, purePaginator, sdkStubs } from '../../infra/bundling';
import { scratchDir } from '../support/scratch';

/**
 * What the bundles keep of the AWS SDK's partitions table (`infra/bundling.ts`): the endpoint rules
 * read a region's partition outputs merged with the region's own entry, so dropping the regions'
 * descriptions must leave every other byte of meaning, and a region whose entry held anything else
 * would show here.
 */
const FILE = join(__dirname, '../../node_modules/@aws-sdk/core/dist-es/submodules/client/util-endpoints/lib/aws/partitions.js');

type Info = { partitions: { id: string; outputs: object; regionRegex: string; regions: Record<string, Record<string, unknown>> }[]; version: string };
const parse = (text: string): Info =>
  JSON.parse(
    text
      .slice(text.indexOf('=') + 1)
      .trim()
      .replace(/;\s*$/, ''),
  );

describe("the SDK's partitions table in the bundles", () => {
  const original = readFileSync(FILE, 'utf8');
  const kept = parse(partitionsWithoutDescriptions(original));
  const full = parse(original);

  it('keeps every partition, its outputs and region pattern, and every region', () => {
    expect(kept.version).toBe(full.version);
    expect(kept.partitions.map((p) => [p.id, p.outputs, p.regionRegex, Object.keys(p.regions)])).toEqual(
      full.partitions.map((p) => [p.id, p.outputs, p.regionRegex, Object.keys(p.regions)]),
    );
    expect(full.partitions.flatMap((p) => Object.keys(p.regions))).toContain('eu-west-1');
  });

  it('drops only the descriptions: no region entry held anything else', () => {
    for (const p of full.partitions) for (const [name, entry] of Object.entries(p.regions)) expect([name, Object.keys(entry)]).toEqual([name, ['description']]);
    for (const p of kept.partitions) for (const entry of Object.values(p.regions)) expect(entry).toEqual({});
    expect(partitionsWithoutDescriptions(original).length).toBeLessThan(original.length / 2);
  });
});

/** Every `.js` file under a folder of `node_modules`, with its path from there. */
function sourcesUnder(dir: string): { path: string; text: string }[] {
  const base = join(__dirname, '../../node_modules');
  return readdirSync(join(base, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(base, dir, f), 'utf8') }));
}

/** The SDK packages a function bundles: the DynamoDB clients and what they build on. */
const BUNDLED_SDK = [
  '@aws-sdk/client-dynamodb/dist-es',
  '@aws-sdk/lib-dynamodb/dist-es',
  '@aws-sdk/core/dist-es',
  '@aws-sdk/dynamodb-codec/dist-es',
  '@smithy',
];

describe("the DynamoDB clients' parts the bundles leave out", () => {
  it('endpoint discovery: no command adds its middleware, and nothing but the client sets or reads its settings', () => {
    const sources = BUNDLED_SDK.flatMap(sourcesUnder);
    expect(sources.length).toBeGreaterThan(500);
    // The middleware comes only through the package's plugin, which no module of the clients takes.
    expect(sources.filter((s) => s.text.includes('getEndpointDiscovery')).map((s) => s.path)).toEqual([]);
    const commands = sources.filter((s) => /client-dynamodb[\\/]dist-es[\\/]commands[\\/]\w+Command\.js$/.test(s.path));
    expect(commands.length).toBeGreaterThan(50);
    for (const c of commands) expect([c.path, /command\(_ep\d+, _mw0, "\w+", \w+\$\)/.test(c.text)]).toEqual([c.path, true]);
    expect(sourcesUnder('@aws-sdk/client-dynamodb/dist-es').find((s) => s.path.endsWith('commandBuilder.js'))?.text).toMatch(
      /^export const _mw0 = \(Command, cs, config, o\) => \[\];$/m,
    );
    // What `resolveEndpointDiscoveryConfig` adds to the client's settings is read only by that package.
    const readers = sources.filter((s) =>
      /endpointDiscoveryEnabled|endpointCache\b|isClientEndpointDiscoveryEnabled|endpointDiscoveryCommandCtor/.test(s.text),
    );
    expect(readers.map((s) => s.path.replace(/\\/g, '/')).sort()).toEqual([
      '@aws-sdk/client-dynamodb/dist-es/DynamoDBClient.js',
      '@aws-sdk/client-dynamodb/dist-es/runtimeConfig.browser.js',
      '@aws-sdk/client-dynamodb/dist-es/runtimeConfig.js',
    ]);
  });

  it('paginators: each one call marked pure, nothing else of its module changed', () => {
    const paginators = ['@aws-sdk/client-dynamodb/dist-es/pagination', '@aws-sdk/lib-dynamodb/dist-es/pagination']
      .flatMap(sourcesUnder)
      .filter((s) => s.path.endsWith('Paginator.js'));
    expect(paginators.length).toBeGreaterThan(5);
    for (const p of paginators) {
      const pure = purePaginator(p.text);
      expect([p.path, pure?.replace('/* @__PURE__ */ ', '')]).toEqual([p.path, p.text]);
      expect(pure).toMatch(/^export const paginate\w+ = \/\* @__PURE__ \*\/ createPaginator\(/m);
    }
    expect(purePaginator('export const a = createPaginator(x);\nexport const b = createPaginator(y);')).toBeUndefined();
  });

  it('a function that sends a Get carries no paginator, Scan, DescribeEndpoints or S3 code, and still sends', async () => {
    const bundle = async (stubbed: boolean) => {
      const out = await build({
        ...BUNDLE_OPTIONS,
        loader: {},
        target: 'node22',
        stdin: {
          contents:
            'import { DynamoDBClient } from "@aws-sdk/client-dynamodb"; import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";' +
            'export const get = (endpoint) => DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "a", secretAccessKey: "b" }, maxAttempts: 1 }))' +
            '.send(new GetCommand({ TableName: "none", Key: { pk: "a" } }));',
          resolveDir: join(__dirname, '../..'),
          loader: 'js',
        },
        write: false,
        plugins: stubbed ? [sdkStubs()] : [],
      });
      return out.outputFiles[0].text;
    };
    const [stubbed, whole] = await Promise.all([bundle(true), bundle(false)]);
    // Texts of each left-out part: the operations' names, the paginator's token, S3's bucket check.
    const parts = ['"DescribeEndpoints"', '"Scan"', '"ExclusiveStartKey"', 'Path-style addressing cannot be used with ARN buckets'];
    expect(parts.filter((t) => whole.includes(t))).toEqual(parts);
    expect(parts.filter((t) => stubbed.includes(t))).toEqual([]);
    // Sent to DynamoDB Local from a process of its own: it answers that the table does not exist.
    const file = join(scratchDir('auth-core-sdk-trims-'), 'get.js');
    writeFileSync(file, stubbed);
    const script = `require(${JSON.stringify(file)}).get(${JSON.stringify(process.env.TEST_DYNAMODB_ENDPOINT)}).catch((e) => console.log(e.name));`;
    const run = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(run.stdout.trim()).toBe('ResourceNotFoundException');
  });
});
