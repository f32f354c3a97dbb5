import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { join, resolve } from 'node:path';
import { buildLambdaFunctions } from '../scripts/build';
import { AuthCoreStack } from './stack';
import { settingsFromContext, stackName } from './settings';

/**
 * The CDK app: `npx cdk synth -c stage=<name>` (default `dev`, see `cdk.json`). One stack per stage
 * (with a nested stack per recipe family of routes, deployed with it), environment-agnostic (no
 * account or region at synth time), so synth needs no AWS credentials.
 * The function bundles are built first, by the build `npm start` and the tests run, for Lambda's
 * platform and the stage's architecture (`dist/lambda/<arch>/`). cdk-nag's AwsSolutions pack runs
 * at synth and stops it on any unacknowledged error.
 */
async function main(): Promise<void> {
  const app = new App();
  const settings = settingsFromContext((key) => app.node.tryGetContext(key));
  const bundleDir = join(resolve(__dirname, '..'), 'dist', 'lambda', settings.architecture);
  await buildLambdaFunctions(bundleDir, settings.architecture);

  new AuthCoreStack(app, stackName(settings.stage), {
    ...settings,
    bundleDir,
    tags: { app: 'auth-core', stage: settings.stage },
  });

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

  app.synth();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
