/**
 * Reads SSM Parameter Store SecureStrings through the AWS Parameters and Secrets Lambda Extension
 * (a layer the stack attaches to every function that reads a secret): a GET on its localhost port
 * instead of the SSM client. The SDK's SSM client and the signing and serialisation code only it
 * used weighed about 90 KB in every bundle (issue #15, bench/README.md figure 4); the extension
 * makes the same `ssm:GetParameter` call with the function's role.
 *
 * The extension answers only while a request is handled (not during a cold start's init), which
 * is when the configuration is first loaded.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** Reads parameters by name; a parameter that does not exist is absent from the result. */
export type ParameterReader = (names: readonly string[]) => Promise<Record<string, string>>;

/** The extension's default port (`PARAMETERS_SECRETS_EXTENSION_HTTP_PORT`). */
export const EXTENSION_DEFAULT_PORT = 2773;

/** The extension answers from its cache or one SSM call; past this it is stuck. */
const EXTENSION_TIMEOUT_MS = 3000;

/** A parameter could not be read: an operator error (missing grant, no layer), answered 500. */
export class ParameterReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParameterReadError';
  }
}

/**
 * A reader asking the extension on `localhost:<PARAMETERS_SECRETS_EXTENSION_HTTP_PORT>`, with
 * decryption, authenticated by the function's session token as the extension requires. All names
 * are read in parallel. A name SSM does not know (`ParameterNotFound`) is absent, so a stage
 * without its API keys fails closed; any other failure throws (and the next request tries again).
 */
export function extensionParameterReader(env: Env): ParameterReader {
  const port = Number(env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? EXTENSION_DEFAULT_PORT);
  const read = async (name: string): Promise<[string, string] | undefined> => {
    const url = `http://localhost:${port}/systemsmanager/parameters/get?name=${encodeURIComponent(name)}&withDecryption=true`;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { 'X-Aws-Parameters-Secrets-Token': env.AWS_SESSION_TOKEN ?? '' },
        signal: AbortSignal.timeout(EXTENSION_TIMEOUT_MS),
      });
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new ParameterReadError(`The Parameters and Secrets extension does not answer on port ${port} (${code}): is its layer attached?`);
    }
    const text = await res.text();
    if (res.ok) {
      const value = (JSON.parse(text) as { Parameter?: { Value?: unknown } }).Parameter?.Value;
      if (typeof value !== 'string') throw new ParameterReadError(`The Parameters and Secrets extension answered parameter ${name} without a value`);
      return [name, value];
    }
    // The extension passes SSM's error on; its text names the parameter, never a value.
    if (text.includes('ParameterNotFound')) return undefined;
    throw new ParameterReadError(`Reading parameter ${name} through the Parameters and Secrets extension failed: ${res.status} ${text.slice(0, 200)}`);
  };
  return async (names) => Object.fromEntries((await Promise.all(names.map(read))).filter((e): e is [string, string] => e !== undefined));
}
