/** CoreDNS as kubeadm and the coredns chart deploy it: the Corefile in ConfigMap coredns, mounted at /etc/coredns. */

/** The Corefile of kubeadm, with the health block's lameduck line given (none: no lameduck). */
export function corefile(lameduck?: string): string {
  return `.:53 {
    errors
    health {
${lameduck === undefined ? '' : `        lameduck ${lameduck}\n`}    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    prometheus :9153
    forward . /etc/resolv.conf
    cache 30
}
`;
}

export interface CorednsOpts {
  /** The Corefile text (default: kubeadm's with lameduck 10s); false: no ConfigMap in the input. */
  corefile?: string | false;
  image?: string;
  /** args (default: -conf /etc/coredns/Corefile). */
  args?: string[];
  grace?: number;
  /** A lifecycle line for the container, e.g. `lifecycle: {preStop: {sleep: {seconds: 1}}}`. */
  lifecycle?: string;
  /** Extra Service spec lines (e.g. `  externalTrafficPolicy: Local\n  type: LoadBalancer\n`). */
  service?: string;
}

/** ConfigMap (unless corefile is false), Service and Deployment of CoreDNS in kube-system. */
export function coredns(o: CorednsOpts = {}): string {
  const text = o.corefile === undefined ? corefile('10s') : o.corefile;
  const cm =
    text === false
      ? ''
      : `apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
data:
  Corefile: |
${text
  .split('\n')
  .map((l) => (l ? `    ${l}` : ''))
  .join('\n')}
---
`;
  const args = o.args ?? ['-conf', '/etc/coredns/Corefile'];
  return `${cm}apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system}
spec:
  selector: {k8s-app: kube-dns}
${o.service ?? ''}  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
  - {name: metrics, port: 9153, protocol: TCP, targetPort: 9153}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: coredns
        image: ${o.image ?? 'registry.k8s.io/coredns/coredns:v1.12.0'}
        args: ${JSON.stringify(args)}
${o.lifecycle ? `        ${o.lifecycle}\n` : ''}        ports:
        - {name: dns, containerPort: 53, protocol: UDP}
        - {name: dns-tcp, containerPort: 53, protocol: TCP}
        - {name: metrics, containerPort: 9153, protocol: TCP}
        readinessProbe: {httpGet: {path: /ready, port: 8181}}
        volumeMounts: [{name: config-volume, mountPath: /etc/coredns, readOnly: true}]
      volumes:
      - name: config-volume
        configMap:
          name: coredns
          items: [{key: Corefile, path: Corefile}]
`;
}
