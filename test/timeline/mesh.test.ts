import { KubeVersion } from '../../lib/engine/version';
import { parseText } from '../../lib/model/parse';
import { KObject } from '../../lib/model/types';
import { Workload, workloadOf } from '../../lib/model/workload';
import { istioMesh, istioNativeByDefault, linkerdMesh, parseIstioProxyConfig } from '../../lib/timeline/mesh';

function objects(yaml: string): KObject[] {
  const p = parseText('m.yaml', yaml);
  if (p.errors.length) throw new Error(JSON.stringify(p.errors));
  return p.objects;
}

function workload(yaml: string): Workload {
  const w = objects(yaml).map(workloadOf).find((x) => x !== undefined);
  if (!w) throw new Error('no workload');
  return w;
}

/** A Deployment with the given template annotations/labels and pod-spec lines. */
function deploy(opts: { annotations?: string; labels?: string; spec?: string; meta?: string } = {}): Workload {
  return workload(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web${opts.meta ? `, annotations: {${opts.meta}}` : ''}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web${opts.labels ? `, ${opts.labels}` : ''}}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${opts.spec ?? '      containers: [{name: app, image: web}]'}
`);
}

const ns = (meta: string) => objects(`apiVersion: v1\nkind: Namespace\nmetadata: {name: default, ${meta}}\n`)[0];

describe('parseIstioProxyConfig', () => {
  test('YAML with a Go duration and proxyMetadata', () => {
    const r = parseIstioProxyConfig('terminationDrainDuration: 1m30s\nholdApplicationUntilProxyStarts: true\nproxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"\n  MINIMUM_DRAIN_DURATION: "10s"\n');
    expect(r.problems).toEqual([]);
    expect(r.config).toEqual({ terminationDrainDurationSeconds: 90, holdApplicationUntilProxyStarts: true, exitOnZeroActiveConnections: true, minimumDrainDurationSeconds: 10 });
  });
  test('JSON is YAML', () => {
    const r = parseIstioProxyConfig('{"terminationDrainDuration": "500ms", "proxyMetadata": {"EXIT_ON_ZERO_ACTIVE_CONNECTIONS": "False"}}');
    expect(r.problems).toEqual([]);
    expect(r.config).toEqual({ terminationDrainDurationSeconds: 0.5, exitOnZeroActiveConnections: false });
  });
  test('proto field names are accepted too (protojson)', () => {
    const r = parseIstioProxyConfig('termination_drain_duration: 20s\nproxy_metadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "1"}');
    expect(r.config).toEqual({ terminationDrainDurationSeconds: 20, exitOnZeroActiveConnections: true });
  });
  test('empty and unrelated fields', () => {
    expect(parseIstioProxyConfig('')).toEqual({ config: {}, problems: [] });
    expect(parseIstioProxyConfig('concurrency: 2\n')).toEqual({ config: {}, problems: [] });
  });
  test.each([
    ['terminationDrainDuration: [', /not valid YAML or JSON/],
    ['{"terminationDrainDuration": "30s"', /not valid YAML or JSON/],
    ['- a\n- b', /not a mapping/],
    ['terminationDrainDuration: 30', /not a duration string/],
    ['terminationDrainDuration: thirty', /not a duration string/],
    ['holdApplicationUntilProxyStarts: "yes"', /not a boolean/],
    ['proxyMetadata: [a]', /not a mapping of strings/],
    ['proxyMetadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: true}', /must be a quoted string/],
    ['proxyMetadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "yes"}', /not a boolean string/],
    ['proxyMetadata: {MINIMUM_DRAIN_DURATION: "5"}', /not a quoted Go duration/],
    ['a: 1\na: 2', /not valid YAML or JSON/],
  ])('malformed %j', (text, problem) => {
    const r = parseIstioProxyConfig(text);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(problem);
  });
});

describe('istioMesh', () => {
  test('no injection evident: undefined', () => {
    expect(istioMesh(deploy())).toBeUndefined();
    expect(istioMesh(deploy({ annotations: '"sidecar.istio.io/inject": "false"' }))).toBeUndefined();
  });
  test('inject label or annotation, defaults', () => {
    for (const w of [deploy({ labels: '"sidecar.istio.io/inject": "true"' }), deploy({ annotations: '"sidecar.istio.io/inject": "true"' })]) {
      const m = istioMesh(w)!;
      expect(m).toMatchObject({ injectedBy: 'annotation', mode: 'classic', modeOrigin: 'default', terminationDrainDurationSeconds: 5, terminationDrainSet: false, exitOnZeroActiveConnections: false, minimumDrainDurationSeconds: 5, gateway: false });
      expect(istioMesh(w, { nativeDefault: true })!.mode).toBe('native');
    }
  });
  test('namespace label injects, pod opt-out and hostNetwork do not', () => {
    const n = ns('labels: {istio-injection: enabled}');
    expect(istioMesh(deploy(), { namespace: n })!.injectedBy).toBe('namespace');
    expect(istioMesh(deploy(), { namespace: ns('labels: {istio.io/rev: canary}') })!.injectedBy).toBe('namespace');
    expect(istioMesh(deploy({ labels: '"sidecar.istio.io/inject": "false"' }), { namespace: n })).toBeUndefined();
    expect(istioMesh(deploy({ spec: '      hostNetwork: true\n      containers: [{name: app, image: web}]' }), { namespace: n })).toBeUndefined();
    expect(istioMesh(deploy(), { namespace: ns('labels: {istio-injection: disabled}') })).toBeUndefined();
  });
  test('nativeSidecar annotation: anything but "false" is native', () => {
    const on = deploy({ annotations: '"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true"' });
    const off = deploy({ annotations: '"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "false"' });
    expect(istioMesh(on)).toMatchObject({ mode: 'native', modeOrigin: 'annotation' });
    expect(istioMesh(off, { nativeDefault: true })).toMatchObject({ mode: 'classic', modeOrigin: 'annotation' });
  });
  test('a rendered istio-proxy decides the mode', () => {
    const native = deploy({ spec: '      initContainers: [{name: istio-proxy, image: proxyv2, restartPolicy: Always}]\n      containers: [{name: app, image: web}]' });
    const classic = deploy({ spec: '      containers: [{name: app, image: web}, {name: istio-proxy, image: proxyv2}]', annotations: '"sidecar.istio.io/nativeSidecar": "true"' });
    expect(istioMesh(native)).toMatchObject({ injectedBy: 'container', mode: 'native', modeOrigin: 'container' });
    expect(istioMesh(classic)).toMatchObject({ injectedBy: 'container', mode: 'classic', modeOrigin: 'container' });
  });
  test('gateway template', () => {
    const m = istioMesh(deploy({ labels: '"sidecar.istio.io/inject": "true"', annotations: '"inject.istio.io/templates": gateway', spec: '      containers: [{name: istio-proxy, image: auto}]' }))!;
    expect(m).toMatchObject({ gateway: true, mode: 'classic' });
  });
  test('proxy config from the annotation, and its problems', () => {
    const m = istioMesh(deploy({ annotations: '"sidecar.istio.io/inject": "true", "proxy.istio.io/config": "terminationDrainDuration: 45s"' }))!;
    expect(m).toMatchObject({ terminationDrainDurationSeconds: 45, terminationDrainSet: true, configOrigin: 'annotation', problems: [] });
    const bad = istioMesh(deploy({ annotations: '"sidecar.istio.io/inject": "true", "proxy.istio.io/config": "terminationDrainDuration: [30s"' }))!;
    expect(bad.problems).toHaveLength(1);
    expect(bad.problems[0]).toMatchObject({ key: 'proxy.istio.io/config', origin: 'annotation' });
    expect(bad.terminationDrainDurationSeconds).toBe(5);
  });
  test('proxy config from a rendered proxy PROXY_CONFIG env', () => {
    const m = istioMesh(deploy({ spec: '      containers: [{name: app, image: web}, {name: istio-proxy, image: proxyv2, env: [{name: PROXY_CONFIG, value: "{\\"terminationDrainDuration\\":\\"12s\\"}"}]}]' }))!;
    expect(m).toMatchObject({ configOrigin: 'container', terminationDrainDurationSeconds: 12 });
  });
  test('istioNativeByDefault: Istio auto mode needs every kubelet >= 1.33', () => {
    expect(istioNativeByDefault(true, KubeVersion.parse('1.33'))).toBe(true);
    expect(istioNativeByDefault(true, KubeVersion.parse('1.32'))).toBe(false);
    expect(istioNativeByDefault(false, KubeVersion.parse('1.37'))).toBe(false);
  });
});

describe('linkerdMesh', () => {
  test('no injection evident: undefined', () => {
    expect(linkerdMesh(deploy())).toBeUndefined();
    expect(linkerdMesh(deploy({ annotations: 'linkerd.io/inject: disabled' }), { namespace: ns('annotations: {linkerd.io/inject: enabled}') })).toBeUndefined();
  });
  test('inject annotation on the template or workload, defaults', () => {
    for (const w of [deploy({ annotations: 'linkerd.io/inject: enabled' }), deploy({ meta: 'linkerd.io/inject: enabled' }), deploy({ annotations: 'linkerd.io/inject: ingress' })]) {
      expect(linkerdMesh(w)).toMatchObject({ injectedBy: 'annotation', mode: 'classic', modeOrigin: 'default', waitBeforeExitSeconds: 0, waitOrigin: 'default', shutdownGracePeriodSeconds: 120, selfIdentity: false, problems: [] });
    }
  });
  test('namespace injection and namespace config', () => {
    const m = linkerdMesh(deploy(), { namespace: ns('annotations: {linkerd.io/inject: enabled, config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "15"}') })!;
    expect(m).toMatchObject({ injectedBy: 'namespace', waitBeforeExitSeconds: 15, waitOrigin: 'namespace' });
  });
  test('wait and shutdown grace period annotations', () => {
    const m = linkerdMesh(deploy({ annotations: 'linkerd.io/inject: enabled, config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "20", config.linkerd.io/shutdown-grace-period: 1m' }))!;
    expect(m).toMatchObject({ waitBeforeExitSeconds: 20, waitOrigin: 'annotation', shutdownGracePeriodSeconds: 60, shutdownGraceOrigin: 'annotation' });
  });
  test.each([
    ['config.linkerd.io/proxy-enable-native-sidecar: "true"', 'native', 'config.linkerd.io/proxy-enable-native-sidecar'],
    ['config.beta.linkerd.io/proxy-enable-native-sidecar: "true"', 'native', 'config.beta.linkerd.io/proxy-enable-native-sidecar'],
    ['config.alpha.linkerd.io/proxy-enable-native-sidecar: "true"', 'native', 'config.alpha.linkerd.io/proxy-enable-native-sidecar'],
    ['config.linkerd.io/proxy-enable-native-sidecar: "false", config.alpha.linkerd.io/proxy-enable-native-sidecar: "true"', 'classic', 'config.linkerd.io/proxy-enable-native-sidecar'],
  ])('native switch %s', (ann, mode, key) => {
    expect(linkerdMesh(deploy({ annotations: `linkerd.io/inject: enabled, ${ann}` }))).toMatchObject({ mode, modeOrigin: 'annotation', modeKey: key });
  });
  test('nativeDefault applies only without an annotation', () => {
    expect(linkerdMesh(deploy({ annotations: 'linkerd.io/inject: enabled' }), { nativeDefault: true })!.mode).toBe('native');
  });
  test.each([
    ['config.alpha.linkerd.io/proxy-wait-before-exit-seconds: 20s', /whole number of seconds/],
    ['config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "-3"', /whole number of seconds/],
    ['config.linkerd.io/shutdown-grace-period: "30"', /not a Go duration/],
    ['config.linkerd.io/proxy-enable-native-sidecar: "yes"', /not "true" or "false"/],
  ])('malformed %s', (ann, problem) => {
    const m = linkerdMesh(deploy({ annotations: `linkerd.io/inject: enabled, ${ann}` }))!;
    expect(m.problems).toHaveLength(1);
    expect(m.problems[0].message).toMatch(problem);
    expect(m.waitBeforeExitSeconds).toBe(0);
    expect(m.shutdownGracePeriodSeconds).toBe(120);
  });
  test('a rendered classic proxy: mode, wait from its preStop, grace from its env, self identity', () => {
    const m = linkerdMesh(
      deploy({
        spec: `      containers:
      - {name: identity, image: controller}
      - name: linkerd-proxy
        image: proxy
        env: [{name: LINKERD2_PROXY_IDENTITY_SVC_ADDR, value: "localhost.:8080"}, {name: LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD, value: 45s}]
        lifecycle: {preStop: {exec: {command: [/bin/sleep, "30"]}}}`,
      }),
    )!;
    expect(m).toMatchObject({ injectedBy: 'container', mode: 'classic', modeOrigin: 'container', waitBeforeExitSeconds: 30, waitOrigin: 'container', shutdownGracePeriodSeconds: 45, shutdownGraceOrigin: 'container', selfIdentity: true });
  });
  test('a rendered native proxy', () => {
    const m = linkerdMesh(deploy({ spec: '      initContainers: [{name: linkerd-proxy, image: proxy, restartPolicy: Always, env: [{name: LINKERD2_PROXY_IDENTITY_SVC_ADDR, value: "linkerd-identity-headless.linkerd.svc:8080"}]}]\n      containers: [{name: app, image: web}]' }))!;
    expect(m).toMatchObject({ mode: 'native', modeOrigin: 'container', selfIdentity: false });
  });
  test('hostNetwork pods are never injected from annotations', () => {
    expect(linkerdMesh(deploy({ annotations: 'linkerd.io/inject: enabled', spec: '      hostNetwork: true\n      containers: [{name: app, image: web}]' }))).toBeUndefined();
  });
});
