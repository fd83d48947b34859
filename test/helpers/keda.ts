/**
 * The KEDA HTTP add-on interceptor (catalog keda-http-interceptor) as upstream deploys it:
 * kedacore/http-add-on config/default (kubectl kustomize at 59b2f6a1: image
 * ko://github.com/kedacore/http-add-on/interceptor, no KEDA_HTTP_SHUTDOWN_DELAY or
 * KEDA_HTTP_DRAIN_TIMEOUT in env, grace 45s) with the proxy Service; the kedacore/charts http-add-on
 * chart sets the image ghcr.io/kedacore/http-add-on-interceptor:<appVersion> and both variables.
 */

export const KEDA_KO_IMAGE = 'ko://github.com/kedacore/http-add-on/interceptor';
export const KEDA_CHART_IMAGE = 'ghcr.io/kedacore/http-add-on-interceptor:0.15.0';

/** `env` entries are YAML flow items written after the two required ports; `grace` null leaves it out; `annotations` go on the pod template. */
export function interceptor(o: { image?: string; env?: string[]; envFrom?: string; grace?: number | null; annotations?: string } = {}): string {
  const grace = o.grace === undefined ? 45 : o.grace;
  const env = ['{name: KEDA_HTTP_PROXY_PORT, value: "8080"}', '{name: KEDA_HTTP_ADMIN_PORT, value: "9090"}', ...(o.env ?? [])];
  return `apiVersion: v1
kind: Service
metadata: {name: keda-add-ons-http-interceptor-proxy, namespace: keda}
spec:
  selector: {app.kubernetes.io/component: add-on, app.kubernetes.io/instance: interceptor}
  ports:
  - {name: proxy, port: 8080, targetPort: proxy}
  - {name: proxy-tls, port: 8443, targetPort: proxy-tls}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: keda-add-ons-http-interceptor, namespace: keda}
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/component: add-on, app.kubernetes.io/instance: interceptor}}
  template:
    metadata: {labels: {app.kubernetes.io/component: add-on, app.kubernetes.io/instance: interceptor}${o.annotations ? `, annotations: {${o.annotations}}` : ''}}
    spec:
      containers:
      - name: interceptor
        image: ${o.image ?? KEDA_KO_IMAGE}
        args: [--zap-log-level=info, --zap-encoder=console, --zap-time-encoding=rfc3339]
        env:
${env.map((e) => `        - ${e}`).join('\n')}
${o.envFrom ? `        envFrom: ${o.envFrom}\n` : ''}        ports:
        - {containerPort: 9090, name: admin}
        - {containerPort: 8080, name: proxy}
        - {containerPort: 8443, name: proxy-tls}
        - {containerPort: 2223, name: metrics}
        livenessProbe: {httpGet: {path: /livez, port: admin}}
        readinessProbe: {httpGet: {path: /readyz, port: admin}}
${grace === null ? '' : `      terminationGracePeriodSeconds: ${grace}\n`}`;
}
