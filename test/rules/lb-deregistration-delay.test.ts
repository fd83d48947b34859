import { lbDeregistrationDelay } from '../../lib/rules/lb-deregistration-delay';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  grace?: number;
  lifecycle?: string;
  annotations?: string;
}

function workload(o: Opts = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
${o.lifecycle ? `        lifecycle: {preStop: ${o.lifecycle}}\n` : ''}`;
}

function svc(annotations = '', type = 'ClusterIP', extra = ''): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: web
${annotations ? `  annotations: {${annotations}}\n` : ''}spec:
  type: ${type}
${extra}  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
`;
}

const ingress = (annotations: string) => `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  annotations: {${annotations}}
spec:
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`;

const ALB_IP = '"alb.ingress.kubernetes.io/target-type": ip';
const NLB_IP = '"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": ip';
const albDD = (n: number) => `"alb.ingress.kubernetes.io/target-group-attributes": "stickiness.enabled=false,deregistration_delay.timeout_seconds=${n}"`;
const nlbDD = (n: number) => `"service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "deregistration_delay.timeout_seconds=${n},preserve_client_ip.enabled=true"`;
const sleep = (n: number) => `{sleep: {seconds: ${n}}}`;
const C = '/spec/template/spec/containers/0';
const GRACE = '/spec/template/spec/terminationGracePeriodSeconds';

const GRACE_SHORT_ALB = workload({ grace: 35, lifecycle: sleep(30) }) + svc() + ingress(`${ALB_IP}, ${albDD(30)}`);
const GRACE_SHORT_LOCAL =
  workload({ grace: 25, lifecycle: sleep(20), annotations: '"kubegrace.dev/drain-seconds": "10"' }) + svc('', 'LoadBalancer', '  externalTrafficPolicy: Local\n');

