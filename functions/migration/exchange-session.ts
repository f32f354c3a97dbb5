import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { TextReply } from '../../lib/http/response';
import { exchangeToken } from '../../lib/session-exchange/exchange';
import { KeysUnavailableError } from '../../lib/session-exchange/issuer-keys';
import { createIssuerLoader } from '../../lib/config/session-exchange-issuers';
import { countMetric } from '../../lib/log/metrics';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

const MAX_TOKEN_LENGTH = 16_384;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const issuersOfStage = createIssuerLoader();

/** One count per exchange by issuer id (`-` when none matched) and outcome: the migration dashboard's. */
function countExchange(issuer: string | undefined, outcome: string): void {
  countMetric('SessionExchanges', { Issuer: issuer ?? '-', Outcome: outcome });
}

/**
 * `POST [/<t>]/recipe/migration/session/exchange` `{"token","issuer"?}`, header `Idempotency-Key`?
 * (SPEC §19). One log line and one `SessionExchanges` count per exchange name the issuer and the
 * outcome, never the token.
 */
export const handle: ApiHandler<'users' | 'sessions'> = async (req, deps) => {
  const token = req.body.token;
  if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_LENGTH) throw new BadRequestError("Field name 'token' is invalid in JSON input");
  const issuer = req.body.issuer;
  if (issuer !== undefined && (typeof issuer !== 'string' || issuer === '')) throw new BadRequestError("Field name 'issuer' is invalid in JSON input");
  const idempotencyKey = req.headers['idempotency-key'];
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new BadRequestError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  const issuers = await issuersOfStage();
  if (issuers.length === 0) throw new BadRequestError('Session exchange is not configured');
  try {
    const { result, issuerId } = await exchangeToken(deps, issuers, req.tenantId, { token, issuer: issuer as string | undefined, idempotencyKey });
    req.log.info('session exchange', { issuer: issuerId, outcome: result.status, ...('reason' in result ? { reason: result.reason } : {}) });
    countExchange(issuerId, result.status);
    return result;
  } catch (err) {
    if (!(err instanceof KeysUnavailableError)) throw err;
    req.log.warn('session exchange keys unavailable', { issuer: err.issuerId, cause: err.causeText, outcome: 'KEYS_UNAVAILABLE' });
    countExchange(err.issuerId, 'KEYS_UNAVAILABLE');
    return new TextReply(503, err.message);
  }
};
export const handler = createHttpHandler('session-exchange', { users: DynamoUserStore, sessions: DynamoSessionStore }, handle);
