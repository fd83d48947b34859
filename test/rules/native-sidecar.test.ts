import * as fs from 'fs';
import * as path from 'path';
import { nativeSidecar } from '../../lib/rules/native-sidecar';
import { ruleTester, runRule } from '../helpers/rule-tester';

function deploy(podSpec: string, annotations = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
`;
}

function job(podSpec: string, annotations = ''): string {
  return `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    metadata:
${annotations ? `      annotations: {${annotations}}\n` : '      labels: {app: migrate}\n'}    spec:
      restartPolicy: Never
${podSpec}
`;
}

const classic = (name: string) => `      containers:
      - {name: app, image: web}
      - {name: ${name}, image: helper}`;

const nativeProxy = `      initContainers:
      - {name: istio-proxy, image: proxyv2, restartPolicy: Always}
      containers:
      - {name: app, image: web}`;

ruleTester(nativeSidecar, {
  valid: [
    { name: 'the proxy is already a native sidecar', yaml: deploy(nativeProxy) },
    { name: 'a helper that is the only main container is the app itself (fluent-bit DaemonSet, envoy proxy)', yaml: deploy('      containers: [{name: envoy, image: envoyproxy/envoy}]') },
    {
      name: 'Istio gateway: istio-proxy is the gateway, even with a second container',
      yaml: deploy('      containers: [{name: istio-proxy, image: auto}, {name: config-reloader, image: r}]', '"inject.istio.io/templates": gateway, "sidecar.istio.io/inject": "true"'),
    },
    {
      name: 'Contour / Envoy Gateway: the Service routes to envoy alone, whose preStop waits for the shutdown-manager beside it: envoy is the app, not a helper',
      yaml: `${deploy(`      containers:
      - {name: shutdown-manager, image: ghcr.io/projectcontour/contour:v1.30.0, command: [/bin/contour, envoy, shutdown-manager], lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}
      - {name: envoy, image: envoyproxy/envoy:v1.31.0, ports: [{name: http, containerPort: 8080}], lifecycle: {preStop: {httpGet: {path: /shutdown, port: 8090}}}}`)}---
apiVersion: v1
kind: Service
metadata: {name: envoy}
spec: {selector: {app: web}, ports: [{name: http, port: 80, targetPort: 8080}]}
`,
    },
    { name: 'names outside the list are not helpers', yaml: deploy(classic('metrics-exporter')) },
    { name: 'below 1.29 native sidecars are not available: no advice for classic helpers', yaml: deploy(classic('istio-proxy')), kubeVersion: '1.28' },
    {
      name: 'linkerd identity controller: its proxy bootstraps identity from the pod itself (corpus: linkerd-identity)',
      yaml: deploy(`      containers:
      - {name: identity, image: cr.l5d.io/linkerd/controller}
      - name: linkerd-proxy
        image: cr.l5d.io/linkerd/proxy
        env: [{name: LINKERD2_PROXY_IDENTITY_SVC_ADDR, value: "localhost.:8080"}]`),
    },
    { name: 'Linkerd native mode explicitly off', yaml: deploy(classic('linkerd-proxy'), '"config.linkerd.io/proxy-enable-native-sidecar": "false"') },
    { name: 'Linkerd native mode explicitly off (beta form)', yaml: deploy(classic('linkerd-proxy'), '"config.beta.linkerd.io/proxy-enable-native-sidecar": "false"') },
    { name: 'Istio native mode explicitly off', yaml: deploy(classic('istio-proxy'), '"sidecar.istio.io/nativeSidecar": "false"') },
    { name: 'param sidecarNames narrows the list', yaml: deploy(classic('fluent-bit')), params: { sidecarNames: ['istio-proxy'] } },
    { name: 'native sidecar at exactly 1.29 (beta, on)', yaml: deploy(nativeProxy), kubeVersion: '1.29' },
  ],
  invalid: [
    {
      name: 'an envoy beside an app that the Service routes to as well: still a helper of the app',
      yaml: `${deploy(`      containers:
      - {name: app, image: web, ports: [{name: http, containerPort: 8080}]}
      - {name: envoy, image: envoyproxy/envoy:v1.31.0, ports: [{name: proxy, containerPort: 10000}]}`)}---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{name: http, port: 80, targetPort: 8080}, {name: proxy, port: 10000, targetPort: 10000}]}
`,
      findings: [{ severity: 'info', pointer: '/spec/template/spec/containers/1', message: /^"envoy" runs as a classic container/ }],
    },
    {
      name: 'an envoy in front of an app that declares its own port (TLS termination: the Service routes to envoy only): a helper',
      yaml: `${deploy(`      containers:
      - {name: app, image: web, ports: [{name: http, containerPort: 8080}]}
      - {name: envoy, image: envoyproxy/envoy:v1.31.0, ports: [{name: https, containerPort: 8443}]}`)}---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{name: https, port: 443, targetPort: https}]}