ruleTester(lbDeregistrationDelay, {
  valid: [
    { name: 'ALB IP: preStop 30 >= 30, grace 60 >= 30 + 10, DD 60 <= 60', yaml: workload({ grace: 60, lifecycle: sleep(30) }) + svc() + ingress(`${ALB_IP}, ${albDD(60)}`) },
    { name: 'NLB IP: preStop 60, grace 75, DD 60', yaml: workload({ grace: 75, lifecycle: sleep(60) }) + svc(`${NLB_IP}, ${nlbDD(60)}`, 'LoadBalancer') },
    { name: 'ALB with instance targets: not pod targets', yaml: workload() + svc('', 'NodePort') + ingress('"alb.ingress.kubernetes.io/scheme": internal') },
    { name: 'plain LoadBalancer Service (Cluster policy)', yaml: workload() + svc('', 'LoadBalancer') },
    { name: 'httpGet preStop: delay unknown; DD within grace', yaml: workload({ grace: 60, lifecycle: '{httpGet: {path: /drain, port: 8080}}' }) + svc() + ingress(`${ALB_IP}, ${albDD(30)}`) },
    { name: 'served hint false', yaml: workload({ annotations: '"kubegrace.dev/served": "false"' }) + svc() + ingress(ALB_IP) },
    { name: 'grace 0 is zero-grace-period\'s business', yaml: workload({ grace: 0 }) + svc() + ingress(ALB_IP) },
    {
      name: 'TargetGroupBinding IP: ALB window; its target group attributes are not in the manifests',
      yaml:
        workload({ grace: 45, lifecycle: sleep(30) }) +
        svc() +
        `---
apiVersion: elbv2.k8s.aws/v1beta1
kind: TargetGroupBinding
metadata: {name: web}
spec:
  serviceRef: {name: web, port: 80}
  targetGroupARN: arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/0123456789abcdef
  targetType: ip
`,
    },
    { name: 'externalTrafficPolicy Local without a hook or drain hint: the window is external-traffic-local\'s', yaml: workload() + svc('', 'LoadBalancer', '  externalTrafficPolicy: Local\n') },
    { name: 'lower ALB window param', yaml: workload({ grace: 30, lifecycle: sleep(10) }) + svc() + ingress(`${ALB_IP}, ${albDD(30)}`), params: { albPropagationSeconds: 10 } },
    { name: 'GKE NEG: preStop 30, grace 45', yaml: workload({ grace: 45, lifecycle: sleep(30) }) + svc(`"cloud.google.com/neg": '{"ingress": true}'`) },
    { name: 'NEG annotation with ingress false is not a NEG', yaml: workload() + svc(`"cloud.google.com/neg": '{"ingress": false}'`) },
    // A delay long enough with a grace period too short for it and the drain is grace-period-budget's
    // finding (the same condition, the same fix): not reported a second time (see the test below).
    { name: 'preStop long enough but grace < S + drain: grace-period-budget\'s', yaml: GRACE_SHORT_ALB },
    { name: 'externalTrafficPolicy Local with a declared drain, grace < S + drain: grace-period-budget\'s', yaml: GRACE_SHORT_LOCAL },
  ],
  invalid: [
    {
      name: 'ALB IP, no preStop, DD unset (AWS default 300)',
      yaml: workload() + svc() + ingress(ALB_IP),
      findings: [
        { severity: 'warning', pointer: C, object: 'Deployment/web', message: /has no preStop delay, shorter than the ALB propagation window of 30s \(Ingress\/shop .*\).*set lifecycle: \{preStop: \{sleep: \{seconds: 30\}\}\}, and raise terminationGracePeriodSeconds to at least 45s/ },
        { severity: 'info', object: 'Ingress/shop', pointer: '/metadata/annotations/alb.ingress.kubernetes.io~1target-type', message: 'deregistration delay 300s (the AWS default: deregistration_delay.timeout_seconds is not set) exceeds the 45s grace period that Deployment/web needs (now the default grace period (30s))' },
      ],
    },
    {
      name: 'NLB IP: preStop 30 < 60, grace 45 too short for 60 + 10',
      yaml: workload({ grace: 45, lifecycle: sleep(30) }) + svc(`${NLB_IP}, ${nlbDD(45)}`, 'LoadBalancer'),
      findings: [{ severity: 'warning', pointer: `${C}/lifecycle/preStop`, message: /preStop delay 30s, shorter than the NLB \(IP mode\) propagation window of 60s.*at least 75s/ }],
    },
    {
      name: 'NLB IP with a custom window param',
      yaml: workload({ grace: 150, lifecycle: sleep(90) }) + svc(`${NLB_IP}, ${nlbDD(120)}`, 'LoadBalancer'),
      params: { nlbPropagationSeconds: 120 },
      findings: [{ severity: 'warning', message: 'propagation window of 120s' }],
    },
    {
      name: 'DD set above grace: info at the attribute',
      yaml: workload({ grace: 60, lifecycle: sleep(30) }) + svc() + ingress(`${ALB_IP}, ${albDD(600)}`),
      findings: [{ severity: 'info', object: 'Ingress/shop', pointer: '/metadata/annotations/alb.ingress.kubernetes.io~1target-group-attributes', message: 'deregistration delay 600s exceeds terminationGracePeriodSeconds (60s) of Deployment/web' }],
    },
    {
      name: 'ALB attributes on the backend Service override the Ingress',
      yaml: workload({ grace: 60, lifecycle: sleep(30) }) + svc(albDD(120)) + ingress(`${ALB_IP}, ${albDD(30)}`),
      findings: [{ severity: 'info', object: 'Service/web', message: 'deregistration delay 120s' }],
    },
    {
      name: 'NLB DD unset: info at the target-type annotation',
      yaml: workload({ grace: 75, lifecycle: sleep(60) }) + svc(NLB_IP, 'LoadBalancer'),
      findings: [{ severity: 'info', object: 'Service/web', pointer: '/metadata/annotations/service.beta.kubernetes.io~1aws-load-balancer-nlb-target-type', message: 'set deregistration_delay.timeout_seconds=75 in service.beta.kubernetes.io/aws-load-balancer-target-group-attributes' }],
    },
    {
      name: 'both ALB and NLB in front: the slower NLB window decides',
      yaml: workload({ grace: 90, lifecycle: sleep(40) }) + svc(`${NLB_IP}, ${nlbDD(60)}`, 'LoadBalancer') + ingress(`${ALB_IP}, ${albDD(60)}`),
      findings: [{ severity: 'warning', message: 'NLB (IP mode) propagation window of 60s' }],
    },
    {
      name: 'GKE NEG: preStop 10 < 30',
      yaml: workload({ grace: 60, lifecycle: sleep(10) }) + svc(`"cloud.google.com/neg": '{"ingress": true}'`),
      findings: [{ severity: 'warning', message: 'GKE NEG load balancer propagation window of 30s' }],
    },
    {
      name: 'before 1.30 the fix uses exec sleep',
      yaml: workload({ grace: 60, lifecycle: '{exec: {command: [sleep, "5"]}}' }) + svc() + ingress(`${ALB_IP}, ${albDD(60)}`),
      kubeVersion: '1.29',
      findings: [{ severity: 'warning', message: 'lifecycle: {preStop: {exec: {command: ["sleep", "30"]}}}' }],
    },
    {
      name: 'suppressed on the workload and on the Ingress',
      yaml: workload({ annotations: '"kubegrace.dev/ignore": "lb-deregistration-delay"' }) + svc() + ingress(`${ALB_IP}, "kubegrace.dev/ignore": "lb-deregistration-delay"`),
      findings: [
        { severity: 'warning', suppressed: true },
        { severity: 'info', suppressed: true },
      ],
    },
  ],
});

test('a grace period too short for a long enough preStop and the drain, behind an LB: one finding, grace-period-budget\'s', () => {
  const opts = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };
  const lint = (yaml: string) => lintSources([{ file: 'w.yaml', text: yaml }], opts).findings.filter((f) => f.pointer === GRACE).map((f) => [f.ruleId, f.severity, f.message.replace(/(exceeds [^;:]*)[;:].*/s, '$1')]);
  expect(lint(GRACE_SHORT_ALB)).toEqual([['grace-period-budget', 'warning', 'container "app": preStop 30s + drain 10s (assumed) = 40s exceeds terminationGracePeriodSeconds (35s)']]);
  expect(lint(GRACE_SHORT_LOCAL)).toEqual([['grace-period-budget', 'warning', 'container "app": preStop 20s + drain 10s = 30s exceeds terminationGracePeriodSeconds (25s)']]);
});
