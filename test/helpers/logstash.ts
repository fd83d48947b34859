/**
 * Logstash as the elastic/helm-charts logstash chart deploys it (@2fd64d0af65f, image
 * docker.elastic.co/logstash/logstash 8.5.1): a StatefulSet whose container declares the monitoring
 * API as port http 9600 (httpPort), governed by the headless Service <name>-headless that exposes
 * only that port; identical liveness and readiness httpGet / on http; logstash.yml from the
 * logstashConfig ConfigMap mounted with subPath at /usr/share/logstash/config/logstash.yml. With
 * `beats`, the chart's HA example: a beats input on 5044 (extraPorts) and the client Service
 * (service.ports) on it. Catalog logstash-api and logstash-api-root.
 */

export interface LogstashOpts {
  image?: string;
  /** logstash.yml (default the chart's examples' `http.host: 0.0.0.0`); false: no logstashConfig. */
  logstashYml?: string | false;
  /** The API port the chart declares and its headless Service exposes (httpPort, default 9600). */
  httpPort?: number;
  /** A beats input on 5044 and the client Service on it. */
  beats?: boolean;
  /** The probe handler for both probes (default the chart's httpGet / on http). */
  probe?: string;
  replicas?: number;
}

export function logstash(o: LogstashOpts = {}): string {
  const port = o.httpPort ?? 9600;
  const yml = o.logstashYml === undefined ? 'http.host: 0.0.0.0\n' : o.logstashYml;
  const probe = o.probe ?? '{httpGet: {path: /, port: http}, initialDelaySeconds: 60, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3}';
  const cm =
    yml === false
      ? ''
      : `apiVersion: v1
kind: ConfigMap
metadata: {name: logstash-logstash-config, namespace: logging}
data:
  logstash.yml: |
${yml
  .split('\n')
  .map((l) => (l ? `    ${l}` : ''))
  .join('\n')}
---
`;
  const client = o.beats
    ? `---
apiVersion: v1
kind: Service
metadata: {name: logstash-logstash, namespace: logging}
spec:
  type: ClusterIP
  selector: {app: logstash-logstash}
  ports: [{name: beats, port: 5044, protocol: TCP, targetPort: 5044}]
`
    : '';
  return `${cm}apiVersion: v1
kind: Service
metadata: {name: logstash-logstash-headless, namespace: logging}
spec:
  clusterIP: None
  selector: {app: logstash-logstash}
  ports: [{name: http, port: ${port}}]
${client}---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: logstash-logstash, namespace: logging}
spec:
  serviceName: logstash-logstash-headless
  replicas: ${o.replicas ?? 3}
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: logstash-logstash}}
  template:
    metadata: {labels: {app: logstash-logstash}}
    spec:
      terminationGracePeriodSeconds: 120
      containers:
      - name: logstash
        image: ${o.image ?? 'docker.elastic.co/logstash/logstash:8.5.1'}
        livenessProbe: ${probe}
        readinessProbe: ${probe}
        ports:
        - {name: http, containerPort: ${port}}
${o.beats ? '        - {containerPort: 5044}\n' : ''}${
    yml === false
      ? ''
      : `        volumeMounts:
        - {name: logstashconfig, mountPath: /usr/share/logstash/config/logstash.yml, subPath: logstash.yml}
      volumes:
      - name: logstashconfig
        configMap: {name: logstash-logstash-config}
`
  }`;
}
