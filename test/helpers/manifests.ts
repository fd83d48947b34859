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
