import { App, Chart } from 'cdk8s';
import { datastore } from './apps/datastore';
import { httpApi } from './apps/http-api';
import { meshApi } from './apps/mesh-api';
import { nodeAgent } from './apps/node-agent';
import { storefront } from './apps/storefront';
import { tunnelProxy } from './apps/tunnel-proxy';

/** The example apps this repository builds and publishes, by name (= output file name). */
export const APPS: Record<string, (app: App, name: string) => Chart> = {
  'http-api': httpApi,
  'tunnel-proxy': tunnelProxy,
  datastore,
  'mesh-api': meshApi,
  'node-agent': nodeAgent,
  storefront,
};

/** One line per app for its generated Helm chart (Chart.yaml description). */
export const DESCRIPTIONS: Record<string, string> = {
  'http-api': 'HTTP API behind an AWS NLB in IP mode: pod readiness gate, preStop covering the NLB propagation window, deregistration delay within grace',
  'tunnel-proxy': 'Teleport-style fan-in tunnel proxy: minReadySeconds sized by the reconnect model, teleport wait preStop counted in the grace period',
  datastore: 'Three-member etcd-style data store: headless peer Service publishing not-ready members, per-member volumes, PDB keeping a recovering member',
  'mesh-api': 'API in a Linkerd mesh with a native-sidecar database proxy that stops only after the app has drained',
  'node-agent': 'Node-local OpenTelemetry agent DaemonSet with surge rollouts, so a node is never without a receiver',
  storefront: 'Storefront behind an ALB target group in IP mode: TargetGroupBinding, the pod readiness gate of the binding, preStop covering the ALB propagation window',
};
