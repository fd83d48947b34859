import { App, Chart } from 'cdk8s';

/** The example apps this repository builds and publishes, by name (= output file name). */
export const APPS: Record<string, (app: App, name: string) => Chart> = {};
