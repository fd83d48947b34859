/**
 * The Percona XtraDB Cluster operator (catalog percona-xtradb-cluster-operator) as the
 * percona/percona-helm-charts pxc-operator chart renders it with watchAllNamespaces (so with the
 * webhook Service percona-xtradb-cluster-operator 443 -> 9443): command
 * [percona-xtradb-cluster-operator] (the image has no ENTRYPOINT), grace 600s.
 */

export const PXC_OPERATOR_IMAGE = 'percona/percona-xtradb-cluster-operator:1.18.0';

/** `command` null leaves it out; `grace` null leaves it out. */
export function pxcOperator(o: { image?: string; command?: string | null; grace?: number | null } = {}): string {
  const command = o.command === undefined ? '[percona-xtradb-cluster-operator]' : o.command;
  const grace = o.grace === undefined ? 600 : o.grace;
  return `apiVersion: v1
kind: Service
metadata: {name: percona-xtradb-cluster-operator, namespace: pxc}
spec:
  ports: [{port: 443, targetPort: 9443}]
  selector: {app.kubernetes.io/name: pxc-operator}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pxc-operator, namespace: pxc}
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: pxc-operator}}
  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}, type: RollingUpdate}
  template:
    metadata: {labels: {app.kubernetes.io/name: pxc-operator}}
    spec:
${grace === null ? '' : `      terminationGracePeriodSeconds: ${grace}\n`}      containers:
      - name: percona-xtradb-cluster-operator
        image: ${o.image ?? PXC_OPERATOR_IMAGE}
${command === null ? '' : `        command: ${command}\n`}        ports: [{containerPort: 8080, name: metrics, protocol: TCP}, {containerPort: 8081, name: healthz}]
        livenessProbe: {failureThreshold: 3, httpGet: {path: /metrics, port: metrics, scheme: HTTP}}
        readinessProbe: {httpGet: {path: /readyz, port: healthz}}
`;
}
