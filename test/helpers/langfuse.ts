/**
 * Langfuse web (catalog langfuse-web): the web Deployment and its Service as the langfuse-k8s
 * chart renders them (abridged): image docker.langfuse.com/langfuse/langfuse, port 3000, liveness
 * /api/public/health, readiness /api/public/ready, no preStop hook and, unless `grace` is given, no
 * terminationGracePeriodSeconds.
 */
export function langfuseWeb(o: { image?: string; grace?: number; name?: string } = {}): string {
  const name = o.name ?? 'langfuse-web';
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: langfuse}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: ${name}
        image: ${o.image ?? 'docker.langfuse.com/langfuse/langfuse:4.4.0'}
        ports: [{name: http, containerPort: 3000}]
        livenessProbe: {httpGet: {path: /api/public/health, port: http}, periodSeconds: 10, timeoutSeconds: 5}
        readinessProbe: {httpGet: {path: /api/public/ready, port: http}, periodSeconds: 10, timeoutSeconds: 5}
---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: langfuse}
spec:
  selector: {app: ${name}}
  ports: [{name: http, port: 3000, targetPort: http}]
`;
}
