import * as fs from 'fs';
import * as path from 'path';
import { daemonsetSurge } from '../../lib/rules/daemonset-surge';
import { ruleTester, runRule } from '../helpers/rule-tester';

function ds(name: string, podSpec: string, strategy = ''): string {
  return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${name}, namespace: istio-system}
spec:
  selector: {matchLabels: {app: ${name}}}
${strategy ? `  updateStrategy:\n${strategy}\n` : ''}  template:
    metadata: {labels: {app: ${name}}}
    spec:
${podSpec}
`;
}
const ztunnel = '      containers: [{name: istio-proxy, image: "docker.io/istio/ztunnel:1.24.0@sha256:abc"}]';
const surge = (s: string, u?: string) => `    type: RollingUpdate\n    rollingUpdate: {maxSurge: ${s}${u !== undefined ? `, maxUnavailable: ${u}` : ''}}`;
const localSvc = (policy: string, type = 'ClusterIP') => `---
apiVersion: v1
kind: Service
metadata: {name: otlp, namespace: istio-system}
spec:
  type: ${type}
  ${policy}
  selector: {app: agent}
  ports: [{name: otlp-grpc, port: 4317}]
`;

const ingress = '      containers: [{name: controller, image: "registry.k8s.io/ingress-nginx/controller:v1.11.2", ports: [{name: http, containerPort: 80}]}]';
const ingressSvc = (extra = '') => `---
apiVersion: v1
kind: Service
metadata: {name: ingress-nginx, namespace: istio-system}
spec:
  type: LoadBalancer
${extra}  selector: {app: ingress-nginx}
  ports: [{name: http, port: 80, targetPort: http}]
