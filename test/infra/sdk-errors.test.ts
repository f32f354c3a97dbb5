import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { runInNewContext } from 'node:vm';
import { compactErrorClasses } from '../../infra/bundling';

/*
 * The DynamoDB client's exception classes as the bundles carry them (`compactErrorClasses`): every
 * class the same as the SDK's own, by what the SDK and this service read of an error.
 */

const ERRORS = require.resolve('@aws-sdk/client-dynamodb/dist-es/models/errors.js', { paths: [process.cwd()] });

type Classes = Record<string, new (opts: Record<string, unknown>) => Error & Record<string, unknown>> & { base: new (...args: never[]) => Error };

/** The module (the SDK's file or its compacted form) bundled as CommonJS and loaded, with its base class. */
async function load(contents: string): Promise<Classes> {
  const out = await build({
    stdin: {
      contents: `${contents}\nexport { DynamoDBServiceException as base } from "./DynamoDBServiceException";`,
      resolveDir: dirname(ERRORS),
      loader: 'js',
    },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const module = { exports: {} as Classes };
  runInNewContext(out.outputFiles[0].text, { module, exports: module.exports, require, Object, Error, Symbol, console });
  return module.exports;
}

/** What can be seen of an instance: its own properties in order, class, prototype chain, fields. */
function shape(classes: Classes, name: string, opts: Record<string, unknown>) {
  const C = classes[name];
  const e = new C(opts);
  // Not `C.name`: minified bundles rename the SDK's classes anyway; the SDK reads `e.name`.
  return {
    shapeId: (C as unknown as { shapeId: string }).shapeId,
    keys: Object.keys(e),
    values: JSON.stringify(e),
    name: e.name,
    message: e.message,
    fault: e.$fault,
    retryable: e.$retryable,
    metadata: e.$metadata,
    isItself: e instanceof C,
    isBase: e instanceof classes.base,
    isError: e instanceof Error || Object.prototype.toString.call(e) === '[object Error]',
  };
}

describe('compactErrorClasses', () => {
  const source = readFileSync(ERRORS, 'utf8');

  it('keeps every exception class of the SDK as it is, and the bundle smaller', async () => {
    const compact = compactErrorClasses(source);
    expect(compact).toBeDefined();
    const [original, compacted] = await Promise.all([load(source), load(compact as string)]);
    const names = Object.keys(original).filter((k) => k !== 'base');
    expect(names.length).toBeGreaterThan(30);
    expect(Object.keys(compacted).sort()).toEqual(Object.keys(original).sort());
    const opts = {
      message: 'the message',
      $metadata: { httpStatusCode: 400, requestId: 'r' },
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
      Item: { pk: { S: 'a' } },
      ThrottlingReasons: [{ reason: 'x' }],
      throttlingReasons: [{ reason: 'y' }],
      other: 'not copied',
    };
    for (const name of names) expect(shape(compacted, name, opts)).toEqual(shape(original, name, opts));
    expect((compact as string).length).toBeLessThan(source.length / 3);
  });

  it('leaves a file of another pattern as it is', () => {
    expect(compactErrorClasses(source.replace('$fault = "client";', '$fault = "client"; extra = 1;'))).toBeUndefined();
    expect(compactErrorClasses(`// another header\n${source}`)).toBeUndefined();
  });
});
