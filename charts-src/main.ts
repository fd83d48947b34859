import { App } from 'cdk8s';
import { APPS } from './apps';

/**
 * The cdk8s app behind `cdk8s synth`: one chart per example app in charts-src, each written to
 * dist/manifests/<app>.yaml.
 */
const app = new App({ outdir: process.env.CDK8S_OUTDIR ?? 'dist/manifests', outputFileExtension: '.yaml' });
for (const [name, build] of Object.entries(APPS)) build(app, name);
app.synth();
