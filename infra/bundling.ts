import type { BuildOptions, Plugin } from 'esbuild';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { handlerRouteOf, ROUTES } from './routes';
import type { LambdaArch } from './settings';

/**
 * How every function bundle is built, by `scripts/build.ts`: for `npm start`, the tests and the
 * benchmarks (this machine), and for the CDK stack (Lambda's platform and the stage's
 * architecture), so Lambda runs the code the local server and the tests ran. The esbuild plugins
 * below are why the stack no longer uses CDK's `NodejsFunction`: it runs esbuild's command line,
 * which takes no plugins.
 */

/**
 * The SDK's ESM builds let esbuild drop the commands a function never sends (its CommonJS builds
 * cannot be tree-shaken): bundles shrink from ~820 KB to ~360 KB, and load about twice as fast.
 */
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];

/** Modules left out of every bundle. */
export const BUNDLE_EXTERNALS = [
  // The optional peer of @middy/core for durable execution is never imported here.
  '@aws/durable-execution-sdk-js',
];

/** The global a handler bundle reads its route from (`lib/http/bundled-route.ts`). */
export const ROUTE_CONSTANT = 'AUTH_CORE_ROUTE';

/** The esbuild options of every function bundle; `target` is the Node major that runs it. */
export const BUNDLE_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // The Argon2 native binary is copied beside the bundles that import it.
  loader: { '.node': 'copy' },
  mainFields: BUNDLE_MAIN_FIELDS,
  external: BUNDLE_EXTERNALS,
  logLevel: 'warning',
};

/** The Node major Lambda runs (`LAMBDA_RUNTIME` in the stack), as an esbuild target. */
export const LAMBDA_TARGET = 'node22';

/**
 * esbuild `define` for one function's bundle: an HTTP route's handler gets its own route (what
 * `lib/http/handler.ts` reads: method, path, auth, scope, body limit) as a constant, instead of
 * importing the route table and looking itself up, which put all 52 routes with their summaries
 * (11 KB) into every bundle. Background functions read no route.
 */
export function routeDefine(functionId: string): Record<string, string> {
  const route = ROUTES.find((r) => r.id === functionId);
  return route ? { [ROUTE_CONSTANT]: JSON.stringify(handlerRouteOf(route)) } : {};
}

/** The npm package whose `.node` file the bundles need, per Lambda architecture. */
export const ARGON2_BINARY_PACKAGE: Readonly<Record<LambdaArch, string>> = {
  x86_64: '@node-rs/argon2-linux-x64-gnu',
  arm64: '@node-rs/argon2-linux-arm64-gnu',
};

/**
 * npm installs only this machine's Argon2 binary. A bundle without the Lambda architecture's
 * binary would deploy fine and then fail every password request, so the build stops here instead.
 */
export function assertArgon2BinaryInstalled(arch: LambdaArch, projectRoot: string): void {
  const pkg = ARGON2_BINARY_PACKAGE[arch];
  try {
    require.resolve(pkg, { paths: [projectRoot] });
  } catch {
    const cpu = arch === 'arm64' ? 'arm64' : 'x64';
    throw new Error(
      `The ${arch} Lambdas need ${pkg}, which is not installed. ` +
        `Run: npm i --cpu=${cpu} --os=linux --libc=glibc @node-rs/argon2 (or deploy with -c arch=x86_64).`,
    );
  }
}

/**
 * The Lambda architecture this machine's Node can stand in for (Linux with glibc on x64 or
 * arm64), or `undefined` (macOS, musl): there the bundles keep `@node-rs/argon2`'s own loader,
 * which finds any platform's binary.
 */
export function hostLambdaArch(): LambdaArch | undefined {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  if (process.platform !== 'linux' || !report?.header?.glibcVersionRuntime) return undefined;
  return process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'arm64' : undefined;
}

/** The file the phone functions read their metadata from, beside `index.js`. */
export const PHONE_METADATA_FILE = 'phone-metadata.json.br';

/**
 * Module stubs: parts of the SDK that a function on Lambda never runs. Each answers the way the
 * real module does on the path this service takes, so nothing changes but the size (all of it is
 * measured in `bench/README.md`, "Bundle analysis").
 */
