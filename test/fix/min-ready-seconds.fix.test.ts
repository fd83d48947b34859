import { minReadySeconds } from '../../lib/rules/min-ready-seconds';
import { estimateReconnect } from '../../lib/timeline/reconnect';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

function app(o: { kind?: string; replicas?: number; minReady?: number; deadline?: number; annotations?: string; svcAnnotations?: string } = {}): string {
  const kind = o.kind ?? 'Deployment';
  return `# Teleport-style proxies
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: proxy # agents tunnel to every replica
spec:
  replicas: ${o.replicas ?? 3} # three proxies
${o.minReady !== undefined ? `  minReadySeconds: ${o.minReady} # old chart default\n` : ''}${o.deadline !== undefined ? `  progressDeadlineSeconds: ${o.deadline} # CI waits this long\n` : ''}${kind === 'StatefulSet' ? '  serviceName: proxy\n' : ''}  selector: {matchLabels: {app: proxy}}
  template:
    metadata:
      labels: {app: proxy}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      # the proxy itself
      containers: [{name: proxy, image: teleport, ports: [{containerPort: 3024}]}]
---
apiVersion: v1
kind: Service
metadata:
  name: proxy
${o.svcAnnotations ? `  annotations: {${o.svcAnnotations}}\n` : ''}spec:
  type: LoadBalancer # agents come in through the LB
  selector: {app: proxy}
  ports: [{port: 3024}]
`;
}
const FAN_IN = '"kubegrace.dev/connection-pattern": fan-in';

fixTester(minReadySeconds, [
  {
    name: 'fan-in, 3 replicas, P 0.7: minReadySeconds 20 (section 11: T <= 19.5 s)',
    yaml: app({ annotations: FAN_IN }),
    proposals: true,
    contains: ['  minReadySeconds: 20'],
  },
  {
    name: 'fan-in, 5 replicas with the old 15 s: raised to 87 in place (comment kept)',
    yaml: app({ annotations: FAN_IN, replicas: 5, minReady: 15 }),
    proposals: true,
    contains: ['  minReadySeconds: 87 # old chart default'],
  },
  {
    name: 'fan-in needing more than progressDeadlineSeconds (error): both raised',
    yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "0.9"`, replicas: 9, deadline: 600 }),
    proposals: true,
    contains: ['  minReadySeconds: 1414', '  progressDeadlineSeconds: 2014 # CI waits this long'],
  },
  {
    name: 'fan-in above the default deadline (600) that is not written: progressDeadlineSeconds added',
    yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "0.9"`, replicas: 9 }),
    proposals: true,
    contains: ['minReadySeconds: 1414', 'progressDeadlineSeconds: 2014'],
  },
  {
    name: 'fan-in StatefulSet (no progressDeadlineSeconds there)',
    yaml: app({ kind: 'StatefulSet', annotations: FAN_IN }),
    proposals: true,
    contains: ['minReadySeconds: 20'],
  },
  {
    name: 'fan-in with exponential backoff: the Monte Carlo suggestion',
    yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-backoff": "exponential:1-30"` }),
    proposals: true,
    contains: [`minReadySeconds: ${estimateReconnect(3, 0.7, { kind: 'exponential', base: 1, cap: 30 }).suggestedMinReadySeconds}`],
  },
  {
    name: 'long-lived connections: the longLivedMinReadySeconds param',
    yaml: app({ annotations: '"kubegrace.dev/connection-pattern": long-lived' }),
    params: { longLivedMinReadySeconds: 30 },
    proposals: true,
    contains: ['minReadySeconds: 30'],
  },
  {
    name: 'behind an NLB with IP targets: the default 10 s',
    yaml: app({ svcAnnotations: '"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": ip' }),
    proposals: true,
    contains: ['minReadySeconds: 10'],
  },
  {
    name: 'long-lived with a deadline below the new minReadySeconds: the deadline goes up too',
    yaml: app({ annotations: '"kubegrace.dev/connection-pattern": long-lived', deadline: 10 }),
    proposals: true,
    contains: ['minReadySeconds: 10', 'progressDeadlineSeconds: 610 # CI waits this long'],
  },
]);

describe('min-ready-seconds fix details', () => {
  test('a proposal: without --fix-proposals nothing is written', () => {
    const yaml = app({ annotations: FAN_IN });
    const r = fixWith(minReadySeconds, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped).toHaveLength(1);
  });

  test('edits: minReadySeconds from estimateReconnect; the deadline only when it is not above it', () => {
    const [w] = runRule(minReadySeconds, app({ annotations: FAN_IN }));
    expect(w.fix).toEqual({ description: 'set minReadySeconds to 20', safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/minReadySeconds', value: 20 }] });
    const [e] = runRule(minReadySeconds, app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "0.9"`, replicas: 9, deadline: 600 }));
    expect(e.severity).toBe('error');
    expect(e.fix?.description).toBe('set minReadySeconds to 1414 and progressDeadlineSeconds to 2014');
  });

  test('malformed hints get no fix', () => {
    const got = runRule(minReadySeconds, app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "70%"`, minReady: 20 }));
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  });
});
