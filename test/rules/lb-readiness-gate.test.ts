import { lbReadinessGate } from '../../lib/rules/lb-readiness-gate';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  replicas?: number;
  podSpecExtra?: string;
  annotations?: string;
  namespace?: string | null;
}

function workload(o: Opts = {}): string {
  const kind = o.kind ?? 'Deployment';
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: web, namespace: shop}
spec:
${o.replicas === undefined || kind === 'DaemonSet' ? '' : `  replicas: ${o.replicas}\n`}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.podSpecExtra ?? ''}      containers: [{name: app, image: web:1, ports: [{name: http, containerPort: 8080}]}]
`;
}

const ns = (labels = '') => `---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
${labels ? `  labels: {${labels}}\n` : ''}`;

function svc(annotations: string, type = 'LoadBalancer', name = 'web'): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: shop
${annotations ? `  annotations: {${annotations}}\n` : ''}spec:
  type: ${type}
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
`;
}

const NLB_IP = '"service.beta.kubernetes.io/aws-load-balancer-type": external, "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": ip';

const ingress = (annotations: string, backend = 'rules') => `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: shop
  annotations: {${annotations}}
spec:
  ingressClassName: alb
${
  backend === 'rules'
    ? `  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`
    : `  defaultBackend: {service: {name: web, port: {number: 80}}}
`
}`;

const tgb = (targetType: string) => `---
apiVersion: elbv2.k8s.aws/v1beta1
kind: TargetGroupBinding
metadata: {name: web, namespace: shop}
spec:
  serviceRef: {name: web, port: 80}
  targetGroupARN: arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/0123456789abcdef
  targetType: ${targetType}
`;

const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: ${min}
  maxReplicas: 10
