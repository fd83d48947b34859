import { lbDeregistrationDelay } from '../../lib/rules/lb-deregistration-delay';
import { withDeregistrationDelay } from '../../lib/rules/lb-util';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

interface Opts {
  name?: string;
  grace?: number;
  /** Block-style lines of the container's preStop handler, indented for `preStop:`. */
  preStop?: string;
  sidecar?: boolean;
  annotations?: string;
}

function workload(o: Opts = {}): string {
  const name = o.name ?? 'web';
  return `# ${name} tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 3 # three AZs
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace} # tuned\n`}${o.sidecar ? '      initContainers:\n      - {name: fluent-bit, image: fluent-bit:3, restartPolicy: Always}\n' : ''}      containers:
      # the application
      - name: app
        image: ${name}:1
        ports:
        - name: http # served
          containerPort: 8080
${o.preStop ? `        lifecycle:\n          preStop:\n${o.preStop}` : ''}`;
}

function svc(o: { name?: string; annotations?: string[]; type?: string } = {}): string {
  const name = o.name ?? 'web';
  const ann = o.annotations?.length ? `  annotations:\n${o.annotations.map((a) => `    ${a}\n`).join('')}` : '';
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
${ann}spec:
  type: ${o.type ?? 'ClusterIP'} # see annotations
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: http}]
`;
}

function ingress(annotations: string[], backends: string[] = ['web']): string {
  return `---
# public entry
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  annotations:
${annotations.map((a) => `    ${a}\n`).join('')}spec:
  rules:
  - http:
      paths:
${backends.map((b, i) => `      - {path: /${i ? b : ''}, pathType: Prefix, backend: {service: {name: ${b}, port: {number: 80}}}}\n`).join('')}`;
}

const ALB_IP = 'alb.ingress.kubernetes.io/target-type: ip # pods are targets';
const albDD = (n: number) => `alb.ingress.kubernetes.io/target-group-attributes: stickiness.enabled=false,deregistration_delay.timeout_seconds=${n} # drain`;
const NLB_IP = 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip # NLB IP mode';
const nlbDD = (n: number) => `service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: deregistration_delay.timeout_seconds=${n},preserve_client_ip.enabled=true`;
const sleep = (n: number) => `            sleep: {seconds: ${n}} # wait for the LB\n`;

fixTester(lbDeregistrationDelay, [
  {
    name: 'ALB IP, no hook (>= 1.30): safe sleep 30 + grace 45 (plain --fix); DD 30 left as is',
    yaml: workload() + svc() + ingress([ALB_IP, albDD(30)]),
    contains: ['          preStop:\n            sleep:\n              seconds: 30', '      terminationGracePeriodSeconds: 45', 'deregistration_delay.timeout_seconds=30 # drain'],
  },
  {
    name: 'ALB IP, no hook, DD unset (300): with proposals the attribute is added at the grace the pods get (45)',
    yaml: workload() + svc() + ingress([ALB_IP]),
    proposals: true,
    contains: ['alb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds=45', 'terminationGracePeriodSeconds: 45'],
  },
  {
    name: 'NLB IP: an existing sleep of 30 < 60 is lengthened (proposal) and grace raised to 75 in place',
    yaml: workload({ grace: 45, preStop: sleep(30) }) + svc({ annotations: [NLB_IP, nlbDD(45)], type: 'LoadBalancer' }),
    proposals: true,
    contains: ['            sleep: {seconds: 60} # wait for the LB', '      terminationGracePeriodSeconds: 75 # tuned'],
  },
  {
    // (The grace period itself is grace-period-budget's finding and fix.)
    name: 'preStop long enough but grace < S + drain: DD 300 lowered to the grace the pods will have after the raise (45), not to 35',
    yaml: workload({ grace: 35, preStop: sleep(30) }) + svc() + ingress([ALB_IP, albDD(300)]),
    proposals: true,
    contains: ['deregistration_delay.timeout_seconds=45 # drain'],
  },
  {
    name: 'DD 600 above grace 60: lowered to 60, the other attributes kept',
    yaml: workload({ grace: 60, preStop: sleep(30) }) + svc() + ingress([ALB_IP, albDD(600)]),
    proposals: true,
    contains: ['alb.ingress.kubernetes.io/target-group-attributes: stickiness.enabled=false,deregistration_delay.timeout_seconds=60 # drain'],
  },
  {
    name: 'NLB with DD unset: the Service attribute annotation is added at the grace (75)',
    yaml: workload({ grace: 75, preStop: sleep(60) }) + svc({ annotations: [NLB_IP], type: 'LoadBalancer' }),
    proposals: true,
    contains: ['service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: deregistration_delay.timeout_seconds=75'],
  },
  {
    name: 'ALB attributes on the backend Service: edited there',
    yaml: workload({ grace: 60, preStop: sleep(30) }) + svc({ annotations: [albDD(120)] }) + ingress([ALB_IP, albDD(30)]),
    proposals: true,
    contains: ['    alb.ingress.kubernetes.io/target-group-attributes: stickiness.enabled=false,deregistration_delay.timeout_seconds=60 # drain\nspec:'],
  },
  {
    name: 'before 1.30: exec ["sleep", "5"] gets its duration replaced (proposal)',
    yaml: workload({ grace: 60, preStop: '            exec:\n              command: ["sleep", "5"] # image has sleep\n' }) + svc() + ingress([ALB_IP, albDD(60)]),
    kubeVersion: '1.29',
    proposals: true,
    contains: ['command: ["sleep", "30"] # image has sleep'],
  },
  {
    name: 'before 1.30 with no hook: exec sleep added (a proposal: it needs a sleep binary)',
    yaml: workload({ grace: 60 }) + svc() + ingress([ALB_IP, albDD(60)]),
    kubeVersion: '1.29',
    proposals: true,
    contains: ['command:', '- sleep', '- "30"'],
  },
  {
    name: 'sh -c "sleep 5": only the duration in the script changes',
    yaml: workload({ grace: 60, preStop: '            exec: {command: [/bin/sh, -c, "sleep 5"]}\n' }) + svc() + ingress([ALB_IP, albDD(60)]),
    proposals: true,
    contains: ['exec: {command: [/bin/sh, -c, "sleep 30"]}'],
  },
  {
    name: 'a native sidecar drains after the app: the grace covers it too (30 + 10 + 5 + 5 = 50)',
    yaml: workload({ sidecar: true }) + svc() + ingress([ALB_IP, albDD(30)]),
    contains: ['terminationGracePeriodSeconds: 50'],
  },
  {
    name: 'GKE NEG window',
    yaml: workload({ grace: 60, preStop: sleep(10) }) + svc({ annotations: [`cloud.google.com/neg: '{"ingress": true}'`] }),
    proposals: true,
    contains: ['sleep: {seconds: 30} # wait for the LB'],
  },
]);

