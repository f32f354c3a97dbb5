import { createServer, request, type Server, type ServerResponse } from 'node:http';

/**
 * A pass-through proxy in front of DynamoDB Local that counts requests by operation
 * (`X-Amz-Target`), so the benchmarks report how many DynamoDB calls each API operation makes
 * from what went over the wire, not from reading the code. It can also answer the next requests
 * with DynamoDB's `ThrottlingException`, as DynamoDB does when it sheds load, cancel transactions
 * as DynamoDB does when an item's table or index is short of capacity, and answer Queries
 * of an index itself, to stand in for an index lagging its table (DynamoDB Local's never lag),
 * and drop the answers of writes it passed on.
 */
export interface CountingProxy {
  readonly endpoint: string;
  readonly counts: Map<string, number>;
  /**
   * Items written, by kind: `transactional` (each item of a TransactWriteItems) and `single`
   * (PutItem, UpdateItem, DeleteItem). DynamoDB bills a transactional item twice.
   */
  readonly writes: { transactional: number; single: number };
  /** Items of TransactWriteItems (puts, updates, deletes and condition checks) by partition key. */
  readonly transactionKeys: Map<string, number>;
  reset(): void;
  /**
   * Answers the next `n` requests with a ThrottlingException (Infinity: until set to 0); with
   * `only`, just the requests whose operation it accepts (`X-Amz-Target` without the DynamoDB
   * prefix, so the Streams API's are `DynamoDBStreams_20120810.<operation>`).
   */
  throttleNext(n: number, only?: (operation: string) => boolean): void;
  /**
   * Answers the next `n` TransactWriteItems whose items `only` accepts (each as sent, in
   * DynamoDB's JSON) with a `TransactionCanceledException` whose first item's reason is `code`
   * (`ThrottlingError`: the item's table or index is short of capacity) and the others' `None`,
   * without passing them on. `cancelled` counts them.
   */
  cancelTransactionsNext(n: number, only?: (items: Record<string, unknown>[]) => boolean, code?: string): void;
  readonly cancelled: { count: number };
  /**
   * Stands in for a table's provisioned write capacity: `unitsPerSecond` write units, refilled
   * continuously into a bucket of one second's worth (at least 250, so the largest transaction
   * fits). A write the bucket cannot pay for is refused as DynamoDB refuses it: a transaction
   * cancelled with `ThrottlingError`, a single or batch write with
   * `ProvisionedThroughputExceededException`. A write costs 1 unit per item, 2 inside a transaction
   * (items taken as at most 1 KB; GSI copies not counted). `undefined` lifts the limit.
   */
  limitWriteUnits(unitsPerSecond: number | undefined): void;
  /** Write units paid for (the writes passed on) and refused, since the proxy started. */
  readonly writeUnits: { consumed: number; refused: number };
  /**
   * Answers each Query of an index (`IndexName` set) for which `answer` gives a body (in
   * DynamoDB's JSON), instead of DynamoDB; `undefined` stops it.
   */
  answerIndexQueries(answer: ((request: Record<string, unknown>) => Record<string, unknown> | undefined) | undefined): void;
  /**
   * Forwards the next `n` requests whose operation `only` accepts to DynamoDB, waits for its
   * answer, and then cuts the connection instead of passing the answer on: the write is done,
   * the caller never hears of it (a reply lost on the network, or a Lambda killed just after the
   * call). `dropped` counts them.
   */
  dropRepliesNext(n: number, only: (operation: string) => boolean): void;
  readonly dropped: { count: number };
  /** Each request as it arrived (operation, `performance.now()` of this process), since the last `reset`. */
  readonly arrivals: { operation: string; at: number }[];
  /**
   * What went over the wire since the last `reset`, in order: each request as it arrived and as
   * its answer left (`n`: the request's place in `arrivals`).
   */
  readonly wire: { event: 'request' | 'answer'; operation: string; n: number }[];
  /**
   * Whether the `i`-th and `j`-th requests since the last `reset` were in flight together: each
   * arrived before the other's answer left (the caller sent the second without waiting for the
   * first). Order on the wire, not time.
   */
  together(i: number, j: number): boolean;
  total(): number;
  close(): Promise<void>;
}

/**
 * `latencyMs` delays every request, to stand in for the network round trip to DynamoDB in AWS
 * (DynamoDB Local on loopback answers in well under a millisecond of network time).
 */
