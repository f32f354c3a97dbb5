import { build } from 'esbuild';
import { createHash, createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpRequest } from '@smithy/core/protocols';
import { BUNDLE_OPTIONS, requestSignerOnly, sdkStubs } from '../../infra/bundling';

/**
 * The SDK's SigV4 signer as the bundles carry it (`requestSignerOnly`): only what signs a request.
 * Nothing in the SDK the functions bundle calls the methods it leaves out, and it signs requests
 * exactly as the SDK's signer does.
 */

const ROOT = join(__dirname, '../..');
const MODULES = join(ROOT, 'node_modules');
const SIGNER = join(MODULES, '@smithy/signature-v4/dist-es/SignatureV4.js');
const LEFT_OUT = ['presign', 'signEvent', 'signMessage', 'signString'];

/** Every `.js` file of the ES builds the functions bundle from the SDK. */
function bundledSdkSources(): { path: string; text: string }[] {
  return ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/core', '@aws-sdk/dynamodb-codec', '@smithy']
    .flatMap((dir) => readdirSync(join(MODULES, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)))
    .filter((f) => f.endsWith('.js') && /[\\/]dist-es[\\/]/.test(f))
    .map((f) => ({ path: f.replace(/\\/g, '/'), text: readFileSync(join(MODULES, f), 'utf8') }));
}

/** The signer's SHA-256 over node:crypto (an HMAC when given a key), as the SDK's `Hash` is. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | Uint8Array) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', Buffer.from(secret as Uint8Array));
  }
  update(data: string | Uint8Array): void {
    this.hash.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

type Signer = {
  sign(request: unknown, options: object): Promise<{ headers: Record<string, string> }>;
  presign(request: unknown, options?: object): Promise<unknown>;
};
type SignerClass = new (init: object) => Signer;

/** `SignatureV4` bundled with the SDK stubs of the functions or without, with its size. */
async function bundledSigner(stubbed: boolean): Promise<{ SignatureV4: SignerClass; bytes: number }> {
  const out = await build({
    ...BUNDLE_OPTIONS,
    loader: {},
    target: 'node22',
    stdin: { contents: 'export { SignatureV4 } from "@smithy/signature-v4";', resolveDir: ROOT, loader: 'js' },
    write: false,
    plugins: stubbed ? [sdkStubs()] : [],
  });
  const module = { exports: {} as { SignatureV4: SignerClass } };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(module, module.exports, require);
  return { SignatureV4: module.exports.SignatureV4, bytes: out.outputFiles[0].text.length };
}

describe("the SDK's request signer in the bundles", () => {
  it('leaves out only what nothing but `sign` calls, for what is no HttpRequest', () => {
    const sources = bundledSdkSources();
    expect(sources.length).toBeGreaterThan(500);
    const callers = sources.filter((s) => new RegExp(`\\.(${LEFT_OUT.join('|')})\\(`).test(s.text));
    expect(callers.map((s) => s.path)).toEqual(['@smithy/signature-v4/dist-es/SignatureV4.js']);
    const source = readFileSync(SIGNER, 'utf8');
    const trimmed = requestSignerOnly(source) as string;
    // In the signer, `sign` alone calls them (`signEvent` called `signString`, `signMessage` `signEvent`); nothing presigns.
    const calls = (method: string) => trimmed.match(new RegExp(`this\\.${method}\\(`, 'g'))?.length ?? 0;
    expect(LEFT_OUT.map(calls)).toEqual([0, 1, 1, 1]);
    expect(trimmed).toContain('return this.signRequest(toSign, options);');
    // The request the signing middleware hands `sign`: no string, no `payload`, no `message`.
    const request = new HttpRequest({ method: 'POST', headers: { 'content-type': 'application/x-amz-json-1.0' }, body: '{}' });
    expect(Object.keys(request).filter((k) => k === 'payload' || k === 'message')).toEqual([]);
    // Another form of the file is bundled as it is.
    expect(requestSignerOnly(source.replace('async presign(', 'async presignUrl('))).toBeUndefined();
    expect(requestSignerOnly(source.replace('else if (toSign.message)', 'else if (toSign.message !== undefined)'))).toBeUndefined();
  });

  it('signs every request as the SDK does, in 1.5 KB less', async () => {
    const [trimmed, whole] = await Promise.all([bundledSigner(true), bundledSigner(false)]);
    const signingDate = new Date('2026-11-24T10:11:12Z');
    const requests = [
      { body: '{"TableName":"auth-core","Key":{"pk":{"S":"USER#a"},"sk":{"S":"LM#a"}}}', target: 'DynamoDB_20120810.GetItem' },
      { body: '{"TransactItems":[]}', target: 'DynamoDB_20120810.TransactWriteItems' },
      { body: '', target: 'DynamoDB_20120810.ListTables' },
      { body: '{"S":"é ✓ 🙂"}', target: 'DynamoDB_20120810.PutItem' },
    ];
    const sessions = [{}, { sessionToken: 'token/with+chars=' }];
    let signed = 0;
    for (const { body, target } of requests) {
      for (const session of sessions) {
        const headers = async (Signer: SignerClass) => {
          const signer = new Signer({
            credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', ...session },
            region: 'eu-west-1',
            service: 'dynamodb',
            sha256: Sha256,
          });
          const request = new HttpRequest({
            method: 'POST',
            protocol: 'https:',
            hostname: 'dynamodb.eu-west-1.amazonaws.com',
            path: '/',
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target, host: 'dynamodb.eu-west-1.amazonaws.com' },
            body,
          });
          return (await signer.sign(request, { signingDate })).headers;
        };
        const [a, b] = await Promise.all([headers(trimmed.SignatureV4), headers(whole.SignatureV4)]);
        expect(a).toEqual(b);
        expect(a.authorization).toMatch(
          /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261124\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/,
        );
        signed++;
      }
    }
    expect(signed).toBe(8);
    const signer = new trimmed.SignatureV4({
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      region: 'eu-west-1',
      service: 'dynamodb',
      sha256: Sha256,
    });
    await expect(signer.presign(new HttpRequest({}))).rejects.toThrow('presigning a URL is not bundled');
    expect(whole.bytes - trimmed.bytes).toBeGreaterThan(1500);
  });
});
