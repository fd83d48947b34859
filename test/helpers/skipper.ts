/**
 * Skipper (catalog skipper-wait-for-healthcheck) as zalando/skipper docs/kubernetes/deploy/deployment
 * deploys it (the args abridged): image registry.opensource.zalan.do/teapot/skipper, args [skipper,
 * ...] (the image's CMD is /usr/bin/skipper), no -wait-for-healthcheck-interval and no
 * terminationGracePeriodSeconds, behind Service skipper-ingress 80 -> 9999.
 */

export const SKIPPER_IMAGE = 'registry.opensource.zalan.do/teapot/skipper:v0.22.170';

/** `args` null leaves them out; `grace` undefined leaves it out; `extra` is appended to the container. */
export function skipper(o: { image?: string; args?: string[] | null; grace?: number; extra?: string; configMap?: string } = {}): string {
  const args = o.args === undefined ? ['skipper', '-kubernetes', '-kubernetes-in-cluster', '-address=:9999', '-wait-first-route-load'] : o.args;
  return `apiVersion: v1
kind: Service
metadata: {name: skipper-ingress, namespace: kube-system}
spec:
  selector: {application: skipper-ingress}
  ports:
  - {port: 80, targetPort: 9999, protocol: TCP}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: skipper-ingress, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {application: skipper-ingress}}
  template:
    metadata: {labels: {application: skipper-ingress}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: skipper-ingress
        image: ${o.image ?? SKIPPER_IMAGE}
${args === null ? '' : `        args: ${JSON.stringify(args)}\n`}        ports:
        - {name: ingress-port, containerPort: 9999}
        readinessProbe:
          httpGet: {path: /kube-system/healthz, port: 9999}
          initialDelaySeconds: 60
          timeoutSeconds: 5
${o.extra ?? ''}${
    o.configMap === undefined
      ? ''
      : `        volumeMounts: [{name: config, mountPath: /etc/skipper}]
      volumes: [{name: config, configMap: {name: skipper-config}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: skipper-config, namespace: kube-system}
data:
  config.yaml: |
${o.configMap
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`
  }`;
}
