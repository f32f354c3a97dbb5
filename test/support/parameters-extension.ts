import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the AWS Parameters and Secrets Lambda Extension on a free localhost port, speaking
 * its HTTP interface (`GET /systemsmanager/parameters/get?name=…&withDecryption=true` with the
 * session token in `X-Aws-Parameters-Secrets-Token`; `{"Parameter":{"Name","Value",…}}`), and
 * passing SSM's errors on as the extension does (`… api error ParameterNotFound: …`). No emulator
 * of the extension exists; this is the interface `lib/config/parameters.ts` is written against.
 */
export interface ParametersExtension {
  /** `PARAMETERS_SECRETS_EXTENSION_HTTP_PORT` and `AWS_SESSION_TOKEN` for the reader. */
  readonly env: { PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: string; AWS_SESSION_TOKEN: string };
  /** Every request: the parameter name, whether decryption was asked, the token presented. */
  readonly requests: { name: string | null; withDecryption: string | null; token: string | undefined }[];
  /** The next `n` requests answer 500, as when SSM throttles the extension. */
  failNext(n: number): void;
  close(): Promise<void>;
}

export async function startParametersExtension(parameters: Readonly<Record<string, string>>, token = 'session-token-1'): Promise<ParametersExtension> {
  const requests: ParametersExtension['requests'] = [];
  let failing = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const name = url.searchParams.get('name');
    const given = req.headers['x-aws-parameters-secrets-token'];
    requests.push({ name, withDecryption: url.searchParams.get('withDecryption'), token: typeof given === 'string' ? given : undefined });
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'text/plain' });
      res.end(body);
    };
    if (url.pathname !== '/systemsmanager/parameters/get' || name === null) return answer(400, 'bad request');
    if (given !== token) return answer(401, 'not authorized');
    if (failing > 0) {
      failing--;
      return answer(
        500,
        'an unexpected error occurred: operation error SSM: GetParameter, exceeded maximum number of attempts, 3, api error ThrottlingException: Rate exceeded',
      );
    }
    if (!Object.hasOwn(parameters, name)) {
      return answer(
        400,
        `an unexpected error occurred: operation error SSM: GetParameter, https response error StatusCode: 400, RequestID: 0000, api error ParameterNotFound: `,
      );
    }
    answer(200, JSON.stringify({ Parameter: { Name: name, Type: 'SecureString', Value: parameters[name], Version: 1 }, ResultMetadata: {} }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    env: { PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(port), AWS_SESSION_TOKEN: token },
    requests,
    failNext: (n) => {
      failing = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