const SDK_STUBS: ReadonlyArray<{ filter: RegExp; importer?: RegExp; why: string; contents: string }> = [
  {
    // Loaded by a dynamic import only for event-stream operations; DynamoDB has none.
    filter: /^@smithy\/core\/event-streams$/,
    why: 'event streams',
    contents:
      'const none = () => { throw new Error("event-stream serde is not bundled: DynamoDB has no event-stream operations"); };' +
      'export const EventStreamSerde = none; export const eventStreamSerdeProvider = none;',
  },
  {
    // The signer's formatter of event-stream message headers, which only `signMessage` uses, for
    // the event streams DynamoDB has none of (above). The signer makes one when it is made.
    filter: /^\.\/HeaderFormatter$/,
    importer: /[\\/]@smithy[\\/]signature-v4[\\/]dist-es[\\/]SignatureV4\.js$/,
    why: 'event-stream signing',
    contents: 'export class HeaderFormatter { format() { throw new Error("event-stream signing is not bundled: DynamoDB has no event-stream operations"); } }',
  },
  {
    // The default credential chain tries the environment, then files, SSO, the container and
    // instance metadata. Lambda (and npm start, the tests, the bench) always put credentials in the
    // environment, so the chain is the environment's provider alone, with its own error when none.
    filter: /^@aws-sdk\/credential-provider-node$/,
    why: 'credential chain',
    contents: 'import { fromEnv } from "@aws-sdk/credential-provider-env"; export const defaultProvider = (init = {}) => fromEnv(init);',
  },
  {
    // DynamoDB endpoint discovery. No command of this client adds its middleware (every command's
    // middleware list is empty), so what the client resolves for it (an endpoint cache, the
    // DescribeEndpoints command, a reader of AWS_ENABLE_ENDPOINT_DISCOVERY) is read by nothing;
    // `test/unit/sdk-trims.test.ts` checks both in the installed SDK.
    filter: /^@aws-sdk\/middleware-endpoint-discovery$/,
    why: 'endpoint discovery',
    contents:
      'export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = { environmentVariableSelector: () => undefined, configFileSelector: () => undefined };' +
      'export const resolveEndpointDiscoveryConfig = (input) => input;',
  },
  {
    // The command the client hands endpoint discovery (above), which no longer takes it.
    filter: /^\.\/commands\/DescribeEndpointsCommand$/,
    importer: /[\\/]@aws-sdk[\\/]client-dynamodb[\\/]dist-es[\\/]DynamoDBClient\.js$/,
    why: 'DescribeEndpoints command',
    contents: 'export class DescribeEndpointsCommand { constructor() { throw new Error("endpoint discovery is not bundled"); } }',
  },
  {
    // S3's endpoint parameters (bucket names, access-point ARNs), resolved only for a client whose
    // service is S3; this one is DynamoDB's.
    filter: /^\.\.\/service-customizations$/,
    importer: /[\\/]@smithy[\\/]core[\\/].*[\\/]middleware-endpoint[\\/]adaptors[\\/]getEndpointFromInstructions\.js$/,
    why: 'S3 endpoint parameters',
    contents: 'export const resolveParamsForS3 = async () => { throw new Error("S3 endpoint parameters are not bundled: the client is DynamoDB\'s"); };',
  },
  {
    // The pure-JS SHA-256 the SDK falls back on where node:crypto has no sha256; Node always has.
    filter: /^\.\/Sha256Js$/,
    importer: /[\\/]@smithy[\\/]core[\\/]/,
    why: 'JS SHA-256 fallback',
    contents: 'export class Sha256Js { constructor() { throw new Error("node:crypto has sha256"); } }',
  },
  {
    // The region from EC2 instance metadata, the last resort when neither AWS_REGION nor a config
    // file names one. Lambda always sets AWS_REGION, and so do npm start, the tests and SAM.
    filter: /getInstanceMetadataRegion$/,
    importer: /[\\/]@smithy[\\/]core[\\/]/,
    why: 'instance-metadata region',
    contents: 'export const getInstanceMetadataRegion = async () => undefined;',
  },
  {
    // The client-side rate limiter of AWS_RETRY_MODE=adaptive. The functions run the standard mode:
    // AWS_RETRY_MODE is not among the variables the stack lets an operator set (`ALLOWED_FUNCTION_ENV`).
    filter: /^\.\.\/util-retry\/AdaptiveRetryStrategy$/,
    importer: /[\\/]@smithy[\\/]core[\\/].*[\\/]middleware-retry[\\/]configurations\.js$/,
    why: 'adaptive retry mode',
    contents:
      'export class AdaptiveRetryStrategy { constructor() { throw new Error("AWS_RETRY_MODE=adaptive is not bundled: the functions retry in the standard mode"); } }',
  },
];

