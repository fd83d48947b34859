/**
 * Tyk Gateway (catalog tyk-gateway-shutdown-delay) as the review's reproducer and the tyk-charts
 * gateway render it (abridged): image docker.tyk.io/tyk-gateway/tyk-gateway, env
 * TYK_GW_LISTENPORT 8080 plus `env`, readiness /ready on 8080, grace 60s, no preStop hook (the
 * image has no shell), and the Service routing to it.
 */
export const TYK_IMAGE = 'docker.tyk.io/tyk-gateway/tyk-gateway:v5.14.0';

/** `env` entries are YAML flow items written after TYK_GW_LISTENPORT; `delay` adds TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS. */
export function tykGateway(o: { image?: string; delay?: string; env?: string[]; grace?: number } = {}): string {
  const env = [
    '{name: TYK_GW_LISTENPORT, value: "8080"}',
    ...(o.delay === undefined ? [] : [`{name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "${o.delay}"}`]),
    ...(o.env ?? []),
  ];
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: gw}
spec:
  replicas: 2
  selector: {matchLabels: {app: gw}}
  template:
    metadata: {labels: {app: gw}}
    spec:
      terminationGracePeriodSeconds: ${o.grace ?? 60}
      containers:
      - name: gateway-tyk-gateway
        image: ${o.image ?? TYK_IMAGE}
        env:
${env.map((e) => `        - ${e}`).join('\n')}
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /ready, port: 8080}}
---
apiVersion: v1
kind: Service
metadata: {name: gw}
spec:
  selector: {app: gw}
  ports: [{name: http, port: 8080, targetPort: 8080}]
`;
}