describe('lb-deregistration-delay fix details', () => {
  test('a plain --fix applies the safe preStop + grace and leaves the DD proposal', () => {
    const yaml = workload() + svc() + ingress([ALB_IP]);
    const r = fixWith(lbDeregistrationDelay, yaml);
    expect(r.files[0].applied.map((a) => [a.safety, a.description])).toEqual([['safe', 'add preStop sleep 30s to container "app" and set terminationGracePeriodSeconds to 45']]);
    expect(r.skipped.map((s) => [s.finding.severity, s.finding.fix?.description])).toEqual([['info', 'set deregistration_delay.timeout_seconds=45 in alb.ingress.kubernetes.io/target-group-attributes']]);
    expect(r.files[0].text).not.toContain('target-group-attributes');
  });

  test('lengthening an existing sleep is a proposal: not applied without --fix-proposals', () => {
    const yaml = workload({ grace: 45, preStop: sleep(30) }) + svc({ annotations: [NLB_IP, nlbDD(45)], type: 'LoadBalancer' });
    const r = fixWith(lbDeregistrationDelay, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped.map((s) => s.finding.fix?.safety)).toEqual(['proposal']);
  });

  test('hooks that do more than sleep get no fix', () => {
    const yaml = workload({ grace: 90, preStop: '            exec: {command: [sh, -c, "sleep 5; nginx -s quit"]}\n' }) + svc() + ingress([ALB_IP, albDD(60)]);
    const got = runRule(lbDeregistrationDelay, yaml);
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  });

  test('a DD shared by an Ingress never goes below the longest grace behind it', () => {
    const yaml =
      workload({ name: 'web', grace: 60, preStop: sleep(30) }) +
      svc({ name: 'web' }) +
      workload({ name: 'api', grace: 120, preStop: sleep(30) }).replace(/^/, '---\n') +
      svc({ name: 'api' }) +
      ingress([ALB_IP, albDD(300)], ['web', 'api']);
    const got = runRule(lbDeregistrationDelay, yaml).filter((f) => f.severity === 'info');
    expect(got.map((f) => [f.message.includes('Deployment/web') ? 'web' : 'api', f.fix?.edits]).sort()).toEqual([
      ['api', [{ op: 'set', pointer: '/metadata/annotations/alb.ingress.kubernetes.io~1target-group-attributes', value: 'stickiness.enabled=false,deregistration_delay.timeout_seconds=120' }]],
      ['web', undefined],
    ]);
  });

  test('every fix of one workload sets the same grace period (the largest need)', () => {
    const yaml = workload({ grace: 30 })
      .replace('      containers:\n', '      containers:\n      - name: admin\n        image: admin:1\n        ports: [{name: admin, containerPort: 9000}]\n        lifecycle: {preStop: {sleep: {seconds: 50}}}\n')
      + svc().replace('ports: [{port: 80, targetPort: http}]', 'ports: [{name: a, port: 80, targetPort: http}, {name: b, port: 81, targetPort: admin}]')
      + ingress([ALB_IP, albDD(30)]);
    const got = runRule(lbDeregistrationDelay, yaml).filter((f) => f.fix);
    const graces = got.map((f) => f.fix!.edits.find((e) => e.op === 'set' && e.pointer.endsWith('terminationGracePeriodSeconds')));
    // The app's window fix raises the grace period for the admin container's need too (50 + 10 + 5:
    // the admin container's own grace finding is grace-period-budget's, whose fix sets the same 65).
    expect(graces).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 65 }]);
  });

  test('withDeregistrationDelay keeps the other attributes and their spacing', () => {
    expect(withDeregistrationDelay(undefined, 60)).toBe('deregistration_delay.timeout_seconds=60');
    expect(withDeregistrationDelay('a=1, deregistration_delay.timeout_seconds = 300 ,b=2', 60)).toBe('a=1, deregistration_delay.timeout_seconds =60 ,b=2');
    expect(withDeregistrationDelay('stickiness.enabled=true,', 60)).toBe('stickiness.enabled=true,deregistration_delay.timeout_seconds=60');
  });
});