/**
 * AWS's partitions table (`@aws-sdk/core` util-endpoints) as the endpoint rules read it: every
 * partition and region, without the regions' human descriptions ("US East (N. Virginia)"), which no
 * rule reads and which are 40 % of its bytes.
 */
export function partitionsWithoutDescriptions(text: string): string {
  const start = text.indexOf('=');
  const info = JSON.parse(
    text
      .slice(start + 1)
      .trim()
      .replace(/;\s*$/, ''),
  ) as { partitions: { regions: Record<string, Record<string, unknown>> }[] };
  for (const partition of info.partitions) for (const region of Object.values(partition.regions)) delete region.description;
  return `export const partitionsInfo = ${JSON.stringify(info)};`;
}

/** The one line `models/errors.js` of the DynamoDB client starts with. */
const ERRORS_IMPORT = 'import { DynamoDBServiceException as __BaseException } from "./DynamoDBServiceException";';
/** The lines of one exception class of `models/errors.js`, besides its header and its field copies. */
const ERROR_CLASS_LINE =
  /^\s*(?:static shapeId = "[^"]+";|name = "\w+";|\$fault = "\w+";|\$retryable = \{\};|\w+;|constructor\(opts\) \{|super\(\{|name: "\w+",|\$fault: "\w+",|\.\.\.opts,|\}\);|Object\.setPrototypeOf\(this, \w+\.prototype\);|this\.(\w+) = opts\.\1;|\})?\s*$/;

/**
 * The DynamoDB client's exception classes (`models/errors.js`: 35 classes of one pattern, 9.5 KB
 * minified in every bundle) as one function that makes each: the same name, `shapeId`, `$fault`,
 * prototype chain and fields copied from the answer, read from the file itself. A file that is not
 * exactly that pattern (another SDK version) is left as it is (`undefined`).
 */