`;

ruleTester(daemonsetSurge, {
  valid: [
    {
      name: 'an ingress controller DaemonSet behind an externalTrafficPolicy: Cluster load balancer, no node port: kube-proxy sends the node\'s traffic to the other pods',
      yaml: ds('ingress-nginx', ingress) + ingressSvc(),
    },
    { name: 'ztunnel as the chart ships it: maxSurge 1, maxUnavailable 0', yaml: ds('ztunnel', ztunnel, surge('1', '0')) },
    { name: 'percent surge with maxUnavailable "0%"', yaml: ds('ztunnel', ztunnel, surge('"10%"', '"0%"')) },
    { name: 'OnDelete: updates are orchestrated by hand', yaml: ds('ztunnel', ztunnel, '    type: OnDelete') },
    { name: 'below 1.22 surge does not exist: not suggested', yaml: ds('ztunnel', ztunnel), kubeVersion: '1.21' },
    {
      name: 'node-exporter: hostNetwork + hostPort serves metrics, not node-local traffic (corpus: kube-prometheus)',
      yaml: ds('node-exporter', `      hostNetwork: true
      containers:
      - {name: node-exporter, image: quay.io/prometheus/node-exporter:v1.8.0}
      - {name: kube-rbac-proxy, image: quay.io/brancz/kube-rbac-proxy:v0.18.0, ports: [{containerPort: 9100, hostPort: 9100, name: https}]}`, '    rollingUpdate: {maxUnavailable: 10%}'),
    },
    { name: 'kube-proxy and CNI agents are not matched (their datapath survives the restart)', yaml: ds('kube-proxy', '      hostNetwork: true\n      containers: [{name: kube-proxy, image: registry.k8s.io/kube-proxy:v1.31.0}]') },
    { name: 'surge-only with hostPort: 0 (no host port) is not blocked', yaml: ds('agent', '      containers: [{name: agent, image: agent:1, ports: [{containerPort: 4317, hostPort: 0}]}]', surge('1', '0')) },
    {
      name: 'an ingress DaemonSet on hostPorts cannot surge: not suggested',
      yaml: ds('ingress-nginx-controller', '      containers: [{name: controller, image: registry.k8s.io/ingress-nginx/controller:v1.11.0, ports: [{containerPort: 80, hostPort: 80}]}]'),
    },
    {
      name: 'host network with declared ports: they are host ports, surge cannot schedule',
      yaml: ds('envoy', '      hostNetwork: true\n      containers: [{name: envoy, image: envoyproxy/envoy:v1.31, ports: [{containerPort: 10000}]}]'),
    },
    { name: 'a Local Service with a metrics-only port does not make it node-local traffic', yaml: ds('agent', '      containers: [{name: agent, image: a}]') + localSvc('internalTrafficPolicy: Local').replace('otlp-grpc', 'metrics') },
    { name: 'a Cluster-policy Service is not node-local', yaml: ds('agent', '      containers: [{name: agent, image: a}]') + localSvc('internalTrafficPolicy: Cluster') },
    { name: 'a Deployment named envoy is not a DaemonSet', yaml: ds('envoy', '      containers: [{name: envoy, image: envoyproxy/envoy}]').replace('kind: DaemonSet', 'kind: Deployment') },
  ],
  invalid: [
    {
      name: 'surge-only on a hostPort: the surge pod can never be placed next to the old one, and the rollout never progresses (error, with the delete-first fix)',
      yaml: ds('ingress-nginx-controller', '      containers: [{name: controller, image: registry.k8s.io/ingress-nginx/controller:v1.11.0, ports: [{containerPort: 80, hostPort: 80}, {containerPort: 443, hostPort: 443}]}]', surge('1', '0')),
      findings: [{ severity: 'error', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge', message: /^maxSurge 1 with maxUnavailable 0, but the pod binds host ports \(container "controller" hostPorts 80, 443\): .*the rollout never progresses .*; set updateStrategy.rollingUpdate to \{maxSurge: 0, maxUnavailable: 1\}$/ }],
    },
    {
      name: 'the same with hostNetwork: every declared port is a host port (the API defaults hostPort to it)',
      yaml: ds('agent', '      hostNetwork: true\n      containers: [{name: agent, image: agent:1, ports: [{name: otlp, containerPort: 4317}]}]', surge('10%', '0')),
      findings: [{ severity: 'error', message: /host ports \(container "agent" port 4317 \(hostNetwork: true makes every declared port a host port\)\)/ }],
    },
    {
      name: 'the same controller behind externalTrafficPolicy: Local: node-local, reported',
      yaml: ds('ingress-nginx', ingress) + ingressSvc('  externalTrafficPolicy: Local\n'),
      findings: [{ severity: 'warning', message: /is a node-level proxy \(name "ingress-nginx"\) and rolls with maxSurge absent/ }],
    },
    {
      name: 'the same controller on the host network (no declared ports would bind): node-local, reported',
      yaml: ds('ingress-nginx', '      hostNetwork: true\n      containers: [{name: controller, image: "registry.k8s.io/ingress-nginx/controller:v1.11.2"}]') + ingressSvc(),
      findings: [{ severity: 'warning', message: /node-level proxy/ }],
    },
    {
      name: 'the same controller with no Service in the set: assumed node-local, reported',
      yaml: ds('ingress-nginx', ingress),
      findings: [{ severity: 'warning', message: /node-level proxy/ }],
    },
    {
      name: 'ztunnel with the default strategy (1.22 boundary): warning at the spec',
      yaml: ds('ztunnel', ztunnel),
      kubeVersion: '1.22',
      findings: [{ severity: 'warning', pointer: '/spec', message: /DaemonSet\/ztunnel is a node-level proxy \(name "ztunnel"\) and rolls with maxSurge absent \(default 0\).*\{maxSurge: 1, maxUnavailable: 0\}/ }],
    },
    {
      name: 'explicit maxSurge 0: warning at the field; image name matches',
      yaml: ds('mesh-node', ztunnel, surge('0', '1')),
      findings: [{ severity: 'warning', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge', message: 'image "docker.io/istio/ztunnel:1.24.0@sha256:abc"' }],
    },
    {
      name: 'node-local traffic via internalTrafficPolicy: Local',
      yaml: ds('agent', '      containers: [{name: agent, image: otel/opentelemetry-collector}]') + localSvc('internalTrafficPolicy: Local'),
      findings: [{ severity: 'warning', message: 'node-local traffic (Service/otlp has internalTrafficPolicy: Local)' }],
    },
    {
      // The datadog chart's agent: DogStatsD and APM sockets in hostPath /var/run/datadog. The vendor's
      // surge support needs a standby mode (DataDog/datadog-operator PR #3298), so no fix is offered.
      name: 'node-local traffic from a pod that writes to a hostPath directory: the advice says the pods share it, and no fix',
      yaml:
        ds(
          'agent',
          `      containers:
      - name: agent
        image: gcr.io/datadoghq/agent:7
        volumeMounts: [{name: dsdsocket, mountPath: /var/run/datadog}, {name: procdir, mountPath: /host/proc, readOnly: true}, {name: os-release, mountPath: /host/etc/os-release}, {name: ro, mountPath: /ro, readOnly: true}]
      volumes:
      - {name: dsdsocket, hostPath: {path: /var/run/datadog, type: DirectoryOrCreate}}
      - {name: procdir, hostPath: {path: /proc}}
      - {name: os-release, hostPath: {path: /etc/os-release}}
      - {name: ro, hostPath: {path: /var/lib/ro}}`,
        ) + localSvc('internalTrafficPolicy: Local'),
      findings: [
        {
          severity: 'warning',
          message: /hand over; the pod writes to the node \(hostPath \/var\/run\/datadog \(dsdsocket\)\): during the overlap the old and the new pod share it, .*surge only if two copies can run side by side on one node \(the vendor supports it\)$/,
        },
      ],
    },
    {
      name: 'node-local traffic via externalTrafficPolicy: Local on a LoadBalancer',
      yaml: ds('agent', '      containers: [{name: agent, image: a}]') + localSvc('externalTrafficPolicy: Local', 'LoadBalancer'),
      findings: [{ severity: 'warning', message: 'externalTrafficPolicy: Local' }],
    },
    {
      name: 'host network without declared ports: warning with the SO_REUSEPORT caveat',
      yaml: ds('traefik', '      hostNetwork: true\n      containers: [{name: traefik, image: traefik:v3.1}]'),
      findings: [{ severity: 'warning', message: 'this works only if the proxy binds its listeners with SO_REUSEPORT' }],
    },
    {
      name: 'param nodeProxyPatterns',
      yaml: ds('my-l7-gateway', '      containers: [{name: gw, image: corp/l7gw}]'),
      params: { nodeProxyPatterns: ['l7gw'] },
      findings: [{ severity: 'warning', message: 'image "corp/l7gw"' }],
    },
    {
      name: 'maxSurge without maxUnavailable 0: the API rejects it (maxUnavailable defaults to 1)',
      yaml: ds('ztunnel', ztunnel, surge('1')),
      findings: [{ severity: 'error', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge', message: 'maxUnavailable (absent, defaults to 1): the API rejects' }],
    },
    {
      name: 'maxSurge and maxUnavailable both non-zero: error on any DaemonSet',
      yaml: ds('node-exporter', '      containers: [{name: e, image: e}]', surge('"25%"', '1')),
      findings: [{ severity: 'error', message: 'maxSurge "25%" with maxUnavailable 1' }],
    },
    {
      name: 'below 1.22: maxSurge dropped, maxUnavailable 0 rejected',
      yaml: ds('ztunnel', ztunnel, surge('1', '0')),
      kubeVersion: '1.21',
      findings: [{ severity: 'error', message: 'DaemonSetUpdateSurge is alpha and off on 1.21' }],
    },
    {
      name: 'below 1.21: maxSurge silently ignored',
      yaml: ds('ztunnel', ztunnel, surge('1', '1')),
      kubeVersion: '1.20',
      findings: [{ severity: 'warning', message: 'maxSurge 1 is ignored on 1.20' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: ds('ztunnel', ztunnel).replace('metadata: {name: ztunnel, namespace: istio-system}', 'metadata: {name: ztunnel, namespace: istio-system, annotations: {kubegrace.dev/ignore: daemonset-surge}}'),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

/** Real charts (../shared/corpus/rendered, rendered for Kubernetes 1.31): reviewed findings, pinned. */
const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const corpusFile = (f: string) => fs.readFileSync(path.join(CORPUS, f), 'utf8');
const describeCorpus = fs.existsSync(CORPUS) ? describe : describe.skip;

describeCorpus('daemonset-surge on the corpus', () => {
  test('node-exporter (metrics on a host port), metallb speaker and the otel agent (host ports) are not surge candidates', () => {
    for (const f of ['kube-prometheus.yaml', 'metallb-native.yaml', 'otel-collector-daemonset-lifecycle-hooks.yaml']) {
      expect(runRule(daemonsetSurge, corpusFile(f), '1.31')).toEqual([]);
    }
  });
});

test('writableHostPaths: writable hostPath directories of the program, not the node\'s system paths, files or read-only mounts', () => {
  const yaml = ds(
    'agent',
    `      containers:
      - name: agent
        image: a
        volumeMounts: [{name: state, mountPath: /state}, {name: sock, mountPath: /run/x.sock}, {name: sys, mountPath: /host/sys}, {name: ro, mountPath: /ro, readOnly: true}]
      volumes:
      - {name: state, hostPath: {path: /var/lib/agent}}
      - {name: sock, hostPath: {path: /run/x.sock, type: Socket}}
      - {name: sys, hostPath: {path: /sys/fs/cgroup}}
      - {name: ro, hostPath: {path: /var/lib/ro, type: Directory}}`,
  ) + localSvc('internalTrafficPolicy: Local');
  const got = runRule(daemonsetSurge, yaml);
  expect(got.map((f) => [f.message.match(/hostPath ([^)]*\))/)?.[1], f.fix])).toEqual([['/var/lib/agent (state)', undefined]]);
  // Without it, the surge-first fix (a proposal) as before.
  expect(runRule(daemonsetSurge, ds('agent', '      containers: [{name: agent, image: a}]') + localSvc('internalTrafficPolicy: Local'))[0].fix?.safety).toBe('proposal');
});

test('the hostPath caveat: not for the node-level proxies the rule names (ztunnel hands over through its socket directory), nor for log directories', () => {
  const ztunnelSock = `      containers:
      - name: istio-proxy
        image: "docker.io/istio/ztunnel:1.24.0"
        volumeMounts: [{name: cni-ztunnel-sock-dir, mountPath: /var/run/ztunnel}]
      volumes:
      - {name: cni-ztunnel-sock-dir, hostPath: {path: /var/run/ztunnel, type: DirectoryOrCreate}}`;
  const z = runRule(daemonsetSurge, ds('ztunnel', ztunnelSock));
  expect(z.map((f) => [f.message.includes('writes to the node'), f.fix?.safety])).toEqual([[false, 'proposal']]);
  const logs = ds(
    'agent',
    `      containers:
      - name: agent
        image: a
        volumeMounts: [{name: varlog, mountPath: /var/log}]
      volumes:
      - {name: varlog, hostPath: {path: /var/log}}`,
  ) + localSvc('internalTrafficPolicy: Local');
  expect(runRule(daemonsetSurge, logs).map((f) => [f.message.includes('writes to the node'), f.fix?.safety])).toEqual([[false, 'proposal']]);
});

