import { checkFieldTypes } from '../../lib/model/field-types';
import { parseText } from '../../lib/model/parse';
import { lintSources } from '../../lib/engine/run';
import { exitCode } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

const check = (yaml: string) => parseText('t.yaml', yaml).objects.flatMap(checkFieldTypes);

const deploy = (podSpec: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
${extra}  template:
    metadata:
      labels: {app: web}
    spec:
${podSpec}`;
const container = `      containers:
      - name: app
        image: web:1
        ports: [{containerPort: 8080}]
`;

describe('types of the fields the rules read (the API server refuses a wrong one)', () => {
  test('the issue: terminationGracePeriodSeconds: "5" is reported at the field with the expected type', () => {
    const errs = check(deploy(`      terminationGracePeriodSeconds: "5"\n${container}`));
    expect(errs).toEqual([
      {
        file: 't.yaml',
        line: 13,
        column: 7,
        message: 'Deployment/web: spec.template.spec.terminationGracePeriodSeconds is the string "5", but Kubernetes expects an integer (int64); the API server refuses the object (and kubegrace cannot judge this field), so write it without quotes: 5',
      },
    ]);
  });

  test('a correct manifest has no type error; int-or-string, quantities and nulls accept what the API accepts', () => {
    const ok = deploy(
      `      terminationGracePeriodSeconds: 45\n${container}        resources: {requests: {cpu: 500m, memory: 1}, limits: {cpu: 1}}\n        readinessProbe: {httpGet: {port: http, path: /}, periodSeconds: 5}\n        lifecycle: {preStop: {sleep: {seconds: 5}}}\n`,
      '  strategy: {rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}}\n  minReadySeconds: ~\n',
    );
    expect(check(ok)).toEqual([]);
  });

  test.each([
    ['replicas: 2.5', 'spec.replicas is the number 2.5, but Kubernetes expects an integer (int32)', 'use a whole number'],
    ['replicas: 3000000000', 'spec.replicas is the number 3000000000, but Kubernetes expects an integer (int32)', 'out of range for int32'],
    ['replicas: yes', 'spec.replicas is the boolean true', 'use a whole number'],
    ['minReadySeconds: "10"', 'spec.minReadySeconds is the string "10"', 'write it without quotes: 10'],
    ['strategy: {rollingUpdate: {maxSurge: true}}', 'spec.strategy.rollingUpdate.maxSurge is the boolean true, but Kubernetes expects an integer or a string such as "25%"', ''],
    ['strategy: {rollingUpdate: {maxSurge: 1.5}}', 'spec.strategy.rollingUpdate.maxSurge is the number 1.5', 'use a whole number'],
  ])('%s', (line, message, fix) => {
    const errs = check(deploy(container, `  ${line}\n`));
    expect(errs).toHaveLength(1);
    expect(errs[0].message).toContain(message);
    expect(errs[0].message).toContain(fix);
    expect(errs[0].line).toBe(9);
  });

  test('labels and annotations must be strings: unquoted YAML 1.1 booleans and numbers are refused', () => {
    const errs = check(`apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    kubegrace.dev/served: yes
    prometheus.io/port: 8080
spec:
  selector: {app: web, tier: 1.0}
  ports: [{port: "80", targetPort: http}]
  publishNotReadyAddresses: "true"
`);
    expect(errs.map((e) => `${e.line}:${e.column} ${e.message.split(', but')[0]}`)).toEqual([
      '6:5 Service/web: metadata.annotations["kubegrace.dev/served"] is the boolean true',
      '7:5 Service/web: metadata.annotations["prometheus.io/port"] is the number 8080',
      '9:24 Service/web: spec.selector.tier is the number 1',
      '10:12 Service/web: spec.ports[0].port is the string "80"',
      '11:3 Service/web: spec.publishNotReadyAddresses is the string "true"',
    ]);
  });

  test('a list where a mapping is expected and the other way round', () => {
    const errs = check(deploy(`      containers: {name: app}\n`));
    expect(errs.map((e) => e.message)).toEqual([expect.stringContaining('spec.template.spec.containers is a mapping, but Kubernetes expects a list')]);
  });

  test('node placement the spread and surge rules read: a nodeSelector list, a numeric label value, a nodeSelectorTerms mapping', () => {
    const errs = check(
      deploy(
        `      nodeName: 7\n      nodeSelector: [{kubernetes.io/hostname: n1}]\n      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms: {matchExpressions: []}\n${container}`,
      ),
    );
    expect(errs.map((e) => `${e.line}:${e.column} ${e.message.split(', but')[0]}`)).toEqual([
      '13:7 Deployment/web: spec.template.spec.nodeName is the number 7',
      '14:7 Deployment/web: spec.template.spec.nodeSelector is a list',
      '18:13 Deployment/web: spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms is a mapping',
    ]);
    const ok = deploy(
      `      nodeSelector: {kubernetes.io/os: linux, pool: "1"}\n      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b]}]}]\n${container}`,
    );
    expect(check(ok)).toEqual([]);
    expect(check(deploy(`      nodeSelector: {pool: 1}\n${container}`)).map((e) => e.message.split(', but')[0])).toEqual([
      'Deployment/web: spec.template.spec.nodeSelector.pool is the number 1',
    ]);
  });

  test('kinds of other API groups are not checked against the core shapes (Knative Service)', () => {
    expect(check('apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: k}\nspec: {template: {spec: {containers: [{image: x}]}}, ports: 1}\n')).toEqual([]);
    // metadata is ObjectMeta for every kind
    expect(check('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, labels: {on: off}}\n')).toHaveLength(1);
  });

  test('lint reports them as input errors (exit 2) and keeps the other findings', () => {
    const yaml = deploy(`      terminationGracePeriodSeconds: "5"\n${container}`) + '---\n' + deploy(container).replace(/name: web/, 'name: other');
    const r = lintSources([{ file: 't.yaml', text: yaml }], { rules: ALL_RULES, policy: { name: 't', rules: new Map(), customRules: [] }, version: KubeVersion.parse('1.33') });
    expect(r.errors.map((e) => e.line)).toEqual([13]);
    expect(r.findings.some((f) => f.object.name === 'other')).toBe(true);
    expect(exitCode(r, 'error')).toBe(2);
  });
});