export function compactErrorClasses(source: string): string | undefined {
  const [head, ...blocks] = source.split(/^export class /m);
  if (head.trim() !== ERRORS_IMPORT || blocks.length === 0) return undefined;
  const lines: string[] = [];
  for (const block of blocks) {
    const name = /^(\w+) extends __BaseException \{\n/.exec(block)?.[1];
    const fault = /^\s*\$fault = "(client|server)";$/m.exec(block)?.[1];
    const body = block.split('\n').slice(1);
    if (!name || !fault || !block.includes(`static shapeId = "com.amazonaws.dynamodb#${name}";`)) return undefined;
    if (!body.every((line) => ERROR_CLASS_LINE.test(line))) return undefined;
    const fields = [...block.matchAll(/this\.(\w+) = opts\.\1;/g)].map((m) => m[1]);
    const retryable = /^\s*\$retryable = \{\};$/m.test(block) ? ', 1' : '';
    lines.push(`export const ${name} = /* @__PURE__ */ define(${JSON.stringify(name)}, "${fault}", ${JSON.stringify(fields)}${retryable});`);
  }
  return [
    ERRORS_IMPORT,
    'function define(name, $fault, fields, retryable) {',
    '  const C = { [name]: class extends __BaseException {',
    '    constructor(opts) {',
    '      super({ name, $fault, ...opts });',
    '      Object.setPrototypeOf(this, C.prototype);',
    '      this.name = name;',
    '      this.$fault = $fault;',
    '      if (retryable) this.$retryable = {};',
    '      for (const field of fields) this[field] = opts[field];',
    '    }',
    '  } }[name];',
    '  C.shapeId = "com.amazonaws.dynamodb#" + name;',
    '  return C;',
    '}',
    ...lines,
  ].join('\n');
}

/** What `@smithy/core`'s `serde/date-utils.js` exports, and the three date forms of an HTTP date it reads. */
const DATE_UTILS_EXPORTS = ['dateToUtcString', 'parseRfc3339DateTime', 'parseRfc3339DateTimeWithOffset', 'parseRfc7231DateTime', 'parseEpochTimestamp'];
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = String.raw`(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?`;
const HTTP_DATES = [
  String.raw`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ${MONTH} (\d{4}) ${TIME} GMT$`,
  String.raw`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-${MONTH}-(\d{2}) ${TIME} GMT$`,
  String.raw`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ( [1-9]|\d{2}) ${TIME} (\d{4})$`,
];

/**
 * The SDK's date (de)serialisers (`@smithy/core` `serde/date-utils.js`, with the number parsers
 * only they use: 5.1 KB in every bundle) as the bundles need them. The JSON codec reads and writes
 * a date only for a member whose shape is a timestamp, and no operation this service sends has one
 * in its input, its output or its errors (`test/unit/sdk-trims.test.ts` walks their schemas), so
 * those four throw. `parseRfc7231DateTime` also reads an HTTP `Retry-After` date for the retry
 * strategy: it is kept, in fewer bytes, and answers every text as the SDK's does (the same date,
 * or a `TypeError`; the test compares both on thousands of texts). `undefined` when the installed
 * file exports or reads anything else (another SDK version): it is then bundled as it is.
 */
export function compactDateUtils(source: string): string | undefined {
  const exported = [...source.matchAll(/^export (?:function|const) (\w+)/gm)].map((m) => m[1]);
  if (exported.join() !== DATE_UTILS_EXPORTS.join() || !HTTP_DATES.every((d) => source.includes(`/${d}/`))) return undefined;
  const [imf, rfc850, asc] = HTTP_DATES;
  return `const MONTHS = ${JSON.stringify(MONTH.slice(1, -1).split('|'))};
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const IMF_FIXDATE = /${imf}/, RFC_850_DATE = /${rfc850}/, ASC_TIME = /${asc}/;
const invalid = () => { throw new TypeError("Invalid RFC-7231 date-time value"); };
const within = (text, lower, upper) => { const n = Number(text); return n >= lower && n <= upper ? n : invalid(); };
const utc = (year, monthName, dayText, [hours, minutes, seconds, fraction]) => {
  const month = MONTHS.indexOf(monthName);
  const day = within(dayText, 1, 31);
  if (day > (month === 1 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS[month])) invalid();
  return new Date(Date.UTC(year, month, day, within(hours, 0, 23), within(minutes, 0, 59), within(seconds, 0, 60), fraction === undefined ? 0 : parseFloat("0." + fraction) * 1000));
};
export const parseRfc7231DateTime = (value) => {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string") throw new TypeError("RFC-7231 date-times must be expressed as strings");
  let m = IMF_FIXDATE.exec(value);
  if (m) return utc(Number(m[3]), m[2], m[1], m.slice(4));
  m = RFC_850_DATE.exec(value);
  if (m) {
    const thisYear = new Date().getUTCFullYear();
    const year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    const d = utc(year < thisYear ? year + 100 : year, m[2], m[1], m.slice(4));
    return d.getTime() - Date.now() > 50 * 365 * 24 * 60 * 60 * 1000
      ? new Date(Date.UTC(d.getUTCFullYear() - 100, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()))
      : d;
  }
  m = ASC_TIME.exec(value);
  if (m) return utc(Number(m[7]), m[1], m[2].trimStart(), m.slice(3, 7));
  return invalid();
};
const none = (name) => () => { throw new Error(name + " is not bundled: no DynamoDB operation this service sends has a timestamp"); };
export const dateToUtcString = none("dateToUtcString"), parseRfc3339DateTime = none("parseRfc3339DateTime"),
  parseRfc3339DateTimeWithOffset = none("parseRfc3339DateTimeWithOffset"), parseEpochTimestamp = none("parseEpochTimestamp");
`;
}

/** Where the HTTP-bindings class of `@smithy/core`'s protocols starts and ends (`HttpBindingNormalizedSchema.js`). */
const HTTP_BINDINGS_CLASS = /^export class HttpBindingNormalizedSchema extends NormalizedSchema \{\n[\s\S]*?^\}\n/m;

/**
 * `HttpBindingNormalizedSchema.js` without its class: what a REST protocol reads of a shape's
 * headers, query and path, 2.7 KB in every bundle. DynamoDB's protocol is RPC (JSON 1.0), which
 * uses the class once: `setHostPrefix`, after returning for an operation with no host prefix, and
 * no DynamoDB operation has one (`test/unit/sdk-trims.test.ts` checks both in the installed SDK).
 * `getHttpOperationBindings`, which reads the prefix, stays as it is. `undefined` when the file
 * has no such class (another SDK version): it is then bundled as it is.
 */
export function withoutHttpBindings(source: string): string | undefined {
  if (source.match(new RegExp(HTTP_BINDINGS_CLASS.source, 'gm'))?.length !== 1 || !source.includes('export const getHttpOperationBindings')) return undefined;
  return source.replace(
    HTTP_BINDINGS_CLASS,
    'export class HttpBindingNormalizedSchema { static of() { throw new Error("HTTP bindings are not bundled: DynamoDB\'s protocol is RPC, and no operation of it has a host prefix"); } }\n',
  );
}

/** The methods of the SDK's SigV4 signer that sign anything but a request, and what each says instead. */
const SIGNER_OTHERS: ReadonlyArray<readonly [method: string, what: string]> = [
  ['presign', 'presigning a URL'],
  ['signEvent', 'signing an event'],
  ['signMessage', 'signing a message'],
  ['signString', 'signing a string'],
];

/**
 * `@smithy/signature-v4`'s `SignatureV4.js` with only what signs a request: the client's signing
 * middleware calls `sign` with the HttpRequest it sends, which `sign` hands to `signRequest` (an
 * HttpRequest is no string, and has no `payload` or `message`); presigning and the event-stream
 * signatures (1.8 KB in every bundle) throw instead. `test/unit/sdk-trims.test.ts` checks that nothing
 * else calls them and that the compacted signer signs requests exactly as the SDK's does.
 * `undefined` when the file does not hold each of them once, or holds `sign` in another form
 * (another SDK version): it is then bundled as it is.
 */
export function requestSignerOnly(source: string): string | undefined {
  const dispatch =
    /^ {4}async sign\(toSign, options\) \{\n\s*if \(typeof toSign === "string"\) \{\n\s*return this\.signString\(toSign, options\);\n\s*\}\n\s*else if \(toSign\.headers && toSign\.payload\) \{\n\s*return this\.signEvent\(toSign, options\);\n\s*\}\n\s*else if \(toSign\.message\) \{\n\s*return this\.signMessage\(toSign, options\);\n\s*\}\n\s*else \{\n\s*return this\.signRequest\(toSign, options\);\n\s*\}\n {4}\}\n/m;
  if (!dispatch.test(source)) return undefined;
  let out = source;
  for (const [method, what] of SIGNER_OTHERS) {
    const body = new RegExp(`^ {4}async ${method}\\(.*\\) \\{\\n[\\s\\S]*?^ {4}\\}\\n`, 'gm');
    if (out.match(body)?.length !== 1) return undefined;
    out = out.replace(body, `    async ${method}() { throw new Error("${what} is not bundled: the functions sign the requests they send"); }\n`);
  }
  return out;
}

/** The one statement of a paginator module of the DynamoDB clients (`pagination/*Paginator.js`). */
const PAGINATOR = /^export const (\w+) = createPaginator\(/m;

/**
 * A paginator module (`paginateQuery = createPaginator(…)`) with its one call marked free of side
 * effects (`createPaginator` only returns a function), so a bundle that never paginates drops it,
 * and with it the Scan command it names: `undefined` for a module of another form.
 */
export function purePaginator(source: string): string | undefined {
  return source.match(new RegExp(PAGINATOR.source, 'gm'))?.length === 1
    ? source.replace(PAGINATOR, 'export const $1 = /* @__PURE__ */ createPaginator(')
    : undefined;
}

/** The SDK stubs, the client's package.json reduced to the version its user agent reads, its exception classes compacted, its paginators pure, its date (de)serialisers compacted, the partitions table without descriptions, the HTTP-bindings class left out, the signer for requests only. */
export function sdkStubs(): Plugin {
  return {
    name: 'sdk-stubs',
    setup(build) {
      for (const stub of SDK_STUBS) {
        // The stub's path is its `why`: what esbuild's metafile lists in place of the module.
        build.onResolve({ filter: stub.filter }, (args) =>
          stub.importer && !stub.importer.test(args.importer) ? undefined : { path: stub.why, namespace: 'sdk-stub', pluginData: args.resolveDir },
        );
      }
      build.onLoad({ filter: /.*/, namespace: 'sdk-stub' }, (args) => ({
        contents: SDK_STUBS.find((stub) => stub.why === args.path)?.contents ?? '',
        loader: 'js',
        resolveDir: args.pluginData as string,
      }));
      build.onLoad({ filter: /[\\/]util-endpoints[\\/]lib[\\/]aws[\\/]partitions\.js$/ }, (args) => ({
        contents: partitionsWithoutDescriptions(readFileSync(args.path, 'utf8')),
        loader: 'js',
      }));
      build.onLoad({ filter: /[\\/]@aws-sdk[\\/]client-dynamodb[\\/]package\.json$/ }, (args) => {
        const { version } = JSON.parse(readFileSync(args.path, 'utf8')) as { version: string };
        return { contents: JSON.stringify({ version }), loader: 'json' };
      });
      build.onLoad({ filter: /[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]serde[\\/]date-utils\.js$/ }, (args) => {
        const compact = compactDateUtils(readFileSync(args.path, 'utf8'));
        return compact === undefined ? undefined : { contents: compact, loader: 'js' };
      });
      build.onLoad({ filter: /[\\/]@aws-sdk[\\/](?:lib|client)-dynamodb[\\/]dist-es[\\/]pagination[\\/]\w+Paginator\.js$/ }, (args) => {
        const pure = purePaginator(readFileSync(args.path, 'utf8'));
        return pure === undefined ? undefined : { contents: pure, loader: 'js' };
      });
      build.onLoad({ filter: /[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]protocols[\\/]HttpBindingNormalizedSchema\.js$/ }, (args) => {
        const trimmed = withoutHttpBindings(readFileSync(args.path, 'utf8'));
        return trimmed === undefined ? undefined : { contents: trimmed, loader: 'js' };
      });
      build.onLoad({ filter: /[\\/]@smithy[\\/]signature-v4[\\/]dist-es[\\/]SignatureV4\.js$/ }, (args) => {
        const trimmed = requestSignerOnly(readFileSync(args.path, 'utf8'));
        return trimmed === undefined ? undefined : { contents: trimmed, loader: 'js' };
      });
      build.onLoad({ filter: /[\\/]@aws-sdk[\\/]client-dynamodb[\\/]dist-es[\\/]models[\\/]errors\.js$/ }, (args) => {
        const compact = compactErrorClasses(readFileSync(args.path, 'utf8'));
        return compact === undefined ? undefined : { contents: compact, loader: 'js' };
      });
    },
  };
}

/** Architectures whose Argon2 binary was found and version-checked, once per build process. */
const argon2Checked = new Set<string>();

/** The Argon2 binary package of an architecture, once checked installed and of the package's version. */
function argon2BinaryChecked(arch: LambdaArch, projectRoot: string): string {
  const pkg = ARGON2_BINARY_PACKAGE[arch];
  if (argon2Checked.has(`${projectRoot}\u0000${arch}`)) return pkg;
  assertArgon2BinaryInstalled(arch, projectRoot);
  const versionOf = (name: string) =>
    (JSON.parse(readFileSync(require.resolve(`${name}/package.json`, { paths: [projectRoot] }), 'utf8')) as { version: string }).version;
  if (versionOf(pkg) !== versionOf('@node-rs/argon2')) {
    throw new Error(`${pkg} ${versionOf(pkg)} is not @node-rs/argon2 ${versionOf('@node-rs/argon2')}: run npm ci`);
  }
  argon2Checked.add(`${projectRoot}\u0000${arch}`);
  return pkg;
}

/**
 * `@node-rs/argon2`'s loader is a 16.6 KB switch over every platform napi-rs builds for; a
 * Lambda bundle needs one: the binary of its architecture, required directly (and copied beside
 * the bundle by the `.node` loader). The binary must be the same version as the package.
 */
function argon2Binary(arch: LambdaArch, projectRoot: string): Plugin {
  return {
    name: 'argon2-binary',
    setup(build) {
      build.onResolve({ filter: /^@node-rs\/argon2$/ }, () => {
        const pkg = argon2BinaryChecked(arch, projectRoot);
        return { path: pkg, namespace: 'argon2-binary', sideEffects: false };
      });
      build.onLoad({ filter: /.*/, namespace: 'argon2-binary' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: projectRoot,
      }));
    },
  };
}

/** The brotli form of the metadata, compressed once per version of the file (six bundles use it). */
const compressed = new Map<string, Buffer>();

function compressedMetadata(path: string): Buffer {
  const version = `${path}\u0000${statSync(path).mtimeMs}`;
  let bytes = compressed.get(version);
  if (!bytes) {
    bytes = brotliCompressSync(readFileSync(path), { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } });
    compressed.set(version, bytes);
  }
  return bytes;
}

