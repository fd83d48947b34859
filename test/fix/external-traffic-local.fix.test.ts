import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { externalTrafficLocal } from '../../lib/rules/external-traffic-local';
import { lbDeregistrationDelay } from '../../lib/rules/lb-deregistration-delay';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  replicas?: number;
  grace?: number;
  /** Block lines under `preStop:`. */
  preStop?: string;
  spread?: boolean;
}

function workload(o: Opts = {}): string {
  const kind = o.kind ?? 'Deployment';
  return `# edge proxies keep the client IP
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: edge
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas} # capacity\n`}  selector:
    matchLabels: {app: edge}
  template:
    metadata:
      labels: {app: edge}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace} # tuned\n`}${o.spread ? '      topologySpreadConstraints: # one per node\n      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: edge}}}\n' : ''}      containers:
      - name: proxy # the edge proxy
        image: edge:1
        ports: [{name: http, containerPort: 8080}]
${o.preStop ? `        lifecycle:\n          preStop: # keep serving while the LB notices\n${o.preStop}` : ''}`;
}

function svc(o: { name?: string; annotations?: string[] } = {}): string {
  const ann = o.annotations?.length ? `  annotations:\n${o.annotations.map((a) => `    ${a}\n`).join('')}` : '';
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${o.name ?? 'edge'}
${ann}spec:
  type: LoadBalancer
  externalTrafficPolicy: Local # preserve client IP
  selector: {app: edge}
  ports: [{port: 80, targetPort: http}]
`;
}

const sleep = (n: number) => `            sleep: {seconds: ${n}}\n`;
const NLB = 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip';
const HC_INTERVAL = 'service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval: "15"';

fixTester(externalTrafficLocal, [
  {
    name: 'no hook (>= 1.30): safe sleep 35 (window 30 + 5) and grace 50',
    yaml: workload() + svc(),
    contains: ['        lifecycle:\n          preStop:\n            sleep:\n              seconds: 35', '      terminationGracePeriodSeconds: 50'],
  },
  {
    name: 'a short sleep is lengthened in place (proposal); grace 60 already covers 35 + 10',
    yaml: workload({ grace: 60, preStop: sleep(10) }) + svc(),
    proposals: true,
    contains: ['            sleep: {seconds: 35}', '      terminationGracePeriodSeconds: 60 # tuned'],
  },
  {
    name: 'the Service health-check annotations set the window (15 s x 3 = 45): sleep 50, grace 65',
    yaml: workload({ grace: 30 }) + svc({ annotations: [HC_INTERVAL] }),
    contains: ['seconds: 50', '      terminationGracePeriodSeconds: 65 # tuned'],
  },
  {
    name: 'before 1.30: exec sleep (proposal)',
    yaml: workload({ grace: 30 }) + svc(),
    kubeVersion: '1.29',
    proposals: true,
    contains: ['- sleep', '- "35"', 'terminationGracePeriodSeconds: 50 # tuned'],
  },
  {
    name: 'DaemonSet with an exec sleep: duration replaced (proposal)',
    yaml: workload({ kind: 'DaemonSet', grace: 90, preStop: '            exec: {command: ["/bin/sleep", "5"]}\n' }) + svc(),
    proposals: true,
    contains: ['exec: {command: ["/bin/sleep", "35"]}', 'terminationGracePeriodSeconds: 90 # tuned'],
  },
  {
    name: 'two Local Services with different windows: the longest wins for every finding',
    yaml: workload({ grace: 30 }) + svc() + svc({ name: 'edge-slow', annotations: [HC_INTERVAL] }),
    contains: ['seconds: 50', 'terminationGracePeriodSeconds: 65 # tuned'],
  },
  {
    name: 'also behind an NLB with IP targets: the sleep covers its 60 s window too',
    yaml: workload({ grace: 30 }) + svc({ annotations: [NLB] }),
    contains: ['seconds: 60', 'terminationGracePeriodSeconds: 75 # tuned'],
  },
  {
    name: 'replicas 3, spread already there: only the preStop part',
    yaml: workload({ replicas: 3, spread: true }) + svc(),
    contains: ['seconds: 35'],
  },
]);

describe('external-traffic-local fix details', () => {
  test('lengthening an existing hook is a proposal: not applied by a plain --fix', () => {
    const yaml = workload({ grace: 60, preStop: sleep(10) }) + svc();
    const r = fixWith(externalTrafficLocal, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped.map((s) => s.finding.fix?.description)).toEqual(['set the preStop sleep of container "proxy" to 35s']);
  });

  test('the spreading condition has no fix (replicas-not-spread adds the constraint)', () => {
    const got = runRule(externalTrafficLocal, workload({ replicas: 3, grace: 60, preStop: sleep(40) }) + svc());
    expect(got.map((f) => [f.pointer, f.fix])).toEqual([['/spec/template/spec', undefined]]);
  });

  test('both findings of a container behind two Local Services carry the same edits', () => {
    const got = runRule(externalTrafficLocal, workload({ grace: 30 }) + svc() + svc({ name: 'edge-slow', annotations: [HC_INTERVAL] }));
    expect(got).toHaveLength(2);
    expect(got[0].fix).toEqual(got[1].fix);
    expect(got[0].fix).toEqual({
      description: 'add preStop sleep 50s to container "proxy" and set terminationGracePeriodSeconds to 65',
      safety: 'safe',
      edits: [
        { op: 'set', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', value: { sleep: { seconds: 50 } } },
        { op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 65 },
      ],
    });
  });

  test('with lb-deregistration-delay in the same run, one safe fix satisfies both rules', () => {
    const yaml = workload({ grace: 30 }) + svc({ annotations: [NLB, 'service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: deregistration_delay.timeout_seconds=60'] });
    const rules = [externalTrafficLocal, lbDeregistrationDelay];
    const r = fixSources([{ file: 'test.yaml', text: yaml }], { rules, policy: { name: 'test', rules: new Map(), customRules: [] }, version: KubeVersion.parse('1.33') });
    expect(r.skipped).toEqual([]);
    expect(r.converged).toBe(true);
    for (const rule of rules) expect(runRule(rule, r.files[0].text)).toEqual([]);
  });

  test('an unknown hook (a wait script) gets no fix', () => {
    const got = runRule(externalTrafficLocal, workload({ grace: 60, preStop: '            exec: {command: [sh, -c, "sleep 5 && /wait-shutdown"]}\n' }) + svc());
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  });
});
