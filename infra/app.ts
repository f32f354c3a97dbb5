import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AuthCoreStack } from './stack';
import { settingsFromContext, stackName } from './settings';

/**
 * The CDK app: `npx cdk synth -c stage=<name>` (default `dev`, see `cdk.json`). One stack per stage,
 * environment-agnostic (no account or region at synth time), so synth needs no AWS credentials.
 * cdk-nag's AwsSolutions pack runs at synth and stops it on any unacknowledged error.
 */
const app = new App();
const settings = settingsFromContext((key) => app.node.tryGetContext(key));

new AuthCoreStack(app, stackName(settings.stage), {
  ...settings,
  tags: { app: 'auth-core', stage: settings.stage },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

app.synth();