/**
 * Parts of libphonenumber-js that `toE164` (`lib/phone/e164.ts`) never runs, each replaced by what
 * that one path needs of it: 6 KB of the eight bundles that take phone numbers (issue 43).
 * `parse` is kept whole, so every number is read and refused exactly as before; a unit test
 * (`test/unit/phone-trims.test.ts`) bundles `toE164` with these and runs the same 1,500 numbers
 * through it as through the full library. Each replaces a file only while the file still holds
 * `marker` (another version of the library is left as it is). The bundles take the library's
 * modern build (below), whose `ParseError` is already a native subclass of `Error`.
 */
export const PHONE_TRIMS: ReadonlyArray<{ file: string; marker: string; why: string; contents: string }> = [
  {
    // `parse` builds a PhoneNumber and `toE164` reads its E.164 form; the class's other methods
    // (national and international formats, type, validity, URI: 8 KB with what they import) never run.
    file: 'PhoneNumber.js',
    marker: "this.number = '+' + this.countryCallingCode + this.nationalNumber;",
    why: 'a phone number as parse makes it, E.164 only',
    contents:
      'export default class PhoneNumber {' +
      ' constructor(countryCallingCode, nationalNumber) { this.countryCallingCode = countryCallingCode; this.nationalNumber = nationalNumber; this.number = "+" + countryCallingCode + nationalNumber; }' +
      ' format(format) { if (format !== "E.164") throw new Error("Only the E.164 format is bundled"); return this.number; }' +
      ' }',
  },
  {
    // `toE164` always passes (text, options, metadata); the overloads' normaliser (2.7 KB) sorts out other shapes.
    file: 'parsePhoneNumberWithError.js',
    marker: 'normalizeArguments(arguments)',
    why: 'parsePhoneNumberWithError(text, options, metadata) only',
    contents:
      'import parse from "./parsePhoneNumberWithError_.js";' +
      'export default function parsePhoneNumberWithError(text, options, metadata) {' +
      ' if (typeof text !== "string") throw new TypeError("A text for parsing must be a string.");' +
      ' if (!options || typeof options !== "object" || !metadata || typeof metadata !== "object") throw new TypeError("Only (text, options, metadata) is bundled");' +
      ' return parse(text, options, metadata); }',
  },
];

