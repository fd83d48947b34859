import { ObjectGraph } from '../../lib/model/graph';
import { parseText } from '../../lib/model/parse';
import { gracePeriodBudget } from '../../lib/rules/grace-period-budget';
import { parseSidecarDrainHint, shutdownAddends, totalSidecarDrain } from '../../lib/timeline/addends';
import { ruleTester } from '../helpers/rule-tester';

function graph(yaml: string): ObjectGraph {
  return new ObjectGraph(parseText('a.yaml', yaml).objects);
}

/** A served Deployment with the given template annotations and pod-spec lines. */
function deploy(podSpec: string, annotations = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}
const app = (seconds: number) => `      containers:
      - name: app
        image: web
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: ${seconds}}}}
`;
const natives = (...names: string[]) => `      initContainers:\n${names.map((n) => `      - {name: ${n}, image: h, restartPolicy: Always}\n`).join('')}`;

describe('shutdownAddends', () => {
  test('no native sidecar, no addend (classic mesh proxies run in parallel with the app)', () => {
    const g = graph(deploy(`${app(10)}      - {name: istio-proxy, image: proxyv2}\n`, '"sidecar.istio.io/inject": "true"'));
    expect(shutdownAddends(g, g.workloads[0])).toEqual([]);
  });
  test('each native sidecar adds its drain, default 5 s', () => {
    const g = graph(deploy(natives('istio-proxy', 'fluent-bit') + app(10)));
    expect(shutdownAddends(g, g.workloads[0])).toEqual([
      { seconds: 5, source: 'native sidecar "istio-proxy" drain' },
      { seconds: 5, source: 'native sidecar "fluent-bit" drain' },
    ]);
    expect(totalSidecarDrain(g.workloads[0])).toBe(10);
  });
  test('hint per name and for all; zero drops the addend', () => {
    const g = graph(deploy(natives('istio-proxy', 'fluent-bit', 'vault') + app(10), '"kubegrace.dev/sidecar-drain-seconds": "2, fluent-bit=15s, istio-proxy=0"'));
    expect(shutdownAddends(g, g.workloads[0])).toEqual([
      { seconds: 15, source: 'native sidecar "fluent-bit" drain' },
      { seconds: 2, source: 'native sidecar "vault" drain' },
    ]);
  });
  test('a mesh proxy injected as a native sidecar counts when the annotation asks for native mode', () => {
    const lk = graph(deploy(app(10), '"linkerd.io/inject": enabled, "config.linkerd.io/proxy-enable-native-sidecar": "true", "kubegrace.dev/sidecar-drain-seconds": "linkerd-proxy=3"'));
    expect(shutdownAddends(lk, lk.workloads[0])).toEqual([{ seconds: 3, source: 'native sidecar "linkerd-proxy" drain (injected)' }]);
    const is = graph(deploy(app(10), '"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true"'));
    expect(shutdownAddends(is, is.workloads[0])).toEqual([{ seconds: 5, source: 'native sidecar "istio-proxy" drain (injected)' }]);
  });
  test('an injected proxy whose mode is only a default, or classic, adds nothing', () => {
    for (const a of ['"linkerd.io/inject": enabled', '"sidecar.istio.io/inject": "true"', '"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "false"']) {
      const g = graph(deploy(app(10), a));
      expect(shutdownAddends(g, g.workloads[0])).toEqual([]);
    }
  });
  test('parseSidecarDrainHint', () => {
    expect(parseSidecarDrainHint(undefined)).toEqual({ byName: {} });
    expect(parseSidecarDrainHint('5')).toEqual({ all: 5, byName: {} });
    expect(parseSidecarDrainHint('a=1m, b=3')).toEqual({ byName: { a: 60, b: 3 } });
    const bad = parseSidecarDrainHint('a=soon, 4, =2');
    expect(bad.all).toBe(4);
    expect(bad.problem).toMatch(/cannot read "a=soon", "=2"/);
  });
});

// grace-period-budget with the sidecar addend (new cases; the model test file is left as is).
ruleTester(gracePeriodBudget, {
  valid: [
    { name: 'native sidecar addend fits: 15 + 10 + 5 = 30', yaml: deploy(natives('istio-proxy') + app(15)) },
    { name: 'classic mesh proxy adds nothing: 20 + 10 = 30', yaml: deploy(`${app(20)}      - {name: linkerd-proxy, image: p}\n`, '"linkerd.io/inject": enabled') },
    { name: 'hint sets the sidecar drain to 0: 20 + 10 + 0 = 30', yaml: deploy(natives('istio-proxy') + app(20), '"kubegrace.dev/sidecar-drain-seconds": "0"') },
  ],
  invalid: [
    {
      name: 'native sidecars push preStop + drain over the grace period',
      yaml: deploy(natives('istio-proxy', 'fluent-bit') + app(15)),
      findings: [{ severity: 'warning', message: 'preStop 15s + drain 10s (assumed) + native sidecar "istio-proxy" drain 5s + native sidecar "fluent-bit" drain 5s = 35s exceeds the default grace period (30s)' }],
    },
    {
      name: 'the error condition is unchanged by the addend, which is counted in the advice',
      yaml: deploy(`      terminationGracePeriodSeconds: 20\n${natives('proxy')}${app(20)}`),
      findings: [{ severity: 'error', message: 'raise the grace period to at least 40s' }],
    },
  ],
});
