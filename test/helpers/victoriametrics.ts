/**
 * vminsert (catalog victoriametrics-http-shutdown-delay) as the victoria-metrics-cluster chart
 * deploys it (abridged): image victoriametrics/vminsert:vX.Y.Z-cluster, args rendered from
 * extraArgs as `--key=value`, behind Service vminsert 8480 -> http.
 */
export const VMINSERT_IMAGE = 'victoriametrics/vminsert:v1.150.0-cluster';

export function vminsert(o: { image?: string; args?: string[]; grace?: number } = {}): string {
  const args = o.args ?? ['--httpListenAddr=:8480', '--envflag.enable', '--loggerFormat=json', '--storageNode=vmstorage-0.vmstorage:8400'];
  return `apiVersion: v1
kind: Service
metadata: {name: vminsert, namespace: monitoring}
spec:
  selector: {app: vminsert}
  ports: [{name: http, port: 8480, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vminsert, namespace: monitoring}
spec:
  replicas: 2
  selector: {matchLabels: {app: vminsert}}
  template:
    metadata: {labels: {app: vminsert}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: vminsert
        image: ${o.image ?? VMINSERT_IMAGE}
        args: ${JSON.stringify(args)}
        ports: [{name: http, containerPort: 8480}]
        readinessProbe:
          httpGet: {path: /health, port: http}
          periodSeconds: 5
`;
}
