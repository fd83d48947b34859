import { nativeSidecar } from '../../lib/rules/native-sidecar';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

function deploy(o: { containers: string; initContainers?: string; grace?: number; annotations?: string; service?: string } ): string {
  return `# web tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace} # tuned\n`}${o.initContainers ?? ''}      containers:
${o.containers}${o.service ?? ''}`;
}

const APP = `      # the application
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 10}}} # endpoint lag
`;
const FLUENT = `      - name: fluent-bit
        image: fluent/fluent-bit:3
        volumeMounts: [{name: logs, mountPath: /logs}]
        readinessProbe: {httpGet: {path: /api/v1/health, port: 2020}}
`;
const ENVOY = `      - name: envoy
        image: envoyproxy/envoy:v1.31
        ports: [{name: https, containerPort: 8443}]
`;
const SVC = (targetPort: string) => `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web} # all web pods
  ports: [{port: 443, targetPort: ${targetPort}}]
`;

fixTester(nativeSidecar, [
  {
    name: 'a classic fluent-bit moves to initContainers with restartPolicy: Always, fields kept',
    yaml: deploy({ containers: APP + FLUENT }),
    proposals: true,
    contains: ['      initContainers:\n      - name: fluent-bit\n        image: fluent/fluent-bit:3', 'restartPolicy: Always', 'readinessProbe:'],
  },
  {
    name: 'the helper listed first: moved after the existing classic init containers',
    yaml: deploy({ containers: FLUENT + APP, initContainers: '      initContainers:\n      - {name: migrate, image: web:1, command: [migrate]} # runs first\n' }),
    proposals: true,
    contains: ['      - {name: migrate, image: web:1, command: [migrate]} # runs first\n      - name: fluent-bit'],
  },
  {
    name: 'two helpers: one fix moves both (indices stay right)',
    yaml: deploy({ containers: ENVOY + APP + FLUENT }),
    proposals: true,
    contains: ['      - name: envoy', '      - name: fluent-bit'],
  },
  {
    name: 'the sidecar drain (5 s) no longer fits the grace: raised to 10 + 10 + 5 + 5 = 30 (from 22)',
    yaml: deploy({ containers: APP + FLUENT, grace: 22, annotations: '"kubegrace.dev/drain-seconds": "10"' }),
    proposals: true,
    contains: ['      terminationGracePeriodSeconds: 30 # tuned'],
  },
  {
    name: 'a Service uses the helper\'s named port: fine from 1.32',
    yaml: deploy({ containers: APP + ENVOY, service: SVC('https') }),
    kubeVersion: '1.32',
    proposals: true,
    contains: ['restartPolicy: Always'],
  },
  {
    name: 'a numbered targetPort works on any version with native sidecars',
    yaml: deploy({ containers: APP + ENVOY, service: SVC('8443') }),
    kubeVersion: '1.29',
    proposals: true,
    contains: ['restartPolicy: Always'],
  },
  {
    name: 'a Job with a classic sidecar (warning)',
    yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never # one shot
      containers:
      - {name: migrate, image: web:1, command: [migrate]}
      # database access (moves with the container)
      - {name: cloud-sql-proxy, image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2}
`,
    proposals: true,
    contains: ['initContainers:', 'name: cloud-sql-proxy', 'restartPolicy: Always'],
  },
  {
    name: 'below 1.29: a native sidecar becomes a regular container (restartPolicy dropped)',
    yaml: deploy({ containers: APP, initContainers: '      initContainers:\n      - {name: fluent-bit, image: fluent/fluent-bit:3, restartPolicy: Always}\n' }),
    kubeVersion: '1.28',
    proposals: true,
    contains: ['name: fluent-bit'],
  },
]);

describe('native-sidecar fix details', () => {
  test('moving containers is a proposal: a plain --fix changes nothing', () => {
    const yaml = deploy({ containers: APP + FLUENT });
    const r = fixWith(nativeSidecar, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped.map((s) => s.finding.fix?.safety)).toEqual(['proposal']);
  });

  test('edits: remove from containers (highest index first), append to initContainers', () => {
    const got = runRule(nativeSidecar, deploy({ containers: ENVOY + APP + FLUENT }));
    expect(got.map((f) => f.fix?.description)).toEqual(['move containers "envoy", "fluent-bit" to initContainers with restartPolicy: Always (native sidecars)', undefined]);
    const edits = got[0].fix!.edits;
    expect(edits.map((e) => `${e.op} ${'pointer' in e ? e.pointer : ''}`)).toEqual([
      'remove /spec/template/spec/containers/2',
      'remove /spec/template/spec/containers/0',
      'append /spec/template/spec/initContainers',
      'append /spec/template/spec/initContainers',
    ]);
    expect(edits[2]).toEqual({ op: 'append', pointer: '/spec/template/spec/initContainers', value: { name: 'envoy', image: 'envoyproxy/envoy:v1.31', ports: [{ name: 'https', containerPort: 8443 }], restartPolicy: 'Always' } });
  });

  test('the moved container keeps its comments: its leading one, and those inside it', () => {
    const proxy = `      # the mesh proxy, started first
      - name: envoy   # sidecar
        image: envoyproxy/envoy:v1.31
        ports: [{name: https, containerPort: 15001}]   # proxy listens on 15001
        # admin interface off
        args: [--disable-admin]
`;
    const yaml = deploy({ containers: APP + proxy });
    const r = fixWith(nativeSidecar, yaml, { proposals: true });
    expect(r.skipped).toEqual([]);
    expect(r.files[0].text).toBe(deploy({ containers: APP }) + `      initContainers:\n${proxy}        restartPolicy: Always\n`);
    // Listed first, its leading comment is the list's (yaml attaches a comment between "containers:"
    // and the first item to the list), so it stays with the list; the inner comments still move.
    const first = fixWith(nativeSidecar, deploy({ containers: proxy + APP }), { proposals: true }).files[0].text;
    expect(first).toBe(deploy({ containers: '      # the mesh proxy, started first\n' + APP }) + `      initContainers:\n${proxy.replace(/^.*\n/, '')}        restartPolicy: Always\n`);
  });

  test('below 1.29 the container moved back keeps its comments too', () => {
    const yaml = deploy({
      containers: APP,
      initContainers: '      initContainers:\n      - {name: migrate, image: web:1}\n      # logs, also at shutdown\n      - name: fluent-bit  # shipper\n        image: fluent/fluent-bit:3\n        restartPolicy: Always\n',
    });
    const r = fixWith(nativeSidecar, yaml, { kubeVersion: '1.28', proposals: true });
    expect(r.skipped).toEqual([]);
    expect(r.files[0].text).toBe(
      deploy({ containers: APP + '      # logs, also at shutdown\n      - name: fluent-bit  # shipper\n        image: fluent/fluent-bit:3\n', initContainers: '      initContainers:\n      - {name: migrate, image: web:1}\n' }),
    );
  });

  test('before 1.32 a helper reached through a named Service port is not moved (EndpointSlices would lose the port)', () => {
    const got = runRule(nativeSidecar, deploy({ containers: APP + ENVOY, service: SVC('https') }), '1.31');
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['info', undefined]]);
  });

  test('below 1.29 in a Job: no fix (a classic sidecar would keep the Job from completing)', () => {
    const yaml = `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers: [{name: cloud-sql-proxy, image: proxy, restartPolicy: Always}]
      containers: [{name: migrate, image: web:1}]
`;
    const got = runRule(nativeSidecar, yaml, '1.28');
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['error', undefined]]);
  });
});