`,
      findings: [{ severity: 'info', pointer: '/spec/template/spec/containers/1', message: /^"envoy" runs as a classic container/ }],
    },
    {
      name: 'classic istio-proxy next to the app: info at the container (1.29 boundary)',
      yaml: deploy(classic('istio-proxy')),
      kubeVersion: '1.29',
      findings: [{ severity: 'info', pointer: '/spec/template/spec/containers/1', message: /"istio-proxy" runs as a classic container: it gets SIGTERM together with "app".*sidecar\.istio\.io\/nativeSidecar: "true"/ }],
    },
    {
      name: 'every default name is a helper',
      yaml: deploy(`      containers:
      - {name: app, image: web}
      - {name: linkerd-proxy, image: p}
      - {name: envoy, image: e}
      - {name: cloud-sql-proxy, image: c}
      - {name: fluent-bit, image: f}`),
      findings: [
        { severity: 'info', pointer: '/spec/template/spec/containers/1', message: 'config.linkerd.io/proxy-enable-native-sidecar' },
        { severity: 'info', pointer: '/spec/template/spec/containers/2' },
        { severity: 'info', pointer: '/spec/template/spec/containers/3' },
        { severity: 'info', pointer: '/spec/template/spec/containers/4' },
      ],
    },
    {
      name: 'Job with a classic log shipper: warning (the Job never completes)',
      yaml: job(classic('fluent-bit')),
      findings: [{ severity: 'warning', object: 'Job/migrate', pointer: '/spec/template/spec/containers/1', message: 'the pod never completes and the Job never finishes' }],
    },
    {
      name: 'CronJob with a classic cloud-sql-proxy: warning',
      yaml: `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: report, image: r}
          - {name: cloud-sql-proxy, image: gcr.io/cloud-sql-connectors/cloud-sql-proxy}
`,
      findings: [{ severity: 'warning', pointer: '/spec/jobTemplate/spec/template/spec/containers/1' }],
    },
    {
      name: 'a Job is warned even when the mesh opt-out is explicit',
      yaml: job(classic('linkerd-proxy'), '"config.linkerd.io/proxy-enable-native-sidecar": "false"'),
      findings: [{ severity: 'warning', message: 'linkerd-proxy' }],
    },
    {
      name: 'param sidecarNames adds a helper',
      yaml: deploy(classic('vault-agent')),
      params: { sidecarNames: ['vault-agent'] },
      findings: [{ severity: 'info', message: '"vault-agent" runs as a classic container' }],
    },
    {
      name: 'restartPolicy Always init container on 1.28: error (alpha, off)',
      yaml: deploy(nativeProxy),
      kubeVersion: '1.28',
      findings: [{ severity: 'error', pointer: '/spec/template/spec/initContainers/0/restartPolicy', message: 'SidecarContainers is alpha and off by default on 1.28' }],
    },
    {
      name: 'restartPolicy Always init container on 1.27: error (no native sidecars)',
      yaml: deploy(nativeProxy),
      kubeVersion: '1.27',
      findings: [{ severity: 'error', message: 'native sidecars do not exist on 1.27' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: deploy(classic('envoy'), '"kubegrace.dev/ignore": "native-sidecar", "kubegrace.dev/ignore-reason": "migrating next quarter"'),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});

/** Real charts (../shared/corpus/rendered, rendered for Kubernetes 1.31): reviewed findings, pinned. */
const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const corpusFile = (f: string) => fs.readFileSync(path.join(CORPUS, f), 'utf8');
const describeCorpus = fs.existsSync(CORPUS) ? describe : describe.skip;

describeCorpus('native-sidecar on the corpus', () => {
  test('linkerd control plane: identity keeps a classic proxy on purpose; the others are native', () => {
    for (const f of ['linkerd-control-plane.yaml', 'linkerd-control-plane-ha.yaml']) {
      expect(runRule(nativeSidecar, corpusFile(f), '1.31')).toEqual([]);
    }
  });
  test('istio gateway: istio-proxy is the gateway itself', () => {
    expect(runRule(nativeSidecar, corpusFile('istio-gateway.yaml'), '1.31')).toEqual([]);
  });
});

// Review round 23 (kestra's workers run their tasks in a dind sidecar; dockerd stops its containers at SIGTERM).
test('native-sidecar: a Docker-in-Docker daemon beside the app is a shutdown-critical helper, by its image', () => {
  const yaml = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  replicas: 2
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      terminationGracePeriodSeconds: 360
      containers:
      - {name: kestra, image: kestra/kestra:v1.3.15, ports: [{name: http, containerPort: 8080}]}
      - {name: dind, image: ${image}, securityContext: {privileged: true}}
`;
  const got = runRule(nativeSidecar, yaml('docker:dind-rootless'));
  expect(got.map((f) => [f.severity, f.pointer])).toEqual([['info', '/spec/template/spec/containers/1']]);
  expect(got[0].message).toContain('"dind" runs a Docker daemon (docker:dind-rootless) as a classic container');
  expect(got[0].fix).toBeDefined();
  expect(runRule(nativeSidecar, yaml('docker:27-cli'))).toEqual([]);
  // drone-runner-docker's dind waits in its own preStop until no container runs: left alone.
  expect(runRule(nativeSidecar, yaml('docker:20-dind').replace('securityContext: {privileged: true}}', "securityContext: {privileged: true}, lifecycle: {preStop: {exec: {command: [sh, -c, 'while [ -n \"$(docker ps -q)\" ]; do sleep 5; done']}}}}"))).toEqual([]);
});

