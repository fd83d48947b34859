/**
 * Sourcegraph's background workers as sourcegraph/deploy-sourcegraph-helm charts/sourcegraph
 * deploys them (catalog sourcegraph-worker-health, sourcegraph-precise-code-intel-worker-health):
 * the program's health server on port http (only /healthz) and the debug server on http-debug
 * 6060 (/metrics, /ready), both in the Service the chart creates for Prometheus.
 */

export interface SourcegraphWorkerOpts {
  /** The image (default the chart's index.docker.io/sourcegraph/<name>:6.0.0). */
  image?: string;
  /** The container port named http (default the program's fixed port). */
  port?: number;
  replicas?: number;
  /** The chart's strategy (default RollingUpdate, maxSurge 1, maxUnavailable 1). */
  strategy?: string;
}

const PORTS = { worker: 3189, 'precise-code-intel-worker': 3188 } as const;

export type SourcegraphWorker = keyof typeof PORTS;

export function sourcegraphWorker(name: SourcegraphWorker, o: SourcegraphWorkerOpts = {}): string {
  const port = o.port ?? PORTS[name];
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: sourcegraph
  annotations: {prometheus.io/port: "6060", sourcegraph.prometheus/scrape: "true"}
  labels: {app: ${name}, deploy: sourcegraph}
spec:
  selector: {app: ${name}}
  ports:
  - {name: http, port: ${port}, targetPort: http}
  - {name: http-debug, port: 6060, targetPort: http-debug}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: sourcegraph}
spec:
  replicas: ${o.replicas ?? 1}
  strategy: ${o.strategy ?? '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}'}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}, deploy: sourcegraph}}
    spec:
      containers:
      - name: ${name}
        image: ${o.image ?? `index.docker.io/sourcegraph/${name}:6.0.0`}
        ports:
        - {name: http, containerPort: ${port}}
        - {name: http-debug, containerPort: 6060}
        livenessProbe:
          httpGet: {path: /healthz, port: http-debug}
          initialDelaySeconds: 60
          timeoutSeconds: 5
        readinessProbe:
          httpGet: {path: /ready, port: http-debug}
          periodSeconds: 5
          timeoutSeconds: 5
`;
}
