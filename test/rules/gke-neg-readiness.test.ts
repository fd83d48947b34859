import { gkeNegReadiness } from '../../lib/rules/gke-neg-readiness';
import { ruleTester } from '../helpers/rule-tester';

function workload(gates: string | null, annotations = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${gates === null ? '' : `      readinessGates: ${gates}\n`}      containers: [{name: app, image: web:1, ports: [{containerPort: 8080}]}]
`;
}
const NEG_GATE = '[{conditionType: cloud.google.com/load-balancer-neg-ready}]';

function svc(annotations = '', name = 'web'): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
${annotations ? `  annotations: {${annotations}}\n` : ''}spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}

ruleTester(gkeNegReadiness, {
  valid: [
    { name: 'no readiness gate', yaml: workload(null) + svc() },
    { name: 'gate with a NEG Service (ingress: true)', yaml: workload(NEG_GATE) + svc(`"cloud.google.com/neg": '{"ingress": true}'`) },
    { name: 'gate with a standalone NEG Service (exposed_ports)', yaml: workload(NEG_GATE) + svc(`"cloud.google.com/neg": '{"exposed_ports": {"80": {}}}'`) },
    { name: 'gate with the controller\'s neg-status annotation', yaml: workload(NEG_GATE) + svc(`"cloud.google.com/neg-status": '{"network_endpoint_groups": {"80": "k8s1-abc"}}'`) },
    {
      name: 'gate with a Service behind a gce Ingress (automatic NEG)',
      yaml:
        workload(NEG_GATE) +
        svc() +
        `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations: {kubernetes.io/ingress.class: gce}
spec:
  defaultBackend: {service: {name: web, port: {number: 80}}}
`,
    },
    {
      name: 'gate with a Service behind a Gateway API HTTPRoute',
      yaml:
        workload(NEG_GATE) +
        svc() +
        `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: external-http}]
  rules:
  - backendRefs: [{name: web, port: 80}]
`,
    },
    { name: 'served hint true and no Service in the set: the Service is elsewhere', yaml: workload(NEG_GATE, '"kubegrace.dev/served": "true"') },
    { name: 'an AWS gate is not this rule\'s business', yaml: workload('[{conditionType: target-health.elbv2.k8s.aws/k8s-x}]') + svc() },
  ],
  invalid: [
    {
      name: 'gate hard-coded, the selecting Service has no NEG annotation',
      yaml: workload(NEG_GATE) + svc(),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/template/spec/readinessGates/0',
          object: 'Deployment/web',
          // ingress-gce's readiness reflector marks a pod in no NEG ready at once; only a cluster without it leaves the gate unset.
          message: /no Service selecting it uses NEGs \(Service\/web has no cloud\.google\.com\/neg annotation.*without one, GKE's NEG controller marks the condition true at once \(the gate does nothing\), and a cluster without that controller never sets it, so its pods never become Ready/,
        },
      ],
    },
    {
      name: 'NEG annotation with ingress false does not count',
      yaml: workload(NEG_GATE) + svc(`"cloud.google.com/neg": '{"ingress": false}'`),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'Ingress of another class does not count',
      yaml:
        workload(NEG_GATE) +
        svc() +
        `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: web, port: {number: 80}}}
`,
      findings: [{ severity: 'info' }],
    },
    {
      name: 'no Service in the set selects the pods',
      yaml: workload(`[{conditionType: example.com/x}, {conditionType: cloud.google.com/load-balancer-neg-ready}]`),
      findings: [{ severity: 'info', pointer: '/spec/template/spec/readinessGates/1', message: 'no Service in the linted set selects its pods' }],
    },
    {
      name: 'suppressed',
      yaml: workload(NEG_GATE, '"kubegrace.dev/ignore": "gke-neg-readiness"') + svc(),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});