/**
 * The methods of libphonenumber-js's metadata classes (`metadata.js`) that `parse` never calls, by
 * class: formatting (formats, their national prefix rules), the deprecated and listing helpers.
 */
export const PHONE_METADATA_UNUSED: Readonly<Record<'Metadata' | 'NumberingPlan', readonly string[]>> = {
  Metadata: ['getCountries', 'defaultIDDPrefix', 'formats', 'hasTypes', 'chooseCountryByCountryCallingCode'],
  NumberingPlan: [
    '_getDefaultCountryMetadataForThisCallingCode',
    'getDefaultCountryMetadataForRegion',
    'defaultIDDPrefix',
    '_getFormats',
    'formats',
    '_getNationalPrefixFormattingRule',
    'nationalPrefixFormattingRule',
    '_getNationalPrefixIsOptionalWhenFormatting',
    'nationalPrefixIsOptionalWhenFormattingInNationalFormat',
  ],
};

/**
 * libphonenumber-js's `metadata.js` (modern build) without `PHONE_METADATA_UNUSED` and the
 * `Format` class only `formats` made: 1.9 KB less in the bundles that take phone numbers. Every
 * method `parse` calls stays as it is; the phone-trims test checks that no file of the bundled
 * library names a method left out, and that the bundles answer every number as the full library.
 * `undefined` when a method or the class is not there once (another version of the library).
 */
