import { parseIssuerLists, type ExchangeIssuer } from '../session-exchange/issuers';
import { readParametersAsConfig, refreshingLoader } from './config';
import { extensionParameterReader, type ParameterReader } from './parameters';

/**
 * Where the session exchange's issuers come from (the environment and SSM, read only here); what
 * they are and how a list is checked is `lib/session-exchange/issuers.ts`.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** Parses and checks `SESSION_EXCHANGE_ISSUERS`; absent or `[]`: no issuer. */
export function sessionExchangeFromEnv(env: Env): ExchangeIssuer[] {
  return parseIssuerLists([{ source: 'SESSION_EXCHANGE_ISSUERS', json: env.SESSION_EXCHANGE_ISSUERS }], env);
}

/**
 * The issuers of this function: `SESSION_EXCHANGE_ISSUERS` (locally, and in AWS the stage's
 * `sessionExchangeIssuers` context) followed by the SSM parameter named by
 * `SESSION_EXCHANGE_ISSUERS_PARAMETER` when the stack set one and the operator created it (where
 * an issuer with an inline `secret` belongs). Re-read like the secrets (`refreshingLoader`), so a
 * changed parameter reaches warm functions. Apart from `configFromEnv`: only the exchange function
 * carries this parser (about 6 KB of every bundle otherwise). A malformed list throws the
 * `ConfigError` (a 500 naming it; `npm start` refuses to start).
 */
export function createIssuerLoader(
  env: Env = process.env,
  readParameters: ParameterReader = extensionParameterReader(env),
  now: () => number = Date.now,
): () => Promise<readonly ExchangeIssuer[]> {
  const parameter = env.SESSION_EXCHANGE_ISSUERS_PARAMETER;
  return refreshingLoader(async () => {
    const fromSsm = parameter ? await readParametersAsConfig(readParameters, [parameter]) : {};
    return parseIssuerLists(
      [
        { source: 'SESSION_EXCHANGE_ISSUERS', json: env.SESSION_EXCHANGE_ISSUERS },
        ...(parameter ? [{ source: `Parameter ${parameter}`, json: fromSsm[parameter] }] : []),
      ],
      env,
    );
  }, now);
}
