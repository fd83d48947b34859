import * as fs from 'fs';
import * as path from 'path';
import { istioProxyDrain } from '../../lib/rules/istio-proxy-drain';
import { ruleTester, runRule } from '../helpers/rule-tester';

function deploy(annotations: string, podSpec: string, labels = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: reviews, namespace: shop}
spec:
  selector: {matchLabels: {app: reviews}}
  template:
    metadata:
      labels: {app: reviews${labels ? `, ${labels}` : ''}}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
`;
}
const app = (preStop = '', grace = '') => `${grace ? `      terminationGracePeriodSeconds: ${grace}\n` : ''}      containers:
      - name: app
        image: reviews
${preStop ? `        lifecycle: {preStop: ${preStop}}\n` : ''}`;
const sleep = (n: number) => `{sleep: {seconds: ${n}}}`;
const inject = '"sidecar.istio.io/inject": "true"';
const classic = `${inject}, "sidecar.istio.io/nativeSidecar": "false"`;
const config = (text: string) => `"proxy.istio.io/config": ${JSON.stringify(text)}`;

ruleTester(istioProxyDrain, {
  valid: [
    { name: 'proxy config annotation, but the pod opts out of injection', yaml: deploy(`"sidecar.istio.io/inject": "false", ${config('terminationDrainDuration: 40s')}`, app()) },
    { name: 'no injection evident (bookinfo applied to an injecting namespace outside the set)', yaml: deploy('', app(sleep(20))) },
    {
      name: 'istiod itself: inject false, and its ConfigMap holds injection templates as text',
      yaml: deploy('"sidecar.istio.io/inject": "false"', app(sleep(20)), '"sidecar.istio.io/inject": "false"') + `---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio-sidecar-injector}
data:
  config: |
    templates:
      sidecar: |
        containers:
        - name: istio-proxy
          args: [proxy, sidecar]
`,
    },
    { name: 'native by default on 1.33 (Istio >= 1.28, auto): grace-period-budget judges G vs the app', yaml: deploy(inject, app(sleep(20))) },
    { name: 'native by annotation below 1.33', yaml: deploy(`${inject}, "sidecar.istio.io/nativeSidecar": "true"`, app(sleep(20))), kubeVersion: '1.32' },
    { name: 'rendered native istio-proxy', yaml: deploy('', `      initContainers: [{name: istio-proxy, image: proxyv2, restartPolicy: Always}]\n${app(sleep(20))}`) },
    { name: 'classic, app without a hook and no drain hint: not judged', yaml: deploy(classic, app()) },
    { name: 'classic, app 10 + 10 = 20 <= terminationDrainDuration 30s < grace 45', yaml: deploy(`${classic}, ${config('terminationDrainDuration: 30s')}`, app(sleep(10), '45')) },
    { name: 'classic with EXIT_ON_ZERO_ACTIVE_CONNECTIONS: the proxy waits for the connections', yaml: deploy(`${classic}, ${config('proxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"\n')}`, app(sleep(20), '45')) },
    {
      name: 'gateway: Envoy is the app; default drain 5s < 30s',
      yaml: deploy('"inject.istio.io/templates": gateway', '      containers: [{name: istio-proxy, image: auto}]', inject),
      kubeVersion: '1.31',
    },
    {
      name: 'host-network pods are never injected',
      yaml: deploy('', `      hostNetwork: true\n${app(sleep(20))}`) + `---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio-injection: enabled}}