export function metadataForParse(source: string): string | undefined {
  const start = (name: string) => source.search(new RegExp(`^(?:export default )?class ${name} \\{$`, 'm'));
  const [metadata, plan, format, type] = ['Metadata', 'NumberingPlan', 'Format', 'Type'].map(start);
  if (!(metadata >= 0 && metadata < plan && plan < format && format < type)) return undefined;
  const method = (name: string) => new RegExp(`^ {2}${name}\\(.*\\) \\{\\n[\\s\\S]*?^ {2}\\}\\n`, 'gm');
  const without = (part: string, names: readonly string[]): string | undefined =>
    names.reduce<string | undefined>((text, name) => (text?.match(method(name))?.length === 1 ? text.replace(method(name), '') : undefined), part);
  const kept = [
    without(source.slice(metadata, plan), PHONE_METADATA_UNUSED.Metadata),
    without(source.slice(plan, format), PHONE_METADATA_UNUSED.NumberingPlan),
  ];
  if (kept.includes(undefined)) return undefined;
  return source.slice(0, metadata) + kept.join('') + source.slice(type);
}

/**
 * What the bundles take for `libphonenumber-js/core` (the one entry `lib/phone/e164.ts` imports):
 * the library's modern build of it, published since 1.13.0, the same source as its `es6` build
 * compiled for ES2015+ without Babel's ES5 helpers (trimmed, 17.5 KB instead of 24.6 KB). It is an
 * export for `import` only, so the tests and `tsx`, which `require` the library, keep the `es6`
 * build: the phone-trims test checks that the bundled one answers as that one does.
 */
