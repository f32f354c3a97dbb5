import { readFileSync } from 'node:fs';

/** Percentile (nearest rank) of a list of numbers. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * CPU time (user + system, ms) a process has used so far, from Linux's `/proc/<pid>/stat`
 * (clock ticks of 1/100 s, Linux's USER_HZ); `undefined` where there is no `/proc`.
 */
export function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').slice(-1)[0].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, ms) this process has used so far. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

/** Milliseconds an async call takes. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** Runs `count` tasks with at most `concurrency` in flight; returns each task's latency in ms. */
export async function runPool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      latencies.push((await timed(() => task(i))).ms);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

/** Renders rows as a markdown table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** An attribute value as DynamoDB's low-level API has it (the types a size is counted for). */
type AttributeValueLike = {
  S?: string;
  N?: string;
  B?: Uint8Array;
  BOOL?: boolean;
  NULL?: boolean;
  M?: Record<string, AttributeValueLike>;
  L?: AttributeValueLike[];
};

/**
 * An item's size as DynamoDB bills it (its "Item sizes and formats" page): each attribute name's
 * UTF-8 bytes plus its value's (a string's UTF-8 bytes, a number 1 byte per two significant
 * digits plus 1, a binary's bytes, a boolean or null 1, a map or list 3 plus 1 per element plus
 * the elements). Sets are not used by this service.
 */
export function dynamoItemBytes(item: Record<string, AttributeValueLike>): number {
  const value = (v: AttributeValueLike): number => {
    if (v.S !== undefined) return Buffer.byteLength(v.S, 'utf8');
    if (v.N !== undefined) {
      const digits = v.N.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
      return Math.ceil(Math.max(1, digits.length) / 2) + 1;
    }
    if (v.B !== undefined) return v.B.byteLength;
    if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
    if (v.M !== undefined) return 3 + Object.entries(v.M).reduce((n, [k, x]) => n + 1 + Buffer.byteLength(k, 'utf8') + value(x), 0);
    if (v.L !== undefined) return 3 + v.L.reduce((n, x) => n + 1 + value(x), 0);
    throw new Error(`an attribute type the size rule here does not know: ${Object.keys(v).join(',')}`);
  };
  return Object.entries(item).reduce((n, [name, v]) => n + Buffer.byteLength(name, 'utf8') + value(v), 0);
}