// Review round 37 (pmint93/metabase chart with database.googleCloudSQL): the Cloud SQL Auth Proxy as
// a classic container named "cloudsql-proxy"; Metabase reaches its app DB through it (MB_DB_HOST:
// localhost) and releases its migration locks there while shutting down.
test('native-sidecar: the Cloud SQL Auth Proxy by its official images, whatever the container name', () => {
  const yaml = (name: string, image: string, run = '["/cloud_sql_proxy", "-instances=p:r:i=tcp:5432", "-term_timeout=10s"]') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: metabase}
spec:
  replicas: 1
  selector: {matchLabels: {app: metabase}}
  template:
    metadata: {labels: {app: metabase}}
    spec:
      containers:
      - name: metabase
        image: metabase/metabase:v0.59.6.x
        env: [{name: MB_DB_HOST, value: localhost}]
        ports: [{containerPort: 3000}]
      - {name: ${name}, image: ${image}, command: ${run}}
`;
  const got = runRule(nativeSidecar, yaml('cloudsql-proxy', 'gcr.io/cloudsql-docker/gce-proxy:latest'));
  expect(got.map((f) => [f.severity, f.pointer])).toEqual([['info', '/spec/template/spec/containers/1']]);
  expect(got[0].message).toContain('"cloudsql-proxy" runs as a classic container: it gets SIGTERM together with "metabase"');
  expect(got[0].fix).toBeDefined();
  // v2, a regional registry, a mirror; any name.
  expect(runRule(nativeSidecar, yaml('sql', 'eu.gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1', '["/cloud-sql-proxy", "p:r:i"]'))).toHaveLength(1);
  expect(runRule(nativeSidecar, yaml('cloudsqlproxy', 'registry.example.com/mirror/cloudsql-docker/gce-proxy:1.33.2'))).toHaveLength(1);
  // A shell script in the proxy's image stops the proxy itself (the pattern for Jobs): not judged by image.
  expect(runRule(nativeSidecar, yaml('cloudsql-proxy', 'gcr.io/cloudsql-docker/gce-proxy:1.27.0-alpine', "[/bin/sh, -c, '/cloud_sql_proxy -instances=p:r:i=tcp:5432 & while [ ! -f /tmp/done ]; do sleep 1; done']"))).toEqual([]);
  // Other images with a similar name are not the proxy.
  expect(runRule(nativeSidecar, yaml('cloudsql-proxy', 'example/gce-proxy:1'))).toEqual([]);
});

// Review round 33, report p43 item 4 (the Unleash chart with cloudsql.enabled, after prestop-missing's repair):
// unleash sleeps 10s in its preStop, the classic gce-proxy v1 beside it has no hook and -term_timeout
// at its default 0 (GoogleCloudPlatform/cloud-sql-proxy v1 cmd/cloud_sql_proxy/cloud_sql_proxy.go:97,
// :719-758), so it exits at t=0 and unleash serves its 10s with no database.
describe('native-sidecar: a classic Cloud SQL Auth Proxy that stops before the app\'s preStop delay ends', () => {
  const unleash = (o: { image?: string; run?: string; appHook?: string; proxyExtra?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: unleash, namespace: unleash}
spec:
  replicas: 1
  selector: {matchLabels: {app: unleash}}
  template:
    metadata: {labels: {app: unleash}}
    spec:
      containers:
      - name: unleash
        image: unleashorg/unleash-server:7.5.0
        env: [{name: DATABASE_HOST, value: "127.0.0.1"}, {name: DATABASE_PORT, value: "5432"}]
        ports: [{name: http, containerPort: 4242}]
${o.appHook ?? '        lifecycle: {preStop: {sleep: {seconds: 10}}}\n'}      - name: cloudsql-proxy
        image: ${o.image ?? 'gcr.io/cloudsql-docker/gce-proxy:1.32.0'}
        command: ${o.run ?? '[/cloud_sql_proxy, "-instances=proj:europe-west1:unleash=tcp:5432"]'}
${o.proxyExtra ?? ''}`;
  const sev = (yaml: string) => runRule(nativeSidecar, yaml).map((f) => f.severity);

  test('v1 with the default -term_timeout exits at t=0 while unleash sleeps 10s: a warning that says the timeline', () => {
    const [f, ...rest] = runRule(nativeSidecar, unleash());
    expect(rest).toEqual([]);
    expect(f.severity).toBe('warning');
    expect(f.pointer).toBe('/spec/template/spec/containers/1');
    expect(f.message).toBe(
      '"cloudsql-proxy" runs as a classic container with no preStop hook: it gets SIGTERM as soon as termination starts and, with -term_timeout at its default 0, the Cloud SQL Auth Proxy (v1) exits at once, while "unleash" keeps running through its 10s preStop delay: for those 10s every database call "unleash" makes through the proxy fails; on 1.33 make it a native sidecar (move it to initContainers with restartPolicy: Always), which is stopped only after the main containers exit, or give it a preStop delay at least as long (10s)',
    );
    expect(f.fix).toBeDefined();
  });

  test('a -term_timeout or a preStop on the proxy shorter than the app\'s delay: still a warning, for the rest of the delay', () => {
    const [f] = runRule(nativeSidecar, unleash({ run: '[/cloud_sql_proxy, "-instances=p:r:i=tcp:5432", "--term_timeout", "4s"]' }));
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('with -term_timeout=4s, the Cloud SQL Auth Proxy (v1) exits within 4s (sooner once no connection is open)');
    expect(f.message).toContain('for the last 6s of them');
    const [g] = runRule(nativeSidecar, unleash({ proxyExtra: '        lifecycle: {preStop: {sleep: {seconds: 5}}}\n' }));
    expect(g.message).toContain('runs as a classic container whose preStop lasts 5s: it gets SIGTERM then and');
  });

  test('v2 with neither sigterm delay: a warning; its --min-sigterm-delay or --max-sigterm-delay covering the delay: the info', () => {
    const v2 = (run: string, proxyExtra?: string) => unleash({ image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1', run, proxyExtra });
    const [f] = runRule(nativeSidecar, v2('[/cloud-sql-proxy, "proj:europe-west1:unleash", --port=5432]'));
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('with --min-sigterm-delay and --max-sigterm-delay at their default 0, the Cloud SQL Auth Proxy stops at once');
    expect(f.message).toContain('or give it a preStop delay at least as long, or --min-sigterm-delay (v2.12.0 and later) (10s)');
    expect(sev(v2('[/cloud-sql-proxy, "p:r:i", --min-sigterm-delay=15s]'))).toEqual(['info']);
    expect(sev(v2('[/cloud-sql-proxy, "p:r:i", --max-sigterm-delay, 30s]'))).toEqual(['info']);
    expect(sev(v2('[/cloud-sql-proxy, "p:r:i"]', '        env: [{name: CSQL_PROXY_MIN_SIGTERM_DELAY, value: 20s}]\n'))).toEqual(['info']);
    // Settings the input does not show: not judged.
    expect(sev(v2('[/cloud-sql-proxy, "p:r:i"]', '        env: [{name: CSQL_PROXY_MIN_SIGTERM_DELAY, valueFrom: {configMapKeyRef: {name: x, key: d}}}]\n'))).toEqual(['info']);
    expect(sev(v2('[/cloud-sql-proxy, "p:r:i"]', '        envFrom: [{configMapRef: {name: proxy-settings}}]\n'))).toEqual(['info']);
    expect(sev(v2('[/cloud-sql-proxy, --config-file=/etc/proxy/config.toml]'))).toEqual(['info']);
  });

  test('the info as before: the proxy outlasts the app\'s delay, the app has no delay or one of unknown length, the proxy goes by name only', () => {
    expect(sev(unleash({ run: '[/cloud_sql_proxy, "-instances=p:r:i=tcp:5432", "-term_timeout=10s"]' }))).toEqual(['info']);
    expect(sev(unleash({ proxyExtra: '        lifecycle: {preStop: {sleep: {seconds: 10}}}\n' }))).toEqual(['info']);
    expect(sev(unleash({ appHook: '' }))).toEqual(['info']);
    expect(sev(unleash({ appHook: '        lifecycle: {preStop: {exec: {command: [/usr/local/bin/drain.sh]}}}\n' }))).toEqual(['info']);
    expect(sev(unleash({ image: 'example/sql-proxy:1' }).replace('name: cloudsql-proxy', 'name: cloud-sql-proxy'))).toEqual(['info']);
    expect(sev(unleash({ run: '["-term_timeout=$(TIMEOUT)"]' }))).toEqual(['info']);
  });
});
