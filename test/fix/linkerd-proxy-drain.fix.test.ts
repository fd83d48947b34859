import { linkerdProxyDrain } from '../../lib/rules/linkerd-proxy-drain';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

/** A served, meshed Deployment; `annotations` are block lines of the pod template's annotations. */
function deploy(o: { annotations?: string[]; own?: string[]; grace?: number; appPreStop?: number; extraContainers?: string; initContainers?: string } = {}): string {
  const ann = (list: string[] | undefined, indent: string) => (list?.length ? `${indent}annotations:\n${list.map((a) => `${indent}  ${a}\n`).join('')}` : '');
  return `# meshed web tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
${ann(o.own, '  ')}spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
${ann(o.annotations, '      ')}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace} # tuned\n`}${o.initContainers ?? ''}      containers:
      - name: app # the application
        image: web
        ports: [{containerPort: 8080}]
${o.appPreStop === undefined ? '' : `        lifecycle: {preStop: {sleep: {seconds: ${o.appPreStop}}}} # endpoint lag\n`}${o.extraContainers ?? ''}---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}

const INJECT = 'linkerd.io/inject: enabled # meshed';
const wait = (n: number) => `config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "${n}" # proxy outlives the app`;
const BARE_WAIT = 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "20"';
const NATIVE = 'config.linkerd.io/proxy-enable-native-sidecar: "true"';
const LONG = 'kubegrace.dev/connection-pattern: long-lived';
const renderedProxy = (preStop: string, env = '') => `      - name: linkerd-proxy # injected
        image: cr.l5d.io/linkerd/proxy:stable
${env}        lifecycle:
          preStop:
            exec:
              command: ${preStop} # wait before exit
`;

fixTester(linkerdProxyDrain, [
  {
    name: 'error: wait 60 >= grace 30: grace raised to 65 (safe, plain --fix)',
    yaml: deploy({ annotations: [INJECT, wait(60)], appPreStop: 10 }),
    contains: ['      terminationGracePeriodSeconds: 65'],
  },
  {
    name: 'error with a written grace: raised in place',
    yaml: deploy({ annotations: [INJECT, wait(45)], grace: 40 }),
    contains: ['      terminationGracePeriodSeconds: 50 # tuned'],
  },
  {
    name: 'warning: app sleep 10 >= wait 10: wait set to 20 (preStop + drain), grace 30 suffices',
    yaml: deploy({ annotations: [INJECT, wait(10)], appPreStop: 10 }),
    proposals: true,
    contains: ['config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "20" # proxy outlives the app'],
  },
  {
    name: 'warning: app sleep 20 >= wait 10: wait 30 and grace 35',
    yaml: deploy({ annotations: [INJECT, wait(10)], appPreStop: 20, grace: 30 }),
    proposals: true,
    contains: ['proxy-wait-before-exit-seconds: "30"', '      terminationGracePeriodSeconds: 35 # tuned'],
  },
  {
    name: 'warning with the wait on the Namespace: the pod template gets its own',
    yaml:
      deploy({ annotations: [INJECT], appPreStop: 15 }) +
      `---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "10" # namespace-wide
`,
    proposals: true,
    contains: ['        config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "25"', 'proxy-wait-before-exit-seconds: "10" # namespace-wide'],
  },
  {
    name: 'rendered classic proxy: its preStop sleep is edited, not an annotation',
    yaml: deploy({ appPreStop: 15, extraContainers: renderedProxy('["/bin/sleep", "10"]') }),
    proposals: true,
    contains: ['command: ["/bin/sleep", "25"] # wait before exit'],
  },
  {
    name: 'native: an ignored wait annotation is removed (pod template and workload metadata)',
    // (A removed line's own trailing comment goes with it; the comments around it stay.)
    yaml: deploy({ annotations: [INJECT, NATIVE, BARE_WAIT], own: ['# set before the native switch', BARE_WAIT] }),
    proposals: true,
  },
  {
    name: 'long-lived, classic: shutdown-grace-period lowered to fit (30 - 10 - 5 = 15s)',
    yaml: deploy({ annotations: [INJECT, wait(10), LONG] }),
    proposals: true,
    contains: ['        config.linkerd.io/shutdown-grace-period: 15s'],
  },
  {
    name: 'long-lived, native: room after the app (60 - (10 + 10) - 5 = 35s), written in place',
    yaml: deploy({ annotations: [INJECT, NATIVE, LONG, 'config.linkerd.io/shutdown-grace-period: 120s # default'], appPreStop: 10, grace: 60 }),
    proposals: true,
    contains: ['config.linkerd.io/shutdown-grace-period: 35s # default'],
  },
  {
    name: 'long-lived, rendered proxy: its LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD env',
    yaml: deploy({
      annotations: [LONG],
      grace: 60,
      extraContainers: renderedProxy('["/bin/sleep", "20"]', '        env:\n        - {name: LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD, value: 120s} # proxy default\n'),
    }),
    proposals: true,
    contains: ['{name: LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD, value: 35s} # proxy default'],
  },
]);

describe('linkerd-proxy-drain fix details', () => {
  test('the wait annotation is a proposal: a plain --fix changes nothing', () => {
    const yaml = deploy({ annotations: [INJECT, wait(10)], appPreStop: 10 });
    const r = fixWith(linkerdProxyDrain, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped.map((s) => s.finding.fix?.safety)).toEqual(['proposal']);
  });

  test('edits of the error and the warning', () => {
    const [e] = runRule(linkerdProxyDrain, deploy({ annotations: [INJECT, wait(60)], appPreStop: 10 }));
    expect(e.fix).toEqual({ description: 'set terminationGracePeriodSeconds to 65', safety: 'safe', edits: [{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 65 }] });
    const [w] = runRule(linkerdProxyDrain, deploy({ annotations: [INJECT, wait(10)], appPreStop: 20 }));
    expect(w.fix).toEqual({
      description: 'set config.alpha.linkerd.io/proxy-wait-before-exit-seconds to "30" and set terminationGracePeriodSeconds to 35',
      safety: 'proposal',
      edits: [
        { op: 'set', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', value: '30' },
        { op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 35 },
      ],
    });
  });

  test('with a declared drain of 0 the wait still goes above the app preStop', () => {
    const [w] = runRule(linkerdProxyDrain, deploy({ annotations: [INJECT, wait(10), 'kubegrace.dev/drain-seconds: "0"'], appPreStop: 10 }));
    expect(w.fix?.edits[0]).toEqual({ op: 'set', pointer: '/spec/template/metadata/annotations/config.alpha.linkerd.io~1proxy-wait-before-exit-seconds', value: '11' });
  });
});
