import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, tableProblems, type ApiResponse } from '../support/api';
import { startCountingProxy } from '../support/dynamo-proxy';
import { uniqueEmail } from '../support/flows';

const HASH = '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq';
const REQUEST_ID_TEXT = /^Internal error \(request id [0-9a-f-]{36}\)$/;

describe('DynamoDB stopped in the middle of a stream of imports', () => {
  it('answers 5xx with a request id while it is down, leaves no partial user, and recovers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faults-'));
    const port = await freePort();
    let dynamo: DynamoDbLocal = await startDynamoDbLocal({ port, dbPath: dir });
    const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
    const results: { email: string; res: ApiResponse }[] = [];
    let phase = 'up' as 'up' | 'down' | 'back';
    const stream = (async () => {
      let i = 0;
      while (phase !== 'back' || results.filter((r) => r.res.status === 200).length < 40) {
        const batch = Array.from({ length: 4 }, () => uniqueEmail(`stream${i++}`));
        const answers = await Promise.all(batch.map((email) => api.post('/recipe/user/passwordhash/import', { email, passwordHash: HASH })));
        answers.forEach((res, k) => results.push({ email: batch[k], res }));
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 400));
      phase = 'down';
      await dynamo.stop();
      await new Promise((r) => setTimeout(r, 1500));
      const downAnswers = results.length;
      dynamo = await startDynamoDbLocal({ port, dbPath: dir });
      phase = 'back';
      await stream;

      const failed = results.filter((r) => r.res.status !== 200);
      expect(failed.length).toBeGreaterThan(0);
      for (const { res } of failed) {
        expect(res.status).toBe(500);
        expect(res.text).toMatch(REQUEST_ID_TEXT);
        expect(res.headers.get('x-request-id')).toBe(res.text.slice(-37, -1));
      }
      expect(results.slice(downAnswers).some((r) => r.res.status === 200)).toBe(true);
      for (const { email, res } of results.filter((r) => r.res.status === 200).slice(-5)) {
        const signin = await api.post('/recipe/signin', { email, password: 'testPass123' });
        expect(signin.json.user.id).toBe(res.json.user.id);
      }
      expect(await tableProblems(api.tableName, dynamo.endpoint)).toEqual([]);
      const logs = api.logs.filter((l) => l.includes('"level":"error"'));
      expect(logs.length).toBeGreaterThan(0);
      expect(logs.every((l) => !l.includes(HASH))).toBe(true);
    } finally {
      phase = 'back';
      await api.stop();
      await dynamo.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('DynamoDB throttling', () => {
  it('is retried by the SDK, and answers 503 (not 500) when the retries run out', async () => {
    const proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT as string);
    const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
    try {
      proxy.throttleNext(2);
      const retried = await api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('throttled'), passwordHash: HASH });
      expect(retried.status).toBe(200);
      expect(retried.json.status).toBe('OK');

      proxy.throttleNext(Infinity);
      const shed = await api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('shed'), passwordHash: HASH });
      expect(shed.status).toBe(503);
      expect(shed.text).toMatch(/^Service is busy, try again later \(request id [0-9a-f-]{36}\)$/);
      proxy.throttleNext(0);
      expect((await api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('after'), passwordHash: HASH })).status).toBe(200);
    } finally {
      await api.stop();
      await proxy.close();
    }
  });

  it('of a transaction (cancelled for capacity, which the SDK does not retry) is retried, and answers 503 when it goes on', async () => {
    const proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT as string);
    const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
    try {
      // The import of a new email is one TransactWriteItems (the user and its email guard).
      proxy.cancelTransactionsNext(2);
      const email = uniqueEmail('cancelled');
      const retried = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: HASH });
      expect(proxy.cancelled.count).toBe(2);
      expect(retried.status).toBe(200);
      expect(retried.json).toMatchObject({ status: 'OK', didUserAlreadyExist: false });
      expect((await api.post('/recipe/signin', { email, password: 'testPass123' })).json.user.id).toBe(retried.json.user.id);

      proxy.cancelTransactionsNext(Infinity);
      const shed = await api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('cancelled-shed'), passwordHash: HASH });
      expect(shed.status).toBe(503);
      expect(shed.text).toMatch(/^Service is busy, try again later \(request id [0-9a-f-]{36}\)$/);
      expect(api.logs.some((l) => l.includes('"level":"warn"') && l.includes('storage throttled') && l.includes('TransactionCanceledException'))).toBe(true);

      proxy.cancelTransactionsNext(0);
      expect((await api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('cancelled-after'), passwordHash: HASH })).status).toBe(200);
    } finally {
      await api.stop();
      await proxy.close();
    }
  });
});
