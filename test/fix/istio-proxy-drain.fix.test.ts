import { istioProxyDrain, withTerminationDrain } from '../../lib/rules/istio-proxy-drain';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

/** A meshed Deployment; `annotations` are block lines (already indented for the annotations map). */
function deploy(o: { annotations?: string; grace?: number; appPreStop?: number; proxy?: string } = {}): string {
  return `# reviews service
apiVersion: apps/v1
kind: Deployment
metadata:
  name: reviews
  namespace: shop
spec:
  selector:
    matchLabels: {app: reviews}
  template:
    metadata:
      labels: {app: reviews}
      annotations:
        sidecar.istio.io/inject: "true" # meshed
${o.annotations ?? ''}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace} # tuned\n`}      containers:
      - name: app # the application
        image: reviews
${o.appPreStop === undefined ? '' : `        lifecycle: {preStop: {sleep: {seconds: ${o.appPreStop}}}} # endpoint lag\n`}${o.proxy ?? ''}`;
}
const CLASSIC = '        sidecar.istio.io/nativeSidecar: "false" # classic on purpose\n';

fixTester(istioProxyDrain, [
  {
    name: 'terminationDrainDuration 60s >= grace 30: grace raised to 65 (safe, plain --fix)',
    yaml: deploy({ annotations: `${CLASSIC}        proxy.istio.io/config: "terminationDrainDuration: 60s" # long drains\n` }),
    contains: ['      terminationGracePeriodSeconds: 65'],
  },
  {
    name: 'EXIT_ON_ZERO_ACTIVE_CONNECTIONS with MINIMUM_DRAIN_DURATION 40s >= grace 40: grace 45',
    yaml: deploy({
      annotations: `${CLASSIC}        proxy.istio.io/config: |\n          proxyMetadata:\n            EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"\n            MINIMUM_DRAIN_DURATION: "40s"\n`,
      grace: 40,
    }),
    contains: ['      terminationGracePeriodSeconds: 45 # tuned'],
  },
  {
    name: 'default drain 5s < app 20 + 10: annotation added with terminationDrainDuration 30s, grace 35',
    yaml: deploy({ annotations: CLASSIC, appPreStop: 20 }),
    proposals: true,
    contains: ['proxy.istio.io/config: "terminationDrainDuration: 30s"', 'terminationGracePeriodSeconds: 35'],
  },
  {
    name: 'classic assumed below 1.33 (no annotation): same repair',
    yaml: deploy({ appPreStop: 10, grace: 60 }),
    kubeVersion: '1.32',
    proposals: true,
    contains: ['proxy.istio.io/config: "terminationDrainDuration: 20s"', 'terminationGracePeriodSeconds: 60 # tuned'],
  },
  {
    name: 'YAML config with other fields and a comment inside: only the duration changes',
    yaml: deploy({
      annotations: `${CLASSIC}        proxy.istio.io/config: |\n          # set by the platform team\n          holdApplicationUntilProxyStarts: true\n          terminationDrainDuration: 5s\n`,
      appPreStop: 15,
      grace: 60,
    }),
    proposals: true,
    contains: ['          # set by the platform team\n          holdApplicationUntilProxyStarts: true\n          terminationDrainDuration: 25s\n'],
  },
  {
    name: 'JSON config stays JSON; snake_case spelling kept',
    yaml: deploy({ annotations: `${CLASSIC}        proxy.istio.io/config: '{"holdApplicationUntilProxyStarts": true, "termination_drain_duration": "5s"}'\n`, appPreStop: 15, grace: 60 }),
    proposals: true,
    contains: [`'{"holdApplicationUntilProxyStarts":true,"termination_drain_duration":"25s"}'`],
  },
  {
    name: 'rendered classic proxy: its PROXY_CONFIG env is edited',
    yaml: deploy({
      appPreStop: 20,
      grace: 60,
      proxy: `      - name: istio-proxy # injected
        image: proxyv2
        env:
        - name: PROXY_CONFIG # from the mesh config
          value: '{"discoveryAddress":"istiod.istio-system.svc:15012","terminationDrainDuration":"5s"}'
`,
    }),
    proposals: true,
    contains: [`value: '{"discoveryAddress":"istiod.istio-system.svc:15012","terminationDrainDuration":"30s"}'`],
  },
  {
    name: 'rendered classic proxy without PROXY_CONFIG: the env entry is added',
    yaml: deploy({ appPreStop: 20, grace: 60, proxy: '      - name: istio-proxy # injected\n        image: proxyv2\n        env: [{name: ISTIO_META_MESH_ID, value: cluster.local}]\n' }),
    proposals: true,
    contains: ['PROXY_CONFIG', 'terminationDrainDuration: 30s'],
  },
]);

describe('istio-proxy-drain fix details', () => {
  test('the config change is a proposal: a plain --fix changes nothing', () => {
    const yaml = deploy({ annotations: CLASSIC, appPreStop: 20 });
    const r = fixWith(istioProxyDrain, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped.map((s) => s.finding.fix?.description)).toEqual(['set terminationDrainDuration to 30s in proxy.istio.io/config and terminationGracePeriodSeconds to 35']);
  });

  test('a config Istio rejects gets no drain fix on top', () => {
    const got = runRule(istioProxyDrain, deploy({ annotations: `${CLASSIC}        proxy.istio.io/config: "terminationDrainDuration: [5s"\n`, appPreStop: 20 }));
    expect(got.map((f) => [f.message.includes('rejects') ? 'problem' : 'drain', f.fix]).sort()).toEqual([
      ['drain', undefined],
      ['problem', undefined],
    ]);
  });

  test('withTerminationDrain', () => {
    expect(withTerminationDrain(undefined, 30)).toBe('terminationDrainDuration: 30s');
    expect(withTerminationDrain('{terminationDrainDuration: 5s}', 30)).toBe('{ terminationDrainDuration: 30s }');
    expect(withTerminationDrain('concurrency: 2\n', 12)).toBe('concurrency: 2\nterminationDrainDuration: 12s\n');
    expect(withTerminationDrain('- not a mapping', 12)).toBeUndefined();
  });
});
