import { startupProbe } from '../../lib/rules/startup-probe';
import { ruleTester } from '../helpers/rule-tester';

function deploy(container: string, opts: { served?: boolean; annotations?: string } = {}): string {
  const svc =
    opts.served === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
${container}
${svc}`;
}

const C0 = '/spec/template/spec/containers/0';
const LIVE60 = '        livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 60}';

/** A liveness exec with a 30 s delay, the container mounting volume `config` (of `volume`) at /readonly-config. */
const fileCheck = (command: string, volume: string, mount = '{name: config, mountPath: /readonly-config}') =>
  deploy(`        livenessProbe: {exec: {command: ${command}}, initialDelaySeconds: 30}
        volumeMounts: [${mount}]
      volumes: [{name: config, ${volume}}]`);

/** A workload running `image` with a liveness check (flow YAML) waiting 30 s; named `name`. */
const program = (name: string, image: string, live: string, args = '[]') => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}}
spec:
  serviceName: ${name}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: main
        image: ${image}
        args: ${args}
        ports: [{name: http, containerPort: 10902}]
        livenessProbe: {${live}, initialDelaySeconds: 30, periodSeconds: 10, failureThreshold: 6}
`;

ruleTester(startupProbe, {
  valid: [
    { name: 'short initial delay', yaml: deploy('        livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 29}') },
    // redis-ha's split-brain-fix: the file is there before the container starts, so no start can fail the check.
    { name: 'liveness only cats a file of a configMap volume (redis-ha split-brain-fix)', yaml: fileCheck('[cat, /readonly-config/redis.conf]', 'configMap: {name: redis-ha}') },
    { name: 'liveness tests for a file of a secret volume', yaml: fileCheck('[test, -f, /readonly-config/tls.crt]', 'secret: {secretName: tls}') },
    { name: 'liveness [ -f ] on a projected volume, mount path with a trailing slash', yaml: fileCheck('["[", -f, /readonly-config/token, "]"]', 'projected: {sources: []}', '{name: config, mountPath: /readonly-config/}') },
    // Review round 30, report p27 item 2: bitnami/memcached's liveness `pgrep memcached` passes as soon as the
    // process exists, so no slow start can fail it and a startupProbe with it would measure nothing.
    { name: 'liveness only looks for the process (pgrep, bitnami/memcached)', yaml: deploy('        livenessProbe: {exec: {command: [pgrep, memcached]}, initialDelaySeconds: 30, periodSeconds: 10, failureThreshold: 6}') },
    { name: 'liveness pidof, kill -0 and a whole sh -c pgrep script', yaml: deploy('        livenessProbe: {exec: {command: [/bin/pidof, app]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w1') + '---\n' + deploy('        livenessProbe: {exec: {command: [kill, "-0", "1"]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w2') + '---\n' + deploy('        livenessProbe: {exec: {command: [sh, -c, "pgrep -x app > /dev/null"]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w3') },
    // Review reports p36 item 3 and p38 item 1: checks that pass as soon as the program's listener is up
    // (catalog answersFromStart); the slow start phases gate only readiness, so no slow start can fail them.
    { name: "Thanos store gateway's /-/healthy (bitnami/thanos; catalog thanos-healthy)", yaml: program('thanos-storegateway', 'docker.io/bitnami/thanos:0.39.2-debian-12-r0', 'httpGet: {path: /-/healthy, port: http}', '[store, --http-address=0.0.0.0:10902]') },
    { name: "Thanos receive's /-/healthy (quay.io/thanos/thanos)", yaml: program('thanos-receive', 'quay.io/thanos/thanos:v0.39.2', 'httpGet: {path: /-/healthy, port: 10902}', '[receive]') },
    { name: "Prometheus' /-/healthy (prom/prometheus; catalog prometheus-healthy)", yaml: program('prometheus', 'prom/prometheus:v2.55.1', 'httpGet: {path: /-/healthy, port: 9090}') },
    { name: "Hazelcast's /hazelcast/health/node-state and /hazelcast/health (catalog hazelcast-health-node-state)", yaml: program('hz', 'hazelcast/hazelcast:5.5.0', 'httpGet: {path: /hazelcast/health/node-state, port: 5701}') + '---\n' + program('hz-ee', 'hazelcast/hazelcast-enterprise:5.5.0', 'httpGet: {path: /hazelcast/health, port: 5701}') },
    // Review round 35, report p53 item 2: bitnami postgresql-ha's postgres-exporter sidecar, liveness tcpSocket on its own
    // metrics port; the exporter opens it as the last step of main(), before any database connection (catalog
    // sql-exporter-listener, answersFromStart). The same for mysqld_exporter.
    {
      name: 'postgres_exporter and mysqld_exporter liveness tcpSocket (catalog sql-exporter-listener)',
      yaml:
        program('pg', 'docker.io/bitnami/postgres-exporter:0.17.1-debian-12-r16', 'tcpSocket: {port: http}') +
        '---\n' +
        program('my', 'quay.io/prometheus/mysqld-exporter:v0.17.2', 'tcpSocket: {port: 9104}', "['--web.listen-address=:9104']"),
    },
    // Review round 35, report p55 item 3: Grafana OnCall's celery worker, a 30s delay beside a 300s liveness period:
    // the first check lands anywhere in the first period anyway, the delay is no start allowance.
    {
      name: 'a delay shorter than the liveness period (OnCall celery: 30s, period 300s)',
      yaml: deploy('        livenessProbe: {exec: {command: [bash, -c, "celery -A engine inspect ping -d celery@$HOSTNAME"]}, initialDelaySeconds: 30, periodSeconds: 300, timeoutSeconds: 10}'),
    },
    // Review round 35, report p57 item 3: Postfix's test of its master daemon only looks at its lock file.
    { name: "liveness `! master -t` and `postfix status` (Postfix's master daemon lock)", yaml: deploy('        livenessProbe: {exec: {command: [sh, -c, "! /usr/libexec/postfix/master -t"]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w1') + '---\n' + deploy('        livenessProbe: {exec: {command: [/usr/sbin/postfix, status]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w2') },
    { name: 'long initial delay but a startupProbe exists', yaml: deploy(`${LIVE60}\n        startupProbe: {httpGet: {path: /healthz, port: http}, failureThreshold: 30}`) },
    { name: 'long initialDelaySeconds on a readiness probe is not this rule', yaml: deploy('        readinessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 90}') },
    { name: 'probe-level terminationGracePeriodSeconds on liveness and startup probes is allowed', yaml: deploy('        livenessProbe: {tcpSocket: {port: http}, terminationGracePeriodSeconds: 10}\n        startupProbe: {tcpSocket: {port: http}, terminationGracePeriodSeconds: 10}') },
    { name: 'threshold param raised', yaml: deploy(LIVE60), params: { initialDelayThreshold: 120 } },
  ],
  invalid: [
    {
      // Review round 13: NodeLocal DNSCache's health server listens on 169.254.20.10 only (hostNetwork):
      // a startupProbe copied without the host checks the node IP and never passes.
      name: 'the same check keeps its host, scheme and headers',
      yaml: deploy('        livenessProbe: {httpGet: {host: 169.254.20.10, path: /health, port: 8080, scheme: HTTPS, httpHeaders: [{name: X-Probe, value: "1"}]}, initialDelaySeconds: 60}'),
      findings: [{ severity: 'info', message: 'add a startupProbe with the same check (httpGet /health on port 8080, host 169.254.20.10, scheme HTTPS, httpHeaders X-Probe: 1), periodSeconds 10' }],
    },
    {
      name: 'liveness cats a file the app writes (not a preset volume): a slow start can fail it',
      yaml: fileCheck('[cat, /tmp/healthy]', 'configMap: {name: redis-ha}'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe/initialDelaySeconds` }],
    },
    {
      name: 'liveness cats a file of an emptyDir volume: the app fills it',
      yaml: fileCheck('[cat, /readonly-config/redis.conf]', 'emptyDir: {}'),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'a subPath mount is not judged (the file may be the app\'s), nor a path escaping the mount',
      yaml: `${fileCheck('[cat, /readonly-config/redis.conf]', 'configMap: {name: a}', '{name: config, mountPath: /readonly-config, subPath: x}')}---\n${fileCheck('[cat, /readonly-config/../etc/app.conf]', 'configMap: {name: a}').replace(/name: web\b/g, 'name: web2')}`,
      findings: [{ severity: 'info' }, { severity: 'info' }],
    },
    {
      name: 'a check that does more than look for the file is judged as before',
      yaml: fileCheck('[sh, -c, "cat /readonly-config/redis.conf && redis-cli ping"]', 'configMap: {name: redis-ha}'),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'a process check that does more (pgrep then a query) is judged as before',
      yaml: deploy('        livenessProbe: {exec: {command: [sh, -c, "pgrep memcached && echo stats | nc -w1 127.0.0.1 11211"]}, initialDelaySeconds: 30}'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe/initialDelaySeconds` }],
    },
    {
      // The checks of the same programs that do wait for the start, and the same path on another program.
      name: "Thanos' /-/ready, Hazelcast's /hazelcast/health/ready and /-/healthy of an unknown image are still reported",
      yaml: [
        program('thanos-store', 'docker.io/bitnami/thanos:0.39.2', 'httpGet: {path: /-/ready, port: http}', '[store]'),
        program('hz', 'hazelcast/hazelcast:5.5.0', 'httpGet: {path: /hazelcast/health/ready, port: 5701}'),
        program('other', 'example/app:1', 'httpGet: {path: /-/healthy, port: http}'),
      ].join('---\n'),
      findings: [
        { severity: 'info', message: 'container "main": livenessProbe waits initialDelaySeconds 30s', object: 'StatefulSet/thanos-store' },
        { severity: 'info', object: 'StatefulSet/hz' },
        { severity: 'info', object: 'StatefulSet/other' },
      ],
    },
    {
      // The exporter's /metrics runs its collectors (a scrape asks the database): not in the catalog entry.
      // Only the programs the catalog read: another exporter may connect to its target before it listens.
      name: "postgres_exporter liveness on /metrics, and an unknown exporter's tcpSocket, are still reported",
      yaml: program('pg', 'docker.io/bitnami/postgres-exporter:0.17.1', 'httpGet: {path: /metrics, port: http}') + '---\n' + program('other', 'example/kafka-exporter:1', 'tcpSocket: {port: http}'),
      findings: [
        { severity: 'info', object: 'StatefulSet/pg' },
        { severity: 'info', object: 'StatefulSet/other' },
      ],
    },
    {
      name: 'a delay equal to the liveness period is still reported (30s, period 30s)',
      yaml: deploy('        livenessProbe: {exec: {command: [check]}, initialDelaySeconds: 30, periodSeconds: 30}'),
      findings: [{ severity: 'info', message: 'initialDelaySeconds 30s' }],
    },
    {
      name: '`!master -t` (no space: a command named "!master") and `master -t` without the negation are still reported',
      yaml: deploy('        livenessProbe: {exec: {command: [sh, -c, "!master -t"]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w1') + '---\n' + deploy('        livenessProbe: {exec: {command: [sh, -c, "master -t"]}, initialDelaySeconds: 60}').replace(/name: web\b/g, 'name: w2'),
      findings: [{ severity: 'info' }, { severity: 'info' }],
    },
    {
      name: 'liveness initialDelaySeconds 60 without startupProbe: info',
      yaml: deploy(LIVE60),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe/initialDelaySeconds`, message: 'container "app": livenessProbe waits initialDelaySeconds 60s (>= 30s) instead of using a startupProbe' }],
    },
    {
      // Review round 33, report p42 item 3: the first check lands in [delay, delay + period) (kubelet prober worker), so the
      // kill comes between the delay plus failureThreshold - 1 periods and the delay plus failureThreshold periods.
      name: 'the restart loop starts between the delay plus F-1 and F liveness periods (defaults: 3 checks 10s apart)',
      yaml: deploy(LIVE60),
      findings: [{ severity: 'info', message: 'a start slower than 80-90s ends in a restart loop (the kubelet\'s first check falls between 60s and 70s after the start, on its 10s ticker, and 3 failed checks in a row end it 20s later)' }],
    },
    {
      name: 'bitnami/etcd liveness (delay 60s, 5 checks 30s apart): the kill comes 180-210s after the start',
      yaml: deploy('        livenessProbe: {httpGet: {path: /livez, port: http}, initialDelaySeconds: 60, periodSeconds: 30, timeoutSeconds: 5, failureThreshold: 5}'),
      findings: [{ severity: 'info', message: 'a start slower than 180-210s ends in a restart loop (the kubelet\'s first check falls between 60s and 90s after the start, on its 30s ticker, and 5 failed checks in a row end it 120s later)' }],
    },
    {
      name: 'failureThreshold 1: the first failed check ends it',
      yaml: deploy('        livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 45, periodSeconds: 15, failureThreshold: 1}'),
      findings: [{ severity: 'info', message: 'a start slower than 45-60s ends in a restart loop (the kubelet\'s first check falls between 45s and 60s after the start, on its 15s ticker, and the first failed check ends it)' }],
    },
    {
      name: 'the suggested startupProbe covers the delay',
      yaml: deploy(LIVE60),
      findings: [{ severity: 'info', message: 'periodSeconds 10 and failureThreshold 9 (90s to start, at least the 60s delay plus the 30s liveness failure window allowed today)' }],
    },
    {
      // Review round 14 (kube-ovn's ovs-ovn: a health script with timeoutSeconds 45): with the default 1s every check times out.
      // Review round 34, report p49 item C: the period is not stretched to the timeout (the kubelet runs one check at a time).
      name: "the liveness check's timeoutSeconds is kept, the period stays the liveness one (at most 10s)",
      yaml: deploy('        livenessProbe: {exec: {command: [bash, /kube-ovn/ovs-healthcheck.sh]}, initialDelaySeconds: 60, periodSeconds: 5, failureThreshold: 5, timeoutSeconds: 45}'),
      findings: [
        {
          severity: 'info',
          message:
            'periodSeconds 5, timeoutSeconds 45 (the liveness check\'s; checks never overlap, so a slow one only delays the next and the period need not be longer) and failureThreshold 17 (85s to start, at least the 60s delay plus the 25s liveness failure window allowed today)',
        },
      ],
    },
    {
      // Review round 34, report p49 item C (kubernetes-dashboard 7.13.0 metrics-scraper): a period of 30s, copied from
      // the timeout, would hold a container that is up in 1s non-Ready for up to 30s at every start.
      name: 'a long timeoutSeconds with the default period: periodSeconds 10, the same 60s budget',
      yaml: deploy('        livenessProbe: {httpGet: {path: /, port: 8000, scheme: HTTP}, initialDelaySeconds: 30, timeoutSeconds: 30}'),
      findings: [
        {
          severity: 'info',
          message:
            'add a startupProbe with the same check (httpGet / on port 8000), periodSeconds 10, timeoutSeconds 30 (the liveness check\'s; checks never overlap, so a slow one only delays the next and the period need not be longer) and failureThreshold 6 (60s to start, at least the 30s delay plus the 30s liveness failure window allowed today), and drop initialDelaySeconds',
        },
      ],
    },
    {
      name: 'exactly at the threshold (30)',
      yaml: deploy('        livenessProbe: {exec: {command: [check]}, initialDelaySeconds: 30, periodSeconds: 15}'),
      findings: [{ severity: 'info', message: 'initialDelaySeconds 30s' }],
    },
    {
      name: 'custom threshold param',
      yaml: deploy('        livenessProbe: {tcpSocket: {port: http}, initialDelaySeconds: 20}'),
      params: { initialDelayThreshold: 15 },
      findings: [{ severity: 'info', message: '(>= 15s)' }],
    },
    {
      name: 'readinessProbe with terminationGracePeriodSeconds: error',
      yaml: deploy('        readinessProbe: {httpGet: {path: /readyz, port: http}, terminationGracePeriodSeconds: 5}'),
      findings: [{ severity: 'error', pointer: `${C0}/readinessProbe/terminationGracePeriodSeconds`, message: 'container "app": readinessProbe sets terminationGracePeriodSeconds (5): the API rejects it' }],
    },
    {
      name: 'both conditions in one container',
      yaml: deploy(`${LIVE60}\n        readinessProbe: {httpGet: {path: /readyz, port: http}, terminationGracePeriodSeconds: 5}`),
      findings: [{ severity: 'info' }, { severity: 'error' }],
    },
    {
      name: 'not served: still reported',
      yaml: deploy(LIVE60, { served: false }),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'served hint "false": still reported',
      yaml: deploy(LIVE60, { annotations: '"kubegrace.dev/served": "false"' }),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'native sidecar readiness terminationGracePeriodSeconds: error',
      yaml: `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      initContainers:
      - {name: shipper, image: s:1, restartPolicy: Always, readinessProbe: {tcpSocket: {port: 24224}, terminationGracePeriodSeconds: 3}}
      containers:
      - {name: app, image: a:1}
`,
      findings: [{ severity: 'error', pointer: '/spec/template/spec/initContainers/0/readinessProbe/terminationGracePeriodSeconds', message: 'container "shipper"' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: deploy(LIVE60, { annotations: '"kubegrace.dev/ignore": "startup-probe"' }),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});
