import { cpus } from 'node:os';
import { join } from 'node:path';
import { LOCAL_AWS_ENV, type DynamoDbLocal } from '../local/dynamodb-local';
import { ROOT, type Figure } from './figure';
import { selectFigures } from './figures';
import { createReport, writeResults } from './report';
import { startSharedDynamo } from './server';

/**
 * `npm run bench`: every figure is measured side by side in one run on this machine, so the
 * ratios mean something on a shared, noisy host. Prints markdown, writes JSON to bench/results/.
 * `BENCH_ONLY=<name>,<name>` runs only those figures (`bench/figures/<name>.ts`).
 */
async function main(figures: readonly Figure[]): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  Object.assign(process.env, LOCAL_AWS_ENV);
  const report = createReport();
  report.say(`## Benchmarks (${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores)`);
  // One DynamoDB Local for every figure that needs it, stopped after the last of them: a figure
  // without a service (the mapping) then runs without its JVM beside it.
  const last = figures.findLastIndex((f) => f.needs === 'dynamodb');
  let dynamo: DynamoDbLocal | undefined;
  try {
    for (const [i, figure] of figures.entries()) {
      if (figure.needs === 'dynamodb') {
        dynamo ??= await startSharedDynamo();
        await figure.run(report, dynamo.endpoint);
      } else {
        await figure.run(report);
      }
      if (i === last) {
        await dynamo?.stop();
        dynamo = undefined;
      }
    }
  } finally {
    await dynamo?.stop();
  }
  report.say(`\nJSON: ${writeResults(report, join(ROOT, 'bench', 'results'))}`);
}

/** The figures `BENCH_ONLY` names; a name that is no figure's stops the run with one sentence. */
function figuresToRun(): Figure[] {
  try {
    return selectFigures(process.env.BENCH_ONLY);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

main(figuresToRun()).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
