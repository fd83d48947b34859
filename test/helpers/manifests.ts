/** Shared test manifests for rule tables. */

/**
 * A Deployment `web` (2 replicas, labels app=web) with the given pod spec lines (indented six
 * spaces), plus a Service selecting it on port 80 -> 8080 unless `served: false`.
 */
export function servedDeployment(podSpec: string, opts: { served?: boolean; annotations?: string } = {}): string {
  const svc =
    opts.served === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${podSpec}
${svc}`;
}

/**
 * An admission webhook configuration (a document with its leading `---`) whose one webhook calls
 * Service `service` in `default` (`port`: clientConfig.service.port, 443 when unset; `rules`: the
 * webhook's rules, a custom resource's by default): for the rules that read who calls a Service
 * (prestop-missing, service-selector-ports).
 */
export function webhookConfig(o: { kind?: 'Validating' | 'Mutating'; name?: string; hook?: string; service?: string; failurePolicy?: string; port?: number; rules?: string } = {}): string {
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: ${o.kind ?? 'Validating'}WebhookConfiguration
metadata: {name: ${o.name ?? 'hooks'}}
webhooks:
- name: ${o.hook ?? 'check.example.com'}
  admissionReviewVersions: [v1]
  sideEffects: None
${o.failurePolicy ? `  failurePolicy: ${o.failurePolicy}\n` : ''}  clientConfig: {service: {name: ${o.service ?? 'web'}, namespace: default, path: /validate${o.port === undefined ? '' : `, port: ${o.port}`}}}
  rules: ${o.rules ?? '[{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [widgets]}]'}
`;
}