`,
      kubeVersion: '1.31',
    },
    { name: 'drain hint lowers the need: 0 + 4 <= 5', yaml: deploy(`${classic}, "kubegrace.dev/drain-seconds": "4"`, app()) },
  ],
  invalid: [
    {
      // Namespace-level injection is the common setup and is usually outside the linted set; a proxy
      // configuration annotation is itself the evidence that the pod is meshed.
      name: 'proxy.istio.io/config alone (no inject label, Namespace or Service in the set): drain 40s >= grace 30s',
      yaml: deploy(config('terminationDrainDuration: 40s'), app()),
      kubeVersion: '1.31',
      findings: [{ severity: 'warning', message: /terminationDrainDuration 40s >= the default grace period \(30s\)/ }],
    },
    {
      name: 'classic by default below 1.33: app 10 + 10 > default 5s',
      yaml: deploy(inject, app(sleep(10))),
      kubeVersion: '1.32',
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/metadata/annotations',
          message: /container "app" needs preStop 10s \+ drain 10s = 20s, but istio-proxy stops after terminationDrainDuration 5s \(default\) \(classic assumed: .*every kubelet is >= 1\.33, and the target is 1\.32.*"terminationDrainDuration: 20s" \(keeping terminationGracePeriodSeconds >= 25s\)/,
        },
      ],
    },
    {
      name: 'param istioNativeDefault false (Istio < 1.28): classic on 1.33',
      yaml: deploy(inject, app(sleep(10))),
      params: { istioNativeDefault: false },
      findings: [{ severity: 'warning', message: 'classic assumed: rule param istioNativeDefault is false' }],
    },
    {
      name: 'nativeSidecar "false": classic even on 1.37',
      yaml: deploy(`${classic}, ${config('terminationDrainDuration: 10s')}`, app(sleep(15))),
      kubeVersion: '1.37',
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/proxy.istio.io~1config', message: 'terminationDrainDuration 10s (classic: sidecar.istio.io/nativeSidecar: "false")' }],
    },
    {
      name: 'rendered classic istio-proxy',
      yaml: deploy('', `${app(sleep(10))}      - {name: istio-proxy, image: proxyv2}\n`),
      findings: [{ severity: 'warning', message: 'classic: istio-proxy is a regular container' }],
    },
    {
      name: 'terminationDrainDuration >= grace',
      yaml: deploy(`${classic}, ${config('{"terminationDrainDuration": "30s"}')}`, app(sleep(5))),
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/proxy.istio.io~1config', message: 'istio-proxy terminationDrainDuration 30s >= the default grace period (30s)' }],
    },
    {
      name: 'EXIT_ON_ZERO: MINIMUM_DRAIN_DURATION >= grace',
      yaml: deploy(`${classic}, ${config('proxyMetadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true", MINIMUM_DRAIN_DURATION: "1m"}')}`, app('', '45')),
      findings: [{ severity: 'warning', message: 'MINIMUM_DRAIN_DURATION 60s >= terminationGracePeriodSeconds (45s)' }],
    },
    {
      name: 'gateway drain >= grace',
      yaml: deploy(`"inject.istio.io/templates": gateway, ${config('terminationDrainDuration: 40s')}`, '      containers: [{name: istio-proxy, image: auto}]', inject),
      findings: [{ severity: 'warning', message: '(gateway)' }],
    },
    {
      name: 'malformed proxy config: reported in any mode',
      yaml: deploy(`${inject}, ${config('{"terminationDrainDuration": "30s"')}`, app()),
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/proxy.istio.io~1config', message: 'proxy.istio.io/config: not valid YAML or JSON' }],
    },
    {
      name: 'duration written as a number',
      yaml: deploy(`${inject}, ${config('terminationDrainDuration: 30')}`, app()),
      findings: [{ severity: 'warning', message: 'is not a duration string such as "30s"' }],
    },
    {
      name: 'namespace injection (Namespace in the set), classic below 1.33',
      yaml: deploy('', app(sleep(10))) + `---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio-injection: enabled}}
`,
      kubeVersion: '1.29',
      findings: [{ severity: 'warning', object: 'Deployment/reviews', pointer: '/spec/template/metadata' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: deploy(`${classic}, "kubegrace.dev/ignore": "istio-proxy-drain"`, app(sleep(10))),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

/** Real charts (../shared/corpus/rendered, rendered for Kubernetes 1.31): reviewed findings, pinned. */
const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const corpusFile = (f: string) => fs.readFileSync(path.join(CORPUS, f), 'utf8');
const describeCorpus = fs.existsSync(CORPUS) ? describe : describe.skip;

describeCorpus('istio-proxy-drain on the corpus', () => {
  test.each(['1.31', '1.33'])('istiod (templates in a ConfigMap), the gateway and bookinfo (no injection evident) on %s', (v) => {
    for (const f of ['istiod.yaml', 'istiod-ha.yaml', 'istio-gateway.yaml', 'istio-bookinfo.yaml', 'istio-addons.yaml']) {
      expect(runRule(istioProxyDrain, corpusFile(f), v)).toEqual([]);
    }
  });
});

// Review round 21 (istio ambient): ztunnel names its container istio-proxy, but it is the node proxy
// (image ztunnel, args proxy ztunnel), with no terminationDrainDuration: it drains for its own
// TERMINATION_GRACE_PERIOD_SECONDS (istio/ztunnel src/config.rs).
test('istio-proxy-drain: ambient ztunnel with the chart\'s grace 5s is no sidecar proxy', () => {
  const ds = (image: string, args: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ztunnel, namespace: istio-system}
spec:
  selector: {matchLabels: {app: ztunnel}}
  template:
    metadata:
      labels: {app: ztunnel, sidecar.istio.io/inject: "false"}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: istio-proxy
        image: ${image}
        args: ${args}
        env: [{name: TERMINATION_GRACE_PERIOD_SECONDS, value: "5"}]
`;
  expect(runRule(istioProxyDrain, ds('docker.io/istio/ztunnel:1.27.0', '[proxy, ztunnel]'))).toEqual([]);
  // A private mirror of the image: the args tell.
  expect(runRule(istioProxyDrain, ds('registry.example.com/mesh/zt:1.27.0', '[proxy, ztunnel]'))).toEqual([]);
  // An Envoy sidecar under that name still counts.
  expect(runRule(istioProxyDrain, ds('docker.io/istio/proxyv2:1.27.0', '[proxy, sidecar]'))).toHaveLength(1);
});
