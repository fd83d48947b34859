import * as fs from 'fs';
import * as path from 'path';
import { linkerdProxyDrain } from '../../lib/rules/linkerd-proxy-drain';
import { ruleTester, runRule } from '../helpers/rule-tester';

/** A served Deployment with the given template annotations and pod-spec lines. */
function deploy(annotations: string, podSpec: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}
const app = (preStop = '', grace = '') => `${grace ? `      terminationGracePeriodSeconds: ${grace}\n` : ''}      containers:
      - name: app
        image: web
        ports: [{containerPort: 8080}]
${preStop ? `        lifecycle: {preStop: ${preStop}}\n` : ''}`;
const sleep = (n: number) => `{sleep: {seconds: ${n}}}`;
const inject = '"linkerd.io/inject": enabled';
const wait = (n: string) => `"config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "${n}"`;
const native = '"config.linkerd.io/proxy-enable-native-sidecar": "true"';
const namespace = (annotations: string) => `---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations: {${annotations}}
`;

ruleTester(linkerdProxyDrain, {
  valid: [
    { name: 'injected, no wait set, no app preStop: nothing here (prestop-missing reports the app)', yaml: deploy(inject, app()) },
    { name: 'Linkerd\'s guidance: app sleep 10 < proxy wait 20 < grace 60', yaml: deploy(`${inject}, ${wait('20')}`, app(sleep(10), '60')) },
    { name: 'app without a hook (S = 0) < wait 20 < grace 30', yaml: deploy(`${inject}, ${wait('20')}`, app()) },
    { name: 'wait annotation with linkerd.io/inject: disabled on the pod: not meshed', yaml: deploy(`"linkerd.io/inject": disabled, ${wait('60')}`, app()) },
    { name: 'wait annotation on a hostNetwork pod: injectors skip it', yaml: deploy(wait('60'), `      hostNetwork: true\n${app()}`) },
    { name: 'native mode without a wait', yaml: deploy(`${inject}, ${native}`, app(sleep(10))) },
    { name: 'native mode with wait "0" (the default) is not dead config', yaml: deploy(`${inject}, ${native}, ${wait('0')}`, app()) },
    { name: 'httpGet app preStop: delay unknown, no comparison', yaml: deploy(`${inject}, ${wait('5')}`, app('{httpGet: {path: /drain, port: 8080}}')) },
    { name: 'pod opts out while the namespace injects', yaml: deploy(`"linkerd.io/inject": disabled, ${wait('90')}`, app()) + namespace('linkerd.io/inject: enabled') },
    { name: 'shutdown grace period without the long-lived hint: never by default', yaml: deploy(inject, app()) },
    {
      name: 'long-lived, but wait 10 + shutdown-grace-period 15s = 25 <= 30',
      yaml: deploy(`${inject}, ${wait('10')}, "config.linkerd.io/shutdown-grace-period": 15s, "kubegrace.dev/connection-pattern": long-lived`, app()),
    },
    {
      name: 'rendered native proxy of the control plane (corpus: linkerd-destination)',
      yaml: deploy('', `      initContainers:
      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy, restartPolicy: Always}
      containers:
      - {name: destination, image: controller, ports: [{containerPort: 8080}]}`),
    },
    {
      name: 'Jobs are skipped',
      yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    metadata: {annotations: {${inject}, ${wait('99')}}}
    spec:
      restartPolicy: Never
      containers: [{name: app, image: a}]
`,
    },
  ],
  invalid: [
    {
      // Linkerd's graceful-shutdown docs: on SIGTERM the proxy refuses all new requests at once; the
      // app's preStop then serves nothing meshed.
      name: 'injected, no wait set, app preStop 10s: warning at the annotations, the fix sets the wait to preStop + drain',
      yaml: deploy(inject, app(sleep(10))),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/metadata/annotations',
          message: /^the linkerd-proxy gets SIGTERM as soon as the pod starts terminating \(classic proxy assumed.*; config\.alpha\.linkerd\.io\/proxy-wait-before-exit-seconds is not set\), while container "app" sleeps 10s in its preStop to keep serving: from its SIGTERM the proxy refuses new connections.*set config\.alpha\.linkerd\.io\/proxy-wait-before-exit-seconds: "20" \(preStop \+ drain\), with terminationGracePeriodSeconds >= 30s, or run the proxy as a native sidecar/,
        },
      ],
    },
    {
      name: 'wait "0" written out, app preStop 10s: the same warning, naming the 0',
      yaml: deploy(`${inject}, ${wait('0')}`, app(sleep(10))),
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', message: /config\.alpha\.linkerd\.io\/proxy-wait-before-exit-seconds is 0s\), while container "app" sleeps 10s/ }],
    },
    {
      name: 'rendered classic proxy without a preStop, app preStop 10s: the fix gives the proxy its own sleep (an annotation would change nothing)',
      yaml: deploy('', `      containers:
      - name: app
        image: web
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 10}}}
      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy}`),
      findings: [{ severity: 'warning', message: /the rendered linkerd-proxy is a classic container; config\.alpha\.linkerd\.io\/proxy-wait-before-exit-seconds is not set/}],
    },
    {
      // Namespace-level injection is the common setup and usually outside the linted set: a proxy
      // configuration annotation is itself the evidence that the pod is meshed.
      name: 'wait annotation without an inject annotation, Namespace or Service in the set: meshed by evidence, error',
      yaml: deploy(wait('60'), app()).split('---')[0],
      findings: [{ severity: 'error', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', message: /linkerd-proxy waits 60s before exit .* >= the default grace period \(30s\)/ }],
    },
    {
      name: 'config.linkerd.io/* annotation (not the wait itself) is also evidence: wait 40 >= grace 30',
      yaml: deploy(`"config.linkerd.io/proxy-cpu-request": 100m, ${wait('40')}`, app()).split('---')[0],
      findings: [{ severity: 'error', message: /waits 40s before exit/ }],
    },
    {
      name: 'wait equal to the default grace: error at the annotation',
      yaml: deploy(`${inject}, ${wait('30')}`, app()),
      findings: [
        {
          severity: 'error',
          pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds',
          message: /linkerd-proxy waits 30s before exit .* >= the default grace period \(30s\) \(classic proxy assumed.*raise terminationGracePeriodSeconds to at least 35s/,
        },
      ],
    },
    {
      name: 'wait above an explicit grace: error',
      yaml: deploy(`${inject}, ${wait('60')}`, app(sleep(10), '45')),
      findings: [{ severity: 'error', message: '>= terminationGracePeriodSeconds (45s)' }],
    },
    {
      name: 'rendered classic proxy whose preStop sleeps past the grace: error at its preStop',
      yaml: deploy('', `      terminationGracePeriodSeconds: 30
      containers:
      - {name: app, image: web, ports: [{containerPort: 8080}]}
      - name: linkerd-proxy
        image: cr.l5d.io/linkerd/proxy
        lifecycle: {preStop: {exec: {command: [/bin/sleep, "40"]}}}`),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/containers/1/lifecycle/preStop', message: 'the rendered linkerd-proxy is a classic container' }],
    },
    {
      name: 'app preStop equal to the proxy wait: warning',
      yaml: deploy(`${inject}, ${wait('10')}`, app(sleep(10), '60')),
      findings: [{ severity: 'warning', message: 'container "app" has a preStop delay of 10s >= that: the proxy gets SIGTERM no later than the app does, so the app\'s calls while it drains fail; set config.alpha.linkerd.io/proxy-wait-before-exit-seconds above the app\'s preStop, e.g. "20" (preStop + drain), with terminationGracePeriodSeconds >= 60s' }],
    },
    {
      name: 'app preStop longer than the proxy wait: warning, grace advice grows',
      yaml: deploy(`${inject}, ${wait('5')}`, app('{exec: {command: [sh, -c, "sleep 15"]}}')),
      findings: [{ severity: 'warning', message: 'e.g. "25" (preStop + drain), with terminationGracePeriodSeconds >= 30s' }],
    },
    {
      name: 'native sidecar annotation makes the wait dead config: info',
      yaml: deploy(`${inject}, ${native}, ${wait('20')}`, app()),
      findings: [{ severity: 'info', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', message: 'is ignored because the proxy runs as a native sidecar (config.linkerd.io/proxy-enable-native-sidecar: "true")' }],
    },
    {
      name: 'rendered native proxy plus a wait annotation: info',
      yaml: deploy(wait('15'), `      initContainers:
      - {name: linkerd-proxy, image: proxy, restartPolicy: Always}
      containers:
      - {name: app, image: web, ports: [{containerPort: 8080}]}`),
      findings: [{ severity: 'info', message: 'the rendered linkerd-proxy is a native sidecar' }],
    },
    {
      name: 'param nativeDefault (Linkerd >= 2.20): the wait is dead config',
      yaml: deploy(`${inject}, ${wait('20')}`, app()),
      params: { nativeDefault: true },
      findings: [{ severity: 'info', message: 'native sidecar assumed (param nativeDefault)' }],
    },
    {
      name: 'injection and wait from the Namespace',
      yaml: deploy('', app()) + namespace(`linkerd.io/inject: enabled, config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "45"`),
      findings: [{ severity: 'error', object: 'Deployment/web', message: 'waits 45s' }],
    },
    {
      name: 'malformed wait: warning, ignored by Linkerd',
      yaml: deploy(`${inject}, ${wait('20s')}`, app()),
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', message: 'is not a whole number of seconds; Linkerd ignores it' }],
    },
    {
      name: 'malformed native switch on the Namespace is reported on the Namespace',
      yaml: deploy(inject, app()) + namespace('config.linkerd.io/proxy-enable-native-sidecar: "yes"'),
      findings: [{ severity: 'warning', object: 'Namespace/shop', pointer: '/metadata/annotations/config.linkerd.io~1proxy-enable-native-sidecar' }],
    },
    {
      name: 'MESH-LINKERD-002 classic: long-lived, default shutdown grace 120s > 30s',
      yaml: deploy(`${inject}, "kubegrace.dev/connection-pattern": long-lived`, app()),
      findings: [{ severity: 'info', pointer: '/spec/template/spec', message: 'proxy wait 0s + shutdown-grace-period 120s (default) = 120s exceeds the default grace period (30s)' }],
    },
    {
      name: 'MESH-LINKERD-002 native: app 10 + 10, then shutdown grace 30s > 45s',
      yaml: deploy(`${inject}, ${native}, "config.linkerd.io/shutdown-grace-period": 30s, "kubegrace.dev/connection-pattern": fan-in`, app(sleep(10), '45')),
      findings: [{ severity: 'info', pointer: '/spec/template/metadata/annotations/config.linkerd.io~1shutdown-grace-period', message: 'the native proxy gets SIGTERM after the app\'s 20s' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: deploy(`${inject}, ${wait('40')}, "kubegrace.dev/ignore": "linkerd-proxy-drain"`, app()),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});

/** Real charts (../shared/corpus/rendered, rendered for Kubernetes 1.31): reviewed findings, pinned. */
describe('linkerd-proxy-drain without a wait: the repair', () => {
  test('an injected pod gets the annotation (a proposal); a rendered proxy gets its own preStop sleep before 1.29 (the annotation would change nothing) and no repair from 1.29, where native-sidecar proposes making it native', () => {
    const [annotated] = runRule(linkerdProxyDrain, deploy(inject, app(sleep(10))));
    expect(annotated.fix).toEqual({
      description: 'set config.alpha.linkerd.io/proxy-wait-before-exit-seconds to "20"',
      safety: 'proposal',
      edits: [{ op: 'set', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', value: '20' }],
    });
    const rendered = deploy('', `      containers:
      - name: app
        image: web
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 10}}}
      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy}`);
    // Before 1.29 (no native sidecars): the proxy gets its own preStop sleep (exec, as the sleep action is not there yet).
    const [old] = runRule(linkerdProxyDrain, rendered, '1.28');
    expect(old.fix).toEqual({
      description: 'add preStop exec sleep 20 to container "linkerd-proxy"',
      safety: 'proposal',
      edits: [{ op: 'set', pointer: '/spec/template/spec/containers/1/lifecycle/preStop', value: { exec: { command: ['sleep', '20'] } } }],
    });
    expect(old.message).not.toContain('native sidecar');
    // From 1.29: no repair here; native-sidecar's proposal (make the proxy native) is the better one, and the message names it.
    const [now] = runRule(linkerdProxyDrain, rendered, '1.33');
    expect(now.fix).toBeUndefined();
    expect(now.message).toMatch(/, or run the proxy as a native sidecar, which Kubernetes stops only after the app has exited \(the rendered linkerd-proxy as an init container with restartPolicy: Always, as native-sidecar proposes\)$/);
    // An injected proxy: the annotation that asks Linkerd for a native sidecar.
    expect(annotated.message).toMatch(/or run the proxy as a native sidecar, .*\(config\.linkerd\.io\/proxy-enable-native-sidecar: "true"\)$/);
  });
});

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const corpusFile = (f: string) => fs.readFileSync(path.join(CORPUS, f), 'utf8');
const describeCorpus = fs.existsSync(CORPUS) ? describe : describe.skip;

describeCorpus('linkerd-proxy-drain on the corpus', () => {
  test('linkerd control plane: the chart forces waitBeforeExitSeconds 0 for its own proxies', () => {
    for (const f of ['linkerd-control-plane.yaml', 'linkerd-control-plane-ha.yaml']) {
      expect(runRule(linkerdProxyDrain, corpusFile(f), '1.31')).toEqual([]);
    }
  });
});
