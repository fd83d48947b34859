/**
 * Fluent Bit as the fluent/helm-charts chart deploys it (charts/fluent-bit, default values): the
 * monitoring HTTP server on port 2020, named `http` on the container and the Service, its config in
 * ConfigMap fb-fluent-bit mounted at /fluent-bit/etc/conf and read with --config.
 */

/** The chart's fluent-bit.conf [SERVICE] section, with the HTTP_Port line given (null: no such line). */
export function fluentBitConf(httpPort: string | null = '2020'): string {
  return `[SERVICE]
    Daemon Off
    Flush 1
    HTTP_Server On
    HTTP_Listen 0.0.0.0
${httpPort === null ? '' : `    HTTP_Port ${httpPort}\n`}    Health_Check On
[INPUT]
    Name tail
    Path /var/log/containers/*.log
`;
}

export interface FluentBitOpts {
  kind?: 'DaemonSet' | 'Deployment';
  /** Deployment replicas (default 2). */
  replicas?: number;
  /** The config file text (default: the chart's, HTTP_Port 2020); false: no ConfigMap in the input. */
  config?: string | false;
  /** The ConfigMap key, and the file the container reads (default fluent-bit.conf). */
  configKey?: string;
  image?: string;
  /** args (default: the chart's --workdir and --config). */
  args?: string[];
  /** Further ports on the container and the Service (the chart's extraPorts: real inputs). */
  extraPorts?: { name: string; port: number }[];
  /** The monitoring port (the chart's metricsPort, default 2020). */
  metricsPort?: number;
  /** The readinessProbe line (default: the chart's /api/v1/health on http); '' for none. */
  readiness?: string;
  /** No Service in the input. */
  noService?: boolean;
}

/** ConfigMap (unless config is false), Service and workload of the chart, in namespace logging. */
export function fluentBit(o: FluentBitOpts = {}): string {
  const kind = o.kind ?? 'DaemonSet';
  const text = o.config === undefined ? fluentBitConf() : o.config;
  const key = o.configKey ?? 'fluent-bit.conf';
  const port = o.metricsPort ?? 2020;
  const extra = o.extraPorts ?? [];
  const cm =
    text === false
      ? ''
      : `apiVersion: v1
kind: ConfigMap
metadata: {name: fb-fluent-bit, namespace: logging}
data:
  ${key}: |
${text
  .split('\n')
  .map((l) => (l ? `    ${l}` : ''))
  .join('\n')}
---
`;
  const svc = o.noService
    ? ''
    : `apiVersion: v1
kind: Service
metadata: {name: fb-fluent-bit, namespace: logging}
spec:
  selector: {app.kubernetes.io/name: fluent-bit}
  ports:
  - {name: http, port: ${port}, targetPort: http, protocol: TCP}
${extra.map((p) => `  - {name: ${p.name}, port: ${p.port}, targetPort: ${p.port}, protocol: TCP}\n`).join('')}---
`;
  const args = o.args ?? ['--workdir=/fluent-bit/etc', `--config=/fluent-bit/etc/conf/${key}`];
  const readiness = o.readiness ?? 'readinessProbe: {httpGet: {path: /api/v1/health, port: http}}';
  return `${cm}${svc}apiVersion: apps/v1
kind: ${kind}
metadata: {name: fb-fluent-bit, namespace: logging}
spec:
${kind === 'Deployment' ? `  replicas: ${o.replicas ?? 2}\n` : ''}  selector: {matchLabels: {app.kubernetes.io/name: fluent-bit}}
  template:
    metadata: {labels: {app.kubernetes.io/name: fluent-bit}}
    spec:
      containers:
      - name: fluent-bit
        image: ${o.image ?? 'cr.fluentbit.io/fluent/fluent-bit:5.1.1'}
        command: [/fluent-bit/bin/fluent-bit]
        args: ${JSON.stringify(args)}
        ports:
        - {name: http, containerPort: ${port}, protocol: TCP}
${extra.map((p) => `        - {name: ${p.name}, containerPort: ${p.port}, protocol: TCP}\n`).join('')}        livenessProbe: {httpGet: {path: /, port: http}}
${readiness ? `        ${readiness}\n` : ''}        volumeMounts: [{name: config, mountPath: /fluent-bit/etc/conf}]
      volumes:
      - name: config
        configMap: {name: fb-fluent-bit}
`;
}
