/**
 * Controllers whose only HTTP listener is their own metrics and health server, with the Service
 * their charts create for Prometheus (catalog flagger-http-server, reloader-http-server).
 */

export interface MetricsServerOpts {
  image?: string;
  /** Further command-line words after the chart's (e.g. `-port=9999`). */
  args?: string[];
  /** The container port (the chart's default when unset). */
  port?: number;
  /** The Service's targetPort (default: the port's name, http). */
  targetPort?: number | string;
  /** Without the Service (the charts' default for Reloader, and for Flagger without serviceMonitor.enabled). */
  service?: boolean;
}

function render(name: string, ns: string, container: string, port: number, o: MetricsServerOpts): string {
  const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/name: ${name}}}
  template:
    metadata: {labels: {app.kubernetes.io/name: ${name}}}
    spec:
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector: {matchLabels: {app.kubernetes.io/name: ${name}}}
              topologyKey: kubernetes.io/hostname
      containers:
${container}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ${name}, namespace: ${ns}}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector: {matchLabels: {app.kubernetes.io/name: ${name}}}
`;
  if (o.service === false) return deployment;
  return `${deployment}---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {app.kubernetes.io/name: ${name}}
  ports: [{name: http, port: ${port}, targetPort: ${JSON.stringify(o.targetPort ?? 'http')}, protocol: TCP}]
`;
}

/**
 * Flagger as fluxcd/flagger charts/flagger deploys it with serviceMonitor.enabled (the Service
 * exists only then): ./flagger on -port 8080 (/metrics, /healthz), leader election, probes on it.
 */
export function flagger(o: MetricsServerOpts = {}): string {
  const port = o.port ?? 8080;
  const cmd = ['./flagger', '-log-level=info', '-enable-leader-election=true', ...(o.args ?? [])];
  return render(
    'flagger',
    'flagger-system',
    `      - name: flagger
        image: ${o.image ?? 'ghcr.io/fluxcd/flagger:1.44.0'}
        command: [${cmd.map((a) => JSON.stringify(a)).join(', ')}]
        ports: [{name: http, containerPort: ${port}}]
        readinessProbe: {httpGet: {path: /healthz, port: ${port}}}
        livenessProbe: {httpGet: {path: /healthz, port: ${port}}}`,
    port,
    o,
  );
}

/**
 * Stakater Reloader as its chart deploys it with reloader.service set: :9090 (fixed: /metrics,
 * /live, pprof), the liveness check on /live and the readiness check on /metrics.
 */
export function reloader(o: MetricsServerOpts = {}): string {
  const port = o.port ?? 9090;
  return render(
    'reloader-reloader',
    'reloader',
    `      - name: reloader-reloader
        image: ${o.image ?? 'ghcr.io/stakater/reloader:v1.4.21'}
        args: [${(o.args ?? []).map((a) => JSON.stringify(a)).join(', ')}]
        ports: [{name: http, containerPort: ${port}}]
        livenessProbe: {httpGet: {path: /live, port: http}}
        readinessProbe: {httpGet: {path: /metrics, port: http}}`,
    port,
    o,
  );
}
