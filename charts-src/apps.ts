import { App, Chart } from 'cdk8s';
import { datastore } from './apps/datastore';
import { httpApi } from './apps/http-api';
import { meshApi } from './apps/mesh-api';
import { nodeAgent } from './apps/node-agent';
import { tunnelProxy } from './apps/tunnel-proxy';

/** The example apps this repository builds and publishes, by name (= output file name). */
export const APPS: Record<string, (app: App, name: string) => Chart> = {
  'http-api': httpApi,
  'tunnel-proxy': tunnelProxy,
  datastore,
  'mesh-api': meshApi,
  'node-agent': nodeAgent,
};