export async function startCountingProxy(target: string, latencyMs = 0): Promise<CountingProxy> {
  const upstream = new URL(target);
  const counts = new Map<string, number>();
  const writes = { transactional: 0, single: 0 };
  const transactionKeys = new Map<string, number>();
  const dropped = { count: 0 };
  let dropNext = 0;
  let dropOnly: ((operation: string) => boolean) | undefined;
  let throttle = 0;
  let throttleOnly: ((operation: string) => boolean) | undefined;
  const cancelled = { count: 0 };
  let cancel: { n: number; only?: (items: Record<string, unknown>[]) => boolean; code: string } = { n: 0, code: 'ThrottlingError' };
  const writeUnits = { consumed: 0, refused: 0 };
  let capacity: { rate: number; size: number; tokens: number; at: number } | undefined;
  /** Whether the capacity (if limited) pays for `cost` write units now; counts them either way. */
  const payFor = (cost: number): boolean => {
    if (capacity) {
      const now = performance.now();
      capacity.tokens = Math.min(capacity.size, capacity.tokens + ((now - capacity.at) / 1000) * capacity.rate);
      capacity.at = now;
      if (capacity.tokens < cost) {
        writeUnits.refused += cost;
        return false;
      }
      capacity.tokens -= cost;
    }
    writeUnits.consumed += cost;
    return true;
  };
  const refuse = (res: ServerResponse, body: Record<string, unknown>) => {
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'proxy' });
    res.end(JSON.stringify(body));
  };
  /** A TransactWriteItems cancelled for capacity: the first item's reason `code`, the others' `None`. */
  const cancelTransaction = (res: ServerResponse, items: unknown[], code: string) => {
    const reasons = items.map((_, i) =>
      i === 0 ? { Code: code, Message: 'Throughput exceeds the current capacity of your table or index.' } : { Code: 'None' },
    );
    refuse(res, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
      CancellationReasons: reasons,
    });
  };
  let indexAnswer: ((request: Record<string, unknown>) => Record<string, unknown> | undefined) | undefined;
  const arrivals: { operation: string; at: number }[] = [];
  const wire: { event: 'request' | 'answer'; operation: string; n: number }[] = [];
  let generation = 0;
  const server: Server = createServer((req, res) => {
    const op = String(req.headers['x-amz-target'] ?? 'unknown').replace(/^DynamoDB_\d+\./, '');
    counts.set(op, (counts.get(op) ?? 0) + 1);
    const n = arrivals.length;
    const since = generation;
    arrivals.push({ operation: op, at: performance.now() });
    wire.push({ event: 'request', operation: op, n });
    res.on('close', () => {
      if (since === generation) wire.push({ event: 'answer', operation: op, n });
    });
    if (throttle > 0 && (throttleOnly === undefined || throttleOnly(op))) {
      throttle--;
      req.resume();
      refuse(res, { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' });
      return;
    }
    // The body is read whole before it is forwarded, so the writes it holds can be counted.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (op === 'Query' && indexAnswer) {
        const request = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        const answer = request.IndexName !== undefined ? indexAnswer(request) : undefined;
        if (answer) {
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'proxy' });
          res.end(JSON.stringify(answer));
          return;
        }
      }
      if (op === 'PutItem' || op === 'UpdateItem' || op === 'DeleteItem' || op === 'BatchWriteItem') {
        const cost =
          op === 'BatchWriteItem'
            ? Object.values((JSON.parse(body.toString('utf8')) as { RequestItems?: Record<string, unknown[]> }).RequestItems ?? {}).flat().length
            : 1;
        if (!payFor(cost)) {
          refuse(res, {
            __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
            message: 'The level of configured provisioned throughput for the table was exceeded.',
          });
          return;
        }
        if (op !== 'BatchWriteItem') writes.single++;
      }
      if (op === 'TransactWriteItems') {
        const items =
          (JSON.parse(body.toString('utf8')) as { TransactItems?: Record<string, { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } } }>[] })
            .TransactItems ?? [];
        if (cancel.n > 0 && (cancel.only === undefined || cancel.only(items))) {
          cancel.n--;
          cancelled.count++;
          cancelTransaction(res, items, cancel.code);
          return;
        }
        if (!payFor(2 * items.length)) {
          cancelTransaction(res, items, 'ThrottlingError');
          return;
        }
        writes.transactional += items.length;
        for (const action of items.flatMap((i) => Object.values(i))) {
          const pk = (action.Key ?? action.Item)?.pk?.S;
          if (pk !== undefined) transactionKeys.set(pk, (transactionKeys.get(pk) ?? 0) + 1);
        }
      }
      const dropReply = dropNext > 0 && dropOnly !== undefined && dropOnly(op);
      if (dropReply) dropNext--;
      const forward = () => {
        const fwd = request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
          if (dropReply) {
            up.resume();
            up.on('end', () => {
              dropped.count++;
              res.destroy();
            });
            return;
          }
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        fwd.on('error', () => res.destroy());
        fwd.end(body);
      };
      if (latencyMs > 0) setTimeout(forward, latencyMs);
      else forward();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    writes,
    transactionKeys,
    arrivals,
    wire,
    together: (i, j) => {
      const at = (event: 'request' | 'answer', n: number) => wire.findIndex((w) => w.event === event && w.n === n);
      const [ri, rj, ai, aj] = [at('request', i), at('request', j), at('answer', i), at('answer', j)];
      return ri >= 0 && rj >= 0 && ai >= 0 && aj >= 0 && ri < aj && rj < ai;
    },
    reset: () => {
      counts.clear();
      generation++;
      arrivals.length = 0;
      wire.length = 0;
      transactionKeys.clear();
      writes.transactional = 0;
      writes.single = 0;
    },
    throttleNext: (n, only) => {
      throttle = n;
      throttleOnly = only;
    },
    cancelTransactionsNext: (n, only, code = 'ThrottlingError') => {
      cancel = { n, only, code };
    },
    cancelled,
    limitWriteUnits: (unitsPerSecond) => {
      const size = unitsPerSecond === undefined ? 0 : Math.max(250, unitsPerSecond);
      capacity = unitsPerSecond === undefined ? undefined : { rate: unitsPerSecond, size, tokens: size, at: performance.now() };
    },
    writeUnits,
    answerIndexQueries: (answer) => {
      indexAnswer = answer;
    },
    dropRepliesNext: (n, only) => {
      dropNext = n;
      dropOnly = only;
    },
    dropped,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    // Its connections too: a server killed mid-request, or one still holding an idle keep-alive
    // connection, would keep `close` waiting.
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
