import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as clientDynamodb from '@aws-sdk/client-dynamodb';
import * as libDynamodb from '@aws-sdk/lib-dynamodb';
import { HttpBindingProtocol, HttpRequest, RpcProtocol } from '@smithy/core/protocols';
import { NormalizedSchema, translateTraits, TypeRegistry } from '@smithy/core/schema';
import fc from 'fast-check';
import { BUNDLE_OPTIONS, compactDateUtils, partitionsWithoutDescriptions, purePaginator, sdkStubs, withoutHttpBindings } from '../../infra/bundling';
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

  it("event-stream signing: the signer's header formatter serves signMessage alone, which nothing calls", () => {
    const signer = sourcesUnder('@smithy/signature-v4/dist-es');
    const v4 = signer.find((s) => s.path.replace(/\\/g, '/').endsWith('/SignatureV4.js'))!.text;
    expect([...v4.matchAll(/this\.headerFormatter\.(\w+)/g)].map((m) => m[1])).toEqual(['format']);
    // That one use is in signMessage (the method that starts last before it).
    const use = v4.indexOf('this.headerFormatter.format');
    expect([...v4.slice(0, use).matchAll(/^ {4}(?:async )?(\w+)\(/gm)].pop()?.[1]).toBe('signMessage');
    expect(signer.filter((s) => s.text.includes('HeaderFormatter') && !s.path.endsWith('HeaderFormatter.js')).map((s) => s.path.replace(/\\/g, '/'))).toEqual([
      '@smithy/signature-v4/dist-es/SignatureV4.js',
    ]);
    // Nothing outside the signer calls signMessage; `sign` does for a message to sign, which the
    // signing middleware never hands it (it signs an HttpRequest, which has no `message`).
    const callers = BUNDLED_SDK.flatMap(sourcesUnder).filter((s) => /\.signMessage\(/.test(s.text) && !s.path.includes('signature-v4'));
    expect(callers.map((s) => s.path)).toEqual([]);
    expect(v4).toMatch(/else if \(toSign\.message\) \{\s*return this\.signMessage\(toSign, options\);/);
    expect(v4.match(/\.signMessage\(/g)).toHaveLength(1);
    expect(Object.keys(new HttpRequest({ headers: { a: 'b' }, body: '{}' }))).not.toContain('message');
  });

  it("HTTP bindings: DynamoDB's RPC protocol reads them only for a host prefix, which no operation has", () => {
    const protocols = sourcesUnder('@smithy/core/dist-es/submodules/protocols');
    const file = (name: string) => protocols.find((s) => s.path.replace(/\\/g, '/').endsWith(`/protocols/${name}`))!.text;
    // The class's one use in what RPC protocols are made of: `setHostPrefix`, past its return for an
    // operation whose bindings hold no host prefix (the operation's endpoint trait).
    const http = file('HttpProtocol.js');
    expect(http.match(/HttpBindingNormalizedSchema\./g)).toHaveLength(1);
    expect(http.slice(0, http.indexOf('HttpBindingNormalizedSchema.of('))).toMatch(
      /\{\n\s*if \(this\.serdeContext\?\.disableHostPrefix\) \{\s*return;\s*\}\s*const hostPrefix = operation\[4\];\s*if \(typeof hostPrefix !== "string"\) \{\s*return;\s*\}\s*let resolvedHostPrefix = hostPrefix;\s*for \(const \[name, \[, flags\]\] of $/,
    );
    expect(file('RpcProtocol.js')).not.toMatch(/HttpBindingNormalizedSchema/);
    const bindings = file('HttpBindingNormalizedSchema.js');
    expect(bindings).toMatch(/const \{ http, endpoint \} = translateTraits\(schema\.traits \?\? \{\}\);[\s\S]*?\n\s*endpoint\?\.\[0\],\n\s*\];/);
    // The client's protocol is an RPC one, and no operation of the client has an endpoint trait.
    const protocol = new clientDynamodb.DynamoDBClient({ region: 'us-east-1' }).config.protocol;
    expect([protocol instanceof RpcProtocol, protocol instanceof HttpBindingProtocol]).toEqual([true, false]);
    const operations = Object.entries(clientDynamodb)
      .filter(([name]) => /^\w+Command$/.test(name))
      .map(([name, command]) => [name, (new (command as new (input: object) => { schema: unknown[] })({}).schema as unknown[])[3]] as const);
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.filter(([, traits]) => translateTraits(traits as never).endpoint !== undefined)).toEqual([]);
    // What the bundles keep of the file: all of it but the class.
    const trimmed = withoutHttpBindings(bindings)!;
    expect(trimmed).toContain('export const getHttpOperationBindings');
    expect(trimmed.length).toBeLessThan(bindings.length - 2000);
    expect(withoutHttpBindings(bindings.replace('export const getHttpOperationBindings', 'export const httpBindingsOf'))).toBeUndefined();
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

  it('a function that sends a Get carries no paginator, Scan, DescribeEndpoints, S3 or HTTP-bindings code, and still sends', async () => {
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
    const parts = [
      '"DescribeEndpoints"',
      '"Scan"',
      '"ExclusiveStartKey"',
      'Path-style addressing cannot be used with ARN buckets',
      '"@smithy/HttpBindingNormalizedSchema"',
    ];
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

/** The names of the SDK commands the functions' code (`lib/`, `functions/`) imports, by package. */
function commandsSent(): { lib: string[]; client: string[] } {
  const root = join(__dirname, '../..');
  const sent = { lib: new Set<string>(), client: new Set<string>() };
  for (const dir of ['lib', 'functions']) {
    for (const file of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      for (const m of readFileSync(join(root, dir, file), 'utf8').matchAll(/import \{([^}]*)\} from '@aws-sdk\/(lib|client)-dynamodb'/g)) {
        for (const name of m[1].split(',').map((n) => n.trim())) if (/^\w+Command$/.test(name)) sent[m[2] as 'lib' | 'client'].add(name);
      }
    }
  }
  return { lib: [...sent.lib].sort(), client: [...sent.client].sort() };
}

/** Where a schema holds a timestamp, as paths of member names (a recursive shape is walked once). */
function timestampsIn(schema: unknown, path = '', seen = new Set<string>()): string[] {
  const ns = NormalizedSchema.of(schema as never);
  if (ns.isTimestampSchema()) return [path];
  if (ns.isListSchema()) return timestampsIn(ns.getValueSchema(), `${path}[]`, seen);
  if (ns.isMapSchema()) return [...timestampsIn(ns.getKeySchema(), `${path}{key}`, seen), ...timestampsIn(ns.getValueSchema(), `${path}{}`, seen)];
  if (!ns.isStructSchema()) return [];
  const name = ns.getName(true) ?? path;
  if (seen.has(name)) return [];
  seen.add(name);
  return [...ns.structIterator()].flatMap(([member, memberSchema]) => timestampsIn(memberSchema, `${path}.${member}`, seen));
}

const DATE_UTILS = join(__dirname, '../../node_modules/@smithy/core/dist-es/submodules/serde/date-utils.js');

/** The SDK's `date-utils.js` (as installed) or its compacted form, bundled as CommonJS and loaded. */
async function dateUtils(compacted: boolean): Promise<{ parseRfc7231DateTime: (value: unknown) => Date | undefined; bytes: number }> {
  const source = readFileSync(DATE_UTILS, 'utf8');
  const out = await build({
    stdin: { contents: compacted ? compactDateUtils(source)! : source, resolveDir: dirname(DATE_UTILS), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'cjs',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const module = { exports: {} as { parseRfc7231DateTime: (value: unknown) => Date | undefined } };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(module, module.exports, require);
  return { parseRfc7231DateTime: module.exports.parseRfc7231DateTime, bytes: out.outputFiles[0].text.length };
}

describe("the SDK's date (de)serialisers in the bundles", () => {
  it('meet no timestamp in the input, output or errors of any operation a function sends', () => {
    const sent = commandsSent();
    expect(sent.lib).toEqual(
      expect.arrayContaining(['GetCommand', 'PutCommand', 'UpdateCommand', 'DeleteCommand', 'QueryCommand', 'TransactWriteCommand', 'BatchGetCommand']),
    );
    const operations = [
      ...sent.lib.map(
        (name) => new (libDynamodb as unknown as Record<string, new (input: object) => { clientCommand: { schema: unknown } }>)[name]({}).clientCommand,
      ),
      ...sent.client.map((name) => new (clientDynamodb as unknown as Record<string, new (input: object) => { schema: unknown }>)[name]({})),
    ].map((command) => command.schema as [number, string, string, unknown, unknown, unknown]);
    expect(operations.length).toBe(sent.lib.length + sent.client.length);
    for (const op of operations) {
      expect([op[2], timestampsIn(op[4], 'input'), timestampsIn(op[5], 'output')]).toEqual([op[2], [], []]);
    }
    // Every error the client knows (the deserialiser reads an error by its shape id).
    const errors = [...(TypeRegistry.for('com.amazonaws.dynamodb') as unknown as { schemas: Map<string, unknown> }).schemas.values()];
    expect(errors.length).toBeGreaterThan(20);
    expect(errors.flatMap((e) => timestampsIn(e, 'error'))).toEqual([]);
    // The walk finds timestamps where there are some: a table's creation time.
    expect(timestampsIn((new clientDynamodb.DescribeTableCommand({ TableName: 't' }) as unknown as { schema: unknown[] }).schema[5], 'output')).toContain(
      'output.Table.CreationDateTime',
    );
  });

  it("read every HTTP date (a Retry-After header) as the SDK's own, and refuse what it refuses, in 3 KB less", async () => {
    const [compact, whole] = await Promise.all([dateUtils(true), dateUtils(false)]);
    const answer = (parse: (value: unknown) => Date | undefined, value: unknown) => {
      try {
        const date = parse(value);
        return date === undefined ? 'undefined' : String(date.getTime());
      } catch (err) {
        return `${(err as Error).constructor.name}`;
      }
    };
    const two = (n: number) => String(n).padStart(2, '0');
    const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun', 'Xyz'];
    const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec', 'Foo'];
    const texts = fc.sample(
      fc.oneof(
        fc
          .tuple(
            fc.constantFrom(...day),
            fc.integer({ min: 0, max: 32 }),
            fc.constantFrom(...month),
            fc.integer({ min: 0, max: 9999 }),
            fc.integer({ min: 0, max: 25 }),
            fc.integer({ min: 0, max: 61 }),
            fc.integer({ min: 0, max: 61 }),
            fc.option(fc.stringMatching(/^\d{1,6}$/)),
          )
          .map(([d, dd, m, y, h, mi, s, f]) => `${d}, ${two(dd)} ${m} ${String(y).padStart(4, '0')} ${h}:${two(mi)}:${two(s)}${f === null ? '' : `.${f}`} GMT`),
        fc
          .tuple(
            fc.constantFrom('Monday', 'Thursday', 'Sunday', 'Funday'),
            fc.integer({ min: 0, max: 32 }),
            fc.constantFrom(...month),
            fc.integer({ min: 0, max: 99 }),
            fc.integer({ min: 0, max: 25 }),
            fc.integer({ min: 0, max: 61 }),
            fc.option(fc.stringMatching(/^\d{1,4}$/)),
          )
          .map(([d, dd, m, y, h, s, f]) => `${d}, ${two(dd)}-${m}-${two(y)} ${two(h)}:${two(s)}:${two(s)}${f === null ? '' : `.${f}`} GMT`),
        fc
          .tuple(
            fc.constantFrom(...day),
            fc.constantFrom(...month),
            fc.integer({ min: 0, max: 32 }),
            fc.integer({ min: 0, max: 25 }),
            fc.integer({ min: 0, max: 61 }),
            fc.integer({ min: 0, max: 9999 }),
            fc.boolean(),
          )
          .map(
            ([d, m, dd, h, mi, y, padded]) =>
              `${d} ${m} ${padded ? two(dd) : String(dd).padStart(2, ' ')} ${two(h)}:${two(mi)}:${two(mi)} ${String(y).padStart(4, '0')}`,
          ),
        fc.string({ maxLength: 40 }),
      ),
      { numRuns: 20_000, seed: 43 },
    );
    // Every month's last days, in leap years and century years or not, in each form.
    for (const y of [1900, 1994, 2000, 2023, 2024, 2100, 2400]) {
      for (const m of month.slice(0, 12)) {
        for (const d of [28, 29, 30, 31]) {
          texts.push(`Mon, ${d} ${m} ${y} 12:00:00 GMT`, `Monday, ${d}-${m}-${String(y).slice(2)} 12:00:00 GMT`, `Mon ${m} ${d} 12:00:00 ${y}`);
        }
      }
    }
    texts.push(
      'Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
      'Thu, 29 Feb 2024 23:59:60.999 GMT',
      'Fri, 29 Feb 2023 00:00:00 GMT',
      '120',
    );
    const values: unknown[] = [...texts, undefined, null, 5, {}];
    const differing = values.filter((v) => answer(compact.parseRfc7231DateTime, v) !== answer(whole.parseRfc7231DateTime, v));
    expect(differing).toEqual([]);
    // Both kinds of answer are met often: dates, and refusals of each kind of mistake.
    const dates = texts.filter((t) => /^\d+$/.test(answer(whole.parseRfc7231DateTime, t)));
    expect(dates.length).toBeGreaterThan(3000);
    expect(texts.length - dates.length).toBeGreaterThan(3000);
    expect(whole.bytes - compact.bytes).toBeGreaterThan(3000);
  });

  it('replace only the file they were written for', () => {
    const source = readFileSync(DATE_UTILS, 'utf8');
    expect(compactDateUtils(source)).toContain('export const parseRfc7231DateTime');
    expect(compactDateUtils(`${source}\nexport const parseIso = () => 0;`)).toBeUndefined();
    expect(compactDateUtils(source.replace('(\\d{1,2}):(\\d{2})', '(\\d{2}):(\\d{2})'))).toBeUndefined();
  });
});
