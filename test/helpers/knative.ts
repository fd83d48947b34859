/**
 * Programs that keep serving for a time fixed in their code (catalog knative-activator,
 * knative-serving-webhook, tekton-pipeline-webhook), as their upstream manifests deploy them
 * (knative/serving config/core/deployments/activator.yaml and webhook.yaml, tektoncd/pipeline
 * config/webhook.yaml), with release images.
 */

export const ACTIVATOR_IMAGE = 'gcr.io/knative-releases/knative.dev/serving/cmd/activator@sha256:0b9a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665';
export const SERVING_WEBHOOK_IMAGE = 'gcr.io/knative-releases/knative.dev/serving/cmd/webhook@sha256:1c0a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665';
export const TEKTON_WEBHOOK_IMAGE = 'ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/webhook:v1.3.0@sha256:2d0a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665';

/** The activator Deployment and activator-service (grace 600 as upstream unless given). */
export function activator(o: { image?: string; grace?: number | null } = {}): string {
  const grace = o.grace === undefined ? 600 : o.grace;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: activator, namespace: knative-serving}
spec:
  selector: {matchLabels: {app: activator, role: activator}}
  template:
    metadata: {labels: {app: activator, role: activator}}
    spec:
      containers:
      - name: activator
        image: ${o.image ?? ACTIVATOR_IMAGE}
        ports:
        - {name: metrics, containerPort: 9090}
        - {name: profiling, containerPort: 8008}
        - {name: http1, containerPort: 8012}
        - {name: h2c, containerPort: 8013}
        readinessProbe: {httpGet: {port: 8012, httpHeaders: [{name: k-kubelet-probe, value: activator}]}, periodSeconds: 5, failureThreshold: 5}
        livenessProbe: {httpGet: {port: 8012, httpHeaders: [{name: k-kubelet-probe, value: activator}]}, periodSeconds: 10, failureThreshold: 12, initialDelaySeconds: 15}
${grace === null ? '' : `      terminationGracePeriodSeconds: ${grace}\n`}---
apiVersion: v1
kind: Service
metadata: {name: activator-service, namespace: knative-serving}
spec:
  selector: {app: activator}
  ports:
  - {name: http-metrics, port: 9090, targetPort: 9090}
  - {name: http-profiling, port: 8008, targetPort: 8008}
  - {name: http, port: 80, targetPort: 8012}
  - {name: http2, port: 81, targetPort: 8013}
  - {name: https, port: 443, targetPort: 8112}
`;
}

/** A knative.dev/pkg webhook Deployment and its Service (443 -> 8443); grace omitted when null. */
export function pkgWebhook(o: { image: string; grace: number | null; name?: string }): string {
  const name = o.name ?? 'webhook';
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: webhook
        image: ${o.image}
        ports:
        - {name: metrics, containerPort: 9090}
        - {name: https-webhook, containerPort: 8443}
        - {name: probes, containerPort: 8080}
${o.grace === null ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}---
apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  selector: {app: ${name}}
  ports:
  - {name: https-webhook, port: 443, targetPort: 8443}
`;
}