`;

const GATE = '      readinessGates: [{conditionType: target-health.elbv2.k8s.aws/k8s-shop-web-0123456789}]\n';
const POD_SPEC = '/spec/template/spec';

ruleTester(lbReadinessGate, {
  valid: [
    { name: 'NLB IP targets, namespace labelled', yaml: workload({ replicas: 2 }) + svc(NLB_IP) + ns('elbv2.k8s.aws/pod-readiness-gate-inject: enabled') },
    { name: 'NLB IP targets, gate in the template', yaml: workload({ replicas: 2, podSpecExtra: GATE }) + svc(NLB_IP) + ns() },
    { name: 'NLB instance targets (no gate exists)', yaml: workload({ replicas: 2 }) + svc('"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": instance') + ns() },
    { name: 'nlb-target-type on a ClusterIP Service: no load balancer', yaml: workload({ replicas: 2 }) + svc(NLB_IP, 'ClusterIP') + ns() },
    { name: 'ALB Ingress with the default instance targets', yaml: workload({ replicas: 2 }) + svc('', 'NodePort') + ingress('alb.ingress.kubernetes.io/scheme: internet-facing') + ns() },
    { name: 'ALB Ingress whose backend Service does not select the pods', yaml: workload({ replicas: 2 }) + svc('', 'ClusterIP', 'other') + ingress('alb.ingress.kubernetes.io/target-type: ip') + ns() },
    { name: 'TargetGroupBinding with instance targets', yaml: workload({ replicas: 2 }) + svc('', 'NodePort') + tgb('instance') + ns() },
    { name: 'plain LoadBalancer Service without AWS annotations', yaml: workload({ replicas: 2 }) + svc('') + ns() },
    { name: 'served hint false', yaml: workload({ replicas: 2, annotations: '"kubegrace.dev/served": "false"' }) + svc(NLB_IP) + ns() },
    { name: 'gate in the template: the namespace label is not needed', yaml: workload({ replicas: 1, podSpecExtra: GATE }) + svc(NLB_IP) + ns('elbv2.k8s.aws/pod-readiness-gate-inject: disabled') },
  ],
  invalid: [
    {
      name: 'NLB IP, Namespace without the label, replicas 2: error',
      yaml: workload({ replicas: 2 }) + svc(NLB_IP) + ns(),
      findings: [{ severity: 'error', pointer: POD_SPEC, object: 'Deployment/web', message: /AWS load balancer IP targets \(Service\/web \(NLB, service.beta.kubernetes.io\/aws-load-balancer-nlb-target-type: ip\)\), but Namespace shop lacks the label elbv2.k8s.aws\/pod-readiness-gate-inject: enabled.*replicas 2/ }],
    },
    {
      name: 'NLB IP, replicas 3: warning',
      yaml: workload({ replicas: 3 }) + svc(NLB_IP) + ns(),
      findings: [{ severity: 'warning', message: 'can remove healthy targets faster than new ones pass the health check' }],
    },
    {
      name: 'label set to another value: still reported',
      yaml: workload({ replicas: 3 }) + svc(NLB_IP) + ns('elbv2.k8s.aws/pod-readiness-gate-inject: disabled'),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'deprecated aws-load-balancer-type: nlb-ip',
      yaml: workload({ replicas: 1 }) + svc('"service.beta.kubernetes.io/aws-load-balancer-type": nlb-ip') + ns(),
      findings: [{ severity: 'error', message: 'aws-load-balancer-type: nlb-ip' }],
    },
    {
      name: 'Namespace not in the set: warning even with replicas 1, and says so',
      yaml: workload({ replicas: 1 }) + svc(NLB_IP),
      findings: [{ severity: 'warning', message: 'Namespace shop is not in the linted set, so whether it carries the label elbv2.k8s.aws/pod-readiness-gate-inject: enabled cannot be checked' }],
    },
    {
      name: 'ALB Ingress with target-type ip (rules backend)',
      yaml: workload({ replicas: 2 }) + svc('', 'ClusterIP') + ingress('alb.ingress.kubernetes.io/target-type: ip') + ns(),
      findings: [{ severity: 'error', message: 'Ingress/shop (ALB, alb.ingress.kubernetes.io/target-type: ip, backend Service/web)' }],
    },
    {
      name: 'ALB Ingress with target-type ip (defaultBackend)',
      yaml: workload({ replicas: 4 }) + svc('', 'ClusterIP') + ingress('alb.ingress.kubernetes.io/target-type: ip', 'default') + ns(),
      findings: [{ severity: 'warning', message: 'Ingress/shop' }],
    },
    {
      name: 'target-type ip on the backend Service overrides the Ingress',
      yaml: workload({ replicas: 2 }) + svc('alb.ingress.kubernetes.io/target-type: ip', 'ClusterIP') + ingress('alb.ingress.kubernetes.io/scheme: internal') + ns(),
      findings: [{ severity: 'error', message: 'Ingress/shop' }],
    },
    {
      name: 'TargetGroupBinding with targetType ip',
      yaml: workload({ replicas: 2 }) + svc('', 'ClusterIP') + tgb('ip') + ns(),
      findings: [{ severity: 'error', message: 'TargetGroupBinding/web (targetType: ip, Service/web)' }],
    },
    {
      name: 'HPA minReplicas 3 overrides replicas 2: warning',
      yaml: workload({ replicas: 2 }) + svc(NLB_IP) + ns() + hpa(3),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'HPA minReplicas 1: error',
      yaml: workload({}) + svc(NLB_IP) + ns() + hpa(1),
      findings: [{ severity: 'error', message: 'HPA minReplicas 1' }],
    },
    {
      name: 'DaemonSet: pod count unknown, warning',
      yaml: workload({ kind: 'DaemonSet' }) + svc(NLB_IP) + ns(),
      findings: [{ severity: 'warning', object: 'DaemonSet/web' }],
    },
    {
      name: 'an unrelated readiness gate: pointer at readinessGates',
      yaml: workload({ replicas: 2, podSpecExtra: '      readinessGates: [{conditionType: example.com/ready}]\n' }) + svc(NLB_IP) + ns(),
      findings: [{ severity: 'error', pointer: `${POD_SPEC}/readinessGates` }],
    },
    {
      name: 'suppressed',
      yaml: workload({ replicas: 2, annotations: '"kubegrace.dev/ignore": "lb-readiness-gate", "kubegrace.dev/ignore-reason": "gate injected by policy"' }) + svc(NLB_IP) + ns(),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});