export const PHONE_CORE_MODERN = 'libphonenumber-js/core/es6';

/** The `PHONE_TRIMS`, on the library's modern build, as an esbuild plugin. */
export function phoneTrims(): Plugin {
  return {
    name: 'phone-trims',
    setup(build) {
      build.onResolve({ filter: /^libphonenumber-js\/core$/ }, async (args) => {
        const { path, sideEffects, errors } = await build.resolve(PHONE_CORE_MODERN, { kind: args.kind, resolveDir: args.resolveDir });
        return { path, sideEffects, errors };
      });
      build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]es6-modern[\\/]metadata\.js$/ }, (args) => {
        const trimmed = metadataForParse(readFileSync(args.path, 'utf8'));
        return trimmed === undefined ? undefined : { contents: trimmed, loader: 'js', resolveDir: dirname(args.path) };
      });
      build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]es6-modern[\\/](PhoneNumber|parsePhoneNumberWithError)\.js$/ }, (args) => {
        const trim = PHONE_TRIMS.find((t) => args.path.endsWith(t.file) && /[\\/]es6-modern[\\/]$/.test(args.path.slice(0, -t.file.length)));
        if (!trim || !readFileSync(args.path, 'utf8').includes(trim.marker)) return undefined;
        return { contents: trim.contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * The phone metadata (`lib/phone/metadata.json`, 31 KB as a JS object literal) is data: it goes
 * beside the bundle brotli-compressed (8 KB) and is read once, when the bundle loads. Only the
 * bundles that parse phone numbers keep the module (it is marked free of side effects, so the
 * others drop it) and get the file.
 */
function phoneMetadataFile(): Plugin {
  return {
    name: 'phone-metadata-file',
    setup(build) {
      const outfile = build.initialOptions.outfile ?? '';
      let metadataPath: string | undefined;
      build.onResolve({ filter: /^\.\/metadata\.json$/ }, (args) => {
        if (!/[\\/]lib[\\/]phone$/.test(args.resolveDir)) return undefined;
        metadataPath = join(args.resolveDir, 'metadata.json');
        return { path: metadataPath, namespace: 'phone-metadata', sideEffects: false };
      });
      build.onLoad({ filter: /.*/, namespace: 'phone-metadata' }, () => ({
        contents:
          'const { readFileSync } = require("node:fs"); const { join } = require("node:path"); const { brotliDecompressSync } = require("node:zlib");' +
          `module.exports = JSON.parse(brotliDecompressSync(readFileSync(join(__dirname, ${JSON.stringify(PHONE_METADATA_FILE)}))).toString("utf8"));`,
        loader: 'js',
      }));
      build.onEnd((result) => {
        if (result.errors.length > 0 || metadataPath === undefined || !readFileSync(outfile, 'utf8').includes(PHONE_METADATA_FILE)) return;
        writeFileSync(join(dirname(outfile), PHONE_METADATA_FILE), compressedMetadata(metadataPath));
      });
    },
  };
}

/** Where the bundles run: Lambda on an architecture, or this machine (`npm start`, the tests). */
export interface BundlePlatform {
  /** The Argon2 binary to bundle; `undefined` keeps the package's loader (a non-Lambda host). */
  readonly arch: LambdaArch | undefined;
  /** esbuild target: `node22` for Lambda, this Node's major for local runs. */
  readonly target: string;
}

/** The esbuild options of one function's bundle: entry file relative to `projectRoot`. */
export function functionBundleOptions(
  functionId: string,
  entry: string,
  outDir: string,
  platform: BundlePlatform,
  projectRoot = resolve(__dirname, '..'),
): BuildOptions {
  return {
    ...BUNDLE_OPTIONS,
    target: platform.target,
    define: routeDefine(functionId),
    entryPoints: [join(projectRoot, entry)],
    outfile: join(outDir, functionId, 'index.js'),
    plugins: [sdkStubs(), phoneTrims(), phoneMetadataFile(), ...(platform.arch ? [argon2Binary(platform.arch, projectRoot)] : [])],
  };
}
