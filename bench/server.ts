import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../local/create-table';
import { startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local';
import { TEST_API_KEY } from '../test/support/api';
import { ROOT } from './figure';

/**
 * The run's shared DynamoDB Local (in memory), started once before the first figure that needs
 * it: `startApi` makes each server's table on it (`TEST_DYNAMODB_ENDPOINT`, as jest's global
 * setup sets it for the tests).
 */
export async function startSharedDynamo(): Promise<DynamoDbLocal> {
  const dynamo = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  const client = new DynamoDBClient({ endpoint: dynamo.endpoint });
  await ensureTable(client, 'bench-probe');
  client.destroy();
  return dynamo;
}

/**
 * A handler bundle (`dist/functions/<id>`) loaded in this process and invoked with API Gateway's
 * event, as a Lambda invocation runs it: the service's own cost without the local server's HTTP
 * hop (fetch, Node's HTTP server, loopback; in AWS, API Gateway's hop is outside the function).
 * `env` is its configuration, set on this process until `restore()` (a bundle reads it at its
 * first invocation, its SDK client at each call's endpoint resolution). Its log and metric lines
 * are dropped, not written: this process's stdout carries the tables.
 */
export function inProcessHandler(id: string, env: Record<string, string>) {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const { handler } = require(join(ROOT, 'dist', 'functions', id, 'index.js')) as {
    handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
  };
  return {
    invoke: async ({ path, body }: { path: string; body: unknown }): Promise<{ status: string | number; json?: any }> => {
      const event = {
        version: '2.0',
        rawPath: path,
        headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        isBase64Encoded: false,
        requestContext: { http: { method: 'POST', path } },
      };
      const write = process.stdout.write;
      process.stdout.write = (() => true) as typeof process.stdout.write;
      try {
        const result = await handler(event, { awsRequestId: randomUUID() });
        if (result.statusCode !== 200) return { status: result.statusCode };
        const json = JSON.parse(result.body ?? '{}') as { status: string };
        return { status: json.status, json };
      } finally {
        process.stdout.write = write;
      }
    },
    restore: () => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}

/**
 * Waits until no bulk row is `NEW` or `PROCESSING`. Each count reads the 288 counter items on the
 * DynamoDB Local the worker writes to, on the same two cores: asked ten times a second throughout
 * (as this did at first), the counts took CPU from the very import they timed. So once a second
 * while many rows are left, ten times a second for the last few hundred (the time is exact to
 * about 0.1 s either way).
 */
export async function untilNoRowLeft(count: (status: string) => Promise<number>): Promise<void> {
  for (;;) {
    const left = (await count('NEW')) || (await count('PROCESSING'));
    if (left === 0) return;
    await new Promise((r) => setTimeout(r, left > 300 ? 1000 : 100));
  }
}
