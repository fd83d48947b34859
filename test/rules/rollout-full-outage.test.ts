import { builtinCatalog } from '../../lib/catalog';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { rolloutFullOutage } from '../../lib/rules/rollout-full-outage';
import { ruleTester, runRule } from '../helpers/rule-tester';
import { sourcegraphWorker } from '../helpers/sourcegraph';

interface Opts {
  replicas?: number;
  /** YAML flow map for spec.strategy, e.g. `{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}`. */
  strategy?: string;
  /** Pod-template annotations (flow map body). */
  annotations?: string;
  service?: boolean;
  volumes?: string;
  extra?: string;
}

function deploy(o: Opts = {}): string {
  const svc = o.service === false
    ? ''
    : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}${o.strategy ? `  strategy: ${o.strategy}\n` : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: [{name: app, image: web:1, ports: [{containerPort: 8080}]}]
${o.volumes ? `      volumes: ${o.volumes}\n` : ''}${svc}${o.extra ?? ''}`;
}

const hpa = (min?: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
${min === undefined ? '' : `  minReplicas: ${min}\n`}  maxReplicas: 10
`;

const pvc = (modes: string) => `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: ${modes}
  resources: {requests: {storage: 1Gi}}
`;

/**
 * Sentry 25.20.0's relay as the chart renders it with asHook: true (review p32, trimmed): a served
 * Deployment that is a post-install,post-upgrade Helm hook; `annotations` replaces the hook annotations.
 */
function hookRelay(annotations = '"helm.sh/hook": "post-install,post-upgrade", "helm.sh/hook-weight": "25"', kind = 'Deployment', service = true): string {
  return `${service ? `apiVersion: v1
kind: Service
metadata: {name: sentry-relay}
spec:
  selector: {app: sentry, role: relay}
  ports: [{name: sentry-relay, port: 3000, targetPort: 3000}]
---
` : ''}apiVersion: apps/v1
kind: ${kind}
metadata:
  name: sentry-relay
  annotations: {${annotations}}
spec:
${kind === 'DaemonSet' ? '' : '  replicas: 2\n'}${kind === 'StatefulSet' ? '  serviceName: sentry-relay\n' : ''}  selector: {matchLabels: {app: sentry, role: relay}}
  template:
    metadata: {labels: {app: sentry, role: relay}}
    spec:
      containers:
      - name: sentry-relay
        image: getsentry/relay:24.9.0
        ports: [{containerPort: 3000}]
        readinessProbe: {httpGet: {path: /api/relay/healthcheck/ready/, port: 3000}, initialDelaySeconds: 10}
`;
}
const HOOK = '/metadata/annotations/helm.sh~1hook';

const MU = '/spec/strategy/rollingUpdate/maxUnavailable';
const MS = '/spec/strategy/rollingUpdate/maxSurge';

/**
 * Rocket.Chat's microservices (review round 35, report p55 item 2): Moleculer nodes that the monolith
 * calls through NATS (TRANSPORTER), whose only Service carries metrics (9458).
 */
function moleculer(o: { name: string; replicas: number; strategy?: string; transporter?: string; annotations?: string; service?: boolean }): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${o.name}, namespace: chat}
spec:
  replicas: ${o.replicas}
  selector: {matchLabels: {app: ${o.name}}}
${o.strategy ? `  strategy: ${o.strategy}\n` : ''}  template:
    metadata:
      labels: {app: ${o.name}}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers:
      - name: svc
        image: rocketchat/${o.name}-service:8.6.1
        env:
        - {name: TRANSPORTER, value: "${o.transporter ?? 'nats://rc-nats:4222'}"}
        ports: [{name: ms-metrics, containerPort: 9458}]
${o.service === false ? '' : `---
apiVersion: v1
kind: Service
metadata: {name: ${o.name}, namespace: chat}
spec:
  selector: {app: ${o.name}}
  ports: [{name: metrics, port: 9458, targetPort: 9458}]
`}`;
}

ruleTester(rolloutFullOutage, {
  valid: [
    // A Moleculer node under the served hint "false": the hint wins (review round 35, report p55 item 2).
    { name: 'a Moleculer node with kubegrace.dev/served "false"', yaml: moleculer({ name: 'authorization', replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}', annotations: '"kubegrace.dev/served": "false"' }) },
    // TRANSPORTER without a transporter URL (a name of a transport, or another program's variable) says nothing.
    { name: 'TRANSPORTER that is not a Moleculer transporter URL', yaml: moleculer({ name: 'authorization', replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}', transporter: 'smtp' }) },
    { name: 'a Moleculer node rolling surge first', yaml: moleculer({ name: 'authorization', replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }) },
    { name: 'replicas 1 with the defaults 25%/25%: surge 1, unavailable 0 (surge first)', yaml: deploy({ replicas: 1 }) },
    { name: 'replicas 1 with 25%/25% written out: still surge 1 / unavailable 0', yaml: deploy({ replicas: 1, strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: "25%", maxUnavailable: "25%"}}' }) },
    { name: 'replicas 1, maxSurge 1, maxUnavailable 0', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }) },
    { name: 'replicas 4, maxUnavailable 1', yaml: deploy({ replicas: 4, strategy: '{rollingUpdate: {maxUnavailable: 1}}' }) },
    { name: 'replicas 3, maxUnavailable 50% rounds down to 1', yaml: deploy({ replicas: 3, strategy: '{rollingUpdate: {maxUnavailable: "50%"}}' }) },
    { name: 'replicas 4, maxUnavailable 99% rounds down to 3', yaml: deploy({ replicas: 4, strategy: '{rollingUpdate: {maxUnavailable: "99%"}}' }) },
    { name: 'replicas 3, maxSurge 0 and maxUnavailable 10%: forced unavailable 1 < 3', yaml: deploy({ replicas: 3, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "10%"}}' }) },
    { name: 'unserved: another Service in the namespace, none selects the pods', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', service: false }) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {selector: {app: other}, ports: [{port: 80}]}\n' },
    {
      name: 'unknown served, only a metrics port declared: not assumed served',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', service: false }).replace('ports: [{containerPort: 8080}]', 'ports: [{name: metrics, containerPort: 9090}]'),
    },
    { name: 'served hint "false" wins over the Service', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'Recreate is recreate-strategy\'s business', yaml: deploy({ replicas: 1, strategy: '{type: Recreate}' }) },
    { name: 'scaled to 0: skipped', yaml: deploy({ replicas: 0, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }) },
    { name: 'both literally 0: the API rejects the spec, no rollout to judge', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "0%"}}' }) },
    { name: 'HPA minReplicas 2 re-resolves "50%": floor(1) = 1 < 2', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxUnavailable: "50%"}}', extra: hpa(2) }) },
    { name: 'HPA minReplicas 3 overrides spec.replicas 1: unavailable 1 < 3', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxUnavailable: 1}}', extra: hpa(3) }) },
    {
      name: 'a GPU workload: maxSurge 0 / maxUnavailable 1 is the surge-resource-deadlock trade-off, not flagged',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }).replace('ports: [{containerPort: 8080}]}', 'ports: [{containerPort: 8080}], resources: {limits: {nvidia.com/gpu: 1}}}'),
    },
    {
      name: 'RWO claim: maxSurge 0 / maxUnavailable 1 is the surge-volume-deadlock fix, the outage is inherent',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', volumes: '[{name: data, persistentVolumeClaim: {claimName: data}}]', extra: pvc('[ReadWriteOnce]') }),
    },
    {
      name: 'claim whose PVC is not in the set: mode unknown, treated as exclusive',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', volumes: '[{name: data, persistentVolumeClaim: {claimName: data}}]' }),
    },
    {
      name: 'a metrics-only Service does not make it served',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', service: false }) + `---
apiVersion: v1
kind: Service
metadata: {name: web-metrics}
spec:
  selector: {app: web}
  ports: [{name: metrics, port: 9090}]
`,
    },
    {
      name: "Sourcegraph chart's worker (replicas 1, maxUnavailable 1): its Service reaches only the health and debug servers (catalog sourcegraph-worker-health), so no client sees the gap",
      yaml: sourcegraphWorker('worker'),
    },
    // Helm hooks that are not deleted and recreated on upgrade while serving (review p32).
    { name: 'a pre-install hook StatefulSet (Airbyte): never runs again, never recreated', yaml: hookRelay('"helm.sh/hook": pre-install', 'StatefulSet') },
    { name: 'a post-install hook: install only', yaml: hookRelay('"helm.sh/hook": "post-install"') },
    { name: 'an upgrade hook deleted by hook-succeeded: its pods never serve for good', yaml: hookRelay('"helm.sh/hook": post-upgrade, "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded"') },
    { name: 'an upgrade hook whose delete policy is hook-failed only: Helm sets no default and never deletes it', yaml: hookRelay('"helm.sh/hook": post-upgrade, "helm.sh/hook-delete-policy": hook-failed') },
    { name: 'an unserved upgrade hook (Sentry\'s Kafka consumers): a pause, not an outage', yaml: hookRelay(undefined, 'Deployment', false).replace('ports: [{containerPort: 3000}]', 'ports: [{name: metrics, containerPort: 3000}]') },
    { name: 'an upgrade hook scaled to 0', yaml: hookRelay().replace('replicas: 2', 'replicas: 0') },
    { name: 'a test hook', yaml: hookRelay('"helm.sh/hook": test') },
  ],
  invalid: [
    {
      // Review round 35, report p55 item 2: Rocket.Chat's authorization service answers Moleculer calls
      // over NATS; its only Service carries metrics, and a call with no instance fails at once.
      name: 'a Moleculer node reached through its transporter (its Service carries only metrics), one replica, maxUnavailable 1',
      yaml: moleculer({ name: 'authorization', replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', object: 'Deployment/authorization', message: 'the only pod is removed before its replacement is ready, a full outage for the whole startup time; set strategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} (surge first) (no Service routes clients to it, but it is a Moleculer node (TRANSPORTER nats://rc-nats:4222 in container "svc"): its callers reach it through the message broker, and a call that finds no instance fails at once (ServiceNotAvailableError), it is not queued)' }],
    },
    {
      name: 'a Moleculer node alone (no Service in the input), redis transporter',
      yaml: moleculer({ name: 'presence', replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', transporter: 'redis://redis:6379', service: false }),
      findings: [{ severity: 'warning', object: 'Deployment/presence', message: 'it is a Moleculer node (TRANSPORTER redis://redis:6379 in container "svc")' }],
    },
    {
      // (Review round 11: grafana/rollout-operator, one replica with maxSurge 0 and no leader election.)
      name: 'one replica with maxSurge written as 0: the surge-first advice and proposal only if the program can run two at once',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }),
      findings: [
        {
          severity: 'warning',
          message:
            /a full outage for the whole startup time; if the program can run two at once, set strategy\.rollingUpdate to \{maxSurge: 1, maxUnavailable: 0\} \(surge first\); if it must not \(a controller without leader election: maxSurge 0 on one replica often says so\), the outage is the price of that: keep it, and suppress this finding with the reason$/,
        },
      ],
    },
    {
      name: 'one replica on host ports (kind\'s ingress-nginx): the outage stands, but surge first is no repair (the surge pod needs a node without the pod): more replicas with delete-first, no fix',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }).replace('ports: [{containerPort: 8080}]', 'ports: [{containerPort: 8080, hostPort: 80}]'),
      findings: [{ severity: 'warning', message: /a full outage for the whole startup time; the pod binds host ports \(container "app" hostPort 80\), so a surge pod needs a node that runs none of these pods \(see spread-blocks-surge\): run at least 2 replicas on different nodes with strategy.rollingUpdate \{maxSurge: 0, maxUnavailable: 1\}/ }],
    },
    {
      name: 'SonarQube DCE application nodes (catalog single-version, by image tag) that can all go at once: advised Recreate, not surge first, no fix',
      yaml: deploy({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "100%"}}' }).replace('image: web:1', "image: 'sonarqube:2026.4.0-datacenter-app'"),
      findings: [{ severity: 'warning', message: /container "app" runs SonarQube Server Data Center Edition application node \(cluster upgrades need downtime; catalog entry sonarqube-dce-app\), whose old and new versions must not run side by side, so surge first is no repair .*: use strategy.type Recreate/ }],
    },
    {
      name: 'the same with a search-node tag: surge first advised, as for any image',
      yaml: deploy({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "100%"}}' }).replace('image: web:1', "image: 'sonarqube:2026.4.0-datacenter-search'"),
      findings: [{ severity: 'warning', message: 'set strategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} (surge first)' }],
    },
    {
      name: 'unknown served (no Service in the set), port 8080 declared: assumed served, and said so',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', service: false }),
      findings: [{ severity: 'warning', message: /a full outage for the whole startup time.*\(served status unknown: no Service in the input selects it, but it declares port 8080/ }],
    },
    {
      name: 'replicas 1, maxSurge 0, maxUnavailable 1: the typical outage',
      yaml: deploy({ replicas: 1, strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', pointer: MU, object: 'Deployment/web', message: 'replicas 1 with maxUnavailable 1 (resolved 1): the only pod is removed before its replacement is ready' }],
    },
    {
      name: 'default replicas and maxUnavailable 1 with the default surge (ingress-nginx style)',
      yaml: deploy({ strategy: '{rollingUpdate: {maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', pointer: MU, message: 'replicas 1 (default) with maxUnavailable 1 (resolved 1)' }],
    },
    {
      name: 'replicas 1, maxSurge 1 and maxUnavailable 1: the old pod still goes at once',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', pointer: MU, message: 'maxUnavailable 1 (resolved 1)' }],
    },
    {
      name: 'replicas 1, maxSurge 0 with the default maxUnavailable: both resolve to 0, forced 1',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0}}' }),
      findings: [{ severity: 'warning', pointer: MS, message: 'maxSurge 0 and maxUnavailable "25%" (default) both resolve to 0, so the controller forces 1 unavailable' }],
    },
    {
      name: 'replicas 1, maxSurge "0%" and maxUnavailable "50%": floor(0.5) = 0, forced 1',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: "0%", maxUnavailable: "50%"}}' }),
      findings: [{ severity: 'warning', pointer: MS, message: 'both resolve to 0' }],
    },
    {
      name: 'replicas 3, maxUnavailable "100%": every pod at once',
      yaml: deploy({ replicas: 3, strategy: '{rollingUpdate: {maxUnavailable: "100%"}}' }),
      findings: [{ severity: 'warning', pointer: MU, message: 'replicas 3 with maxUnavailable "100%" (resolved 3): all 3 pods can be removed' }],
    },
    {
      name: 'replicas 2, maxUnavailable 5 (more than replicas)',
      yaml: deploy({ replicas: 2, strategy: '{rollingUpdate: {maxUnavailable: 5}}' }),
      findings: [{ severity: 'warning', message: 'maxUnavailable 5 (resolved 5)' }],
    },
    {
      name: 'HPA minReplicas 1 is what counts, not spec.replicas 3',
      yaml: deploy({ replicas: 3, strategy: '{rollingUpdate: {maxUnavailable: 1}}', extra: hpa(1) }),
      findings: [{ severity: 'warning', pointer: MU, message: 'HPA minReplicas 1 (HorizontalPodAutoscaler/web) with maxUnavailable 1 (resolved 1)' }],
    },
    {
      name: 'HPA without minReplicas defaults to 1',
      yaml: deploy({ strategy: '{rollingUpdate: {maxUnavailable: "100%"}}', extra: hpa() }),
      findings: [{ severity: 'warning', message: 'HPA minReplicas 1 (default)' }],
    },
    {
      name: 'HPA minReplicas 2 re-resolves the percentage: "100%" of 2 = 2',
      yaml: deploy({ replicas: 5, strategy: '{rollingUpdate: {maxUnavailable: "100%"}}', extra: hpa(2) }),
      findings: [{ severity: 'warning', message: '(resolved 2): all 2 pods' }],
    },
    {
      name: 'a ReadWriteMany claim does not excuse the outage',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', volumes: '[{name: data, persistentVolumeClaim: {claimName: data}}]', extra: pvc('[ReadWriteMany]') }),
      findings: [{ severity: 'warning', pointer: MU }],
    },
    {
      name: 'served by the hint alone',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', service: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning', object: 'Deployment/web' }],
    },
    {
      name: "another image with the Sourcegraph worker's shape: port 3189 is client traffic, the outage is reported",
      yaml: sourcegraphWorker('worker', { image: 'example.com/team/worker:1' }),
      findings: [{ severity: 'warning', object: 'Deployment/worker', pointer: MU }],
    },
    {
      // (Review p32: sentry-kubernetes/charts 25.20.0, asHook: true.)
      name: 'a served post-install,post-upgrade hook Deployment with no delete policy: Helm deletes and recreates it on every upgrade, whatever replicas and surge',
      yaml: hookRelay(),
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/sentry-relay',
          pointer: HOOK,
          message:
            "a Helm hook (helm.sh/hook: post-install,post-upgrade) with hook-delete-policy before-hook-creation (Helm's default when none is written): on every helm upgrade Helm deletes this Deployment, so all its pods terminate, and only then creates it again: Service sentry-relay has no ready endpoint until the new pods are Ready, a full outage on each helm upgrade, whatever the replicas and the update strategy say; render it as a normal object (without the helm.sh/hook annotation) so that Helm updates it in place with its rolling update, or accept the outage and suppress this finding with the reason",
        },
      ],
    },
    {
      name: 'before-hook-creation written, upgrade and rollback phases, a StatefulSet',
      yaml: hookRelay('"helm.sh/hook": "pre-upgrade, Post-Rollback", "helm.sh/hook-delete-policy": Before-Hook-Creation', 'StatefulSet'),
      findings: [{ severity: 'warning', object: 'StatefulSet/sentry-relay', message: /^a Helm hook \(helm\.sh\/hook: pre-upgrade,Post-Rollback\) with hook-delete-policy before-hook-creation: on every helm upgrade and every helm rollback Helm deletes this StatefulSet/ }],
    },
    {
      name: 'a served hook DaemonSet',
      yaml: hookRelay('"helm.sh/hook": post-upgrade', 'DaemonSet'),
      findings: [{ severity: 'warning', object: 'DaemonSet/sentry-relay', pointer: HOOK }],
    },
    {
      name: 'an upgrade hook with a strategy that also takes every pod down: only the hook finding (Helm never rolls a hook)',
      yaml: hookRelay().replace('  replicas: 2\n', '  replicas: 2\n  strategy: {rollingUpdate: {maxUnavailable: "100%"}}\n'),
      findings: [{ severity: 'warning', pointer: HOOK }],
    },
    {
      name: 'an upgrade hook alone, served by its declared port: assumed served, and said so',
      yaml: hookRelay(undefined, 'Deployment', false),
      findings: [{ severity: 'warning', pointer: HOOK, message: /its clients have no ready pod until the new pods are Ready.*\(served status unknown: no Service in the input selects it, but it declares port 3000/ }],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', annotations: '"kubegrace.dev/ignore": "rollout-full-outage", "kubegrace.dev/ignore-reason": "singleton by design"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

test('rollout-full-outage: pods on host ports get no surge-first fix (it would trade the outage for a stall on a node that runs the pod)', () => {
  const hostPort = deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }).replace('ports: [{containerPort: 8080}]', 'ports: [{containerPort: 8080, hostPort: 80}]');
  const plain = deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' });
  expect(runRule(rolloutFullOutage, hostPort).map((f) => f.fix)).toEqual([undefined]);
  expect(runRule(rolloutFullOutage, plain)[0].fix).toBeDefined();
});

test('rollout-full-outage: Kibana (catalog single-version) is advised Recreate, not surge first, and gets no fix', () => {
  const kibana = deploy({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "100%"}}' }).replace('image: web:1', 'image: docker.elastic.co/kibana/kibana:8.5.1');
  const got = runRule(rolloutFullOutage, kibana);
  expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  expect(got[0].message).toBe(
    'replicas 2 with maxUnavailable "100%" (resolved 2): all 2 pods can be removed before any replacement is ready, a full outage for the whole startup time; container "app" runs Kibana (does not support rolling upgrades; catalog entry kibana), whose old and new versions must not run side by side, so surge first is no repair and this strategy overlaps them too while old pods terminate: use strategy.type Recreate, which starts the new pods only once every old pod is gone (the outage then also spans the old pods\' termination)',
  );
  expect(got[0].message).not.toContain('maxSurge: 1');
});

// Review round 34, report p47: standalone SonarQube must not run two servers on one database, whatever
// their versions (catalog overlap: instances); two replicas do that whatever the strategy.
test('rollout-full-outage: standalone SonarQube (overlap instances) is advised Recreate with the exact fact, and one replica', () => {
  const yaml = deploy({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "100%"}}' }).replace('image: web:1', "image: 'sonarqube:2026.4.0-enterprise'");
  const got = runRule(rolloutFullOutage, yaml);
  expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  expect(got[0].message).toMatch(
    /container "app" runs SonarQube Server or Community Build, standalone \(one server per database; catalog entry sonarqube-standalone\), of which two instances must not run at once, whatever their versions, so surge first is no repair and this strategy overlaps them too while old pods terminate: use strategy\.type Recreate, which starts the new pods only once every old pod is gone \(the outage then also spans the old pods' termination\); and with replicas 2, 2 instances run at once whatever the strategy, which this program must not do either: it needs one replica$/,
  );
  expect(got[0].message).not.toContain('old and new versions');
  const one = runRule(rolloutFullOutage, deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }).replace('image: web:1', "image: 'sonarqube:2026.4.0-enterprise'"));
  expect(one[0].message).toMatch(/whatever their versions, so surge first is no repair .*termination\)$/);
});

test('rollout-full-outage: SonarQube DCE application nodes get no surge-first fix; the search-node tag does', () => {
  const yaml = (tag: string) => deploy({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "100%"}}' }).replace('image: web:1', `image: 'sonarqube:2026.4.0-${tag}'`);
  expect(runRule(rolloutFullOutage, yaml('datacenter-app')).map((f) => f.fix)).toEqual([undefined]);
  expect(runRule(rolloutFullOutage, yaml('datacenter-search'))[0].fix).toBeDefined();
});

test('the proposal for one replica with maxSurge written as 0 says it holds only if the program can run two at once; with maxUnavailable alone written, not', () => {
  const [chosen] = runRule(rolloutFullOutage, deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }));
  expect(chosen.fix?.description).toBe('set strategy.rollingUpdate to maxSurge 1, maxUnavailable 0 (surge first): only if the program can run two at once (maxSurge 0 was written)');
  const [plain] = runRule(rolloutFullOutage, deploy({ replicas: 1, strategy: '{rollingUpdate: {maxUnavailable: 1}}' }));
  expect(plain.message).toMatch(/; set strategy\.rollingUpdate to \{maxSurge: 1, maxUnavailable: 0\} \(surge first\)$/);
});

// Review report p35 item 1: Flux's source-controller serves (and is Ready) only once it holds the
// leader-election lease, so surge first would stall for good: taking the old pod down first is the
// program's own price (catalog single-version with overlapStalls), not a finding.
test('rollout-full-outage: Flux source-controller with leader election is not advised surge first (its new pod is not Ready while the old one holds the lease)', () => {
  const flux = (args: string) => deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }).replace('image: web:1', `image: ghcr.io/fluxcd/source-controller:v1.8.2, args: [${args}]`);
  expect(runRule(rolloutFullOutage, flux('--enable-leader-election, --storage-path=/data'))).toEqual([]);
  // Without leader election the server starts at once: judged as any program.
  expect(runRule(rolloutFullOutage, flux('--storage-path=/data')).map((f) => f.severity)).toEqual(['warning']);
});

// Review report p35 item 2: a served DaemonSet rolling with maxUnavailable "100%" deletes the pod of
// every node at once (the controller rounds DaemonSet percentages up), a full outage of its Services
// on every rollout. Only "100%" reaches every pod whatever the node count; the Longhorn manager does it
// on purpose (catalog single-version: its new managers wait until no old manager pod remains): info.
interface DsOpts {
  /** YAML flow map for spec.updateStrategy. */
  strategy?: string;
  /** The Service's extra spec fields (flow map body), or false for none. */
  service?: string | false;
  image?: string;
  command?: string;
  annotations?: string;
  ports?: string;
}

function daemonset(o: DsOpts = {}): string {
  const svc = o.service === false
    ? ''
    : `---
apiVersion: v1
kind: Service
metadata: {name: node-api, namespace: demo}
spec: {selector: {app: node-api}, ports: [{name: http, port: 80, targetPort: http}]${o.service ? `, ${o.service}` : ''}}
`;
  return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-api, namespace: demo}
spec:
  selector: {matchLabels: {app: node-api}}
${o.strategy ? `  updateStrategy: ${o.strategy}\n` : ''}  template:
    metadata:
      labels: {app: node-api}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers:
      - name: api
        image: ${o.image ?? 'example.com/node-api:1.0'}
${o.command ? `        command: ${o.command}\n` : ''}        ports: ${o.ports ?? '[{containerPort: 8080, name: http}]'}
        readinessProbe: {httpGet: {path: /ready, port: http}}
${svc}`;
}

const ALL = '{type: RollingUpdate, rollingUpdate: {maxUnavailable: "100%"}}';
const LONGHORN = { image: 'docker.io/longhornio/longhorn-manager:v1.10.0', command: '[longhorn-manager, -d, daemon, --engine-image, "longhornio/longhorn-engine:v1.10.0"]' };

ruleTester(rolloutFullOutage, {
  valid: [
    { name: 'DaemonSet with the default maxUnavailable 1', yaml: daemonset() },
    { name: 'DaemonSet with maxUnavailable "50%": every pod only on one or two nodes, not judged', yaml: daemonset({ strategy: '{rollingUpdate: {maxUnavailable: "50%"}}' }) },
    { name: 'DaemonSet with an absolute maxUnavailable 10: the node count is unknown, not judged', yaml: daemonset({ strategy: '{rollingUpdate: {maxUnavailable: 10}}' }) },
    { name: 'DaemonSet with OnDelete', yaml: daemonset({ strategy: '{type: OnDelete, rollingUpdate: {maxUnavailable: "100%"}}' }) },
    { name: 'DaemonSet with maxSurge 1 and maxUnavailable "100%": rejected by the API (daemonset-surge\'s error)', yaml: daemonset({ strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: "100%"}}' }) },
    { name: 'DaemonSet with "100%" that no Service routes to (another Service in the namespace)', yaml: daemonset({ strategy: ALL, service: false }) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: other, namespace: demo}\nspec: {selector: {app: other}, ports: [{port: 80}]}\n' },
    { name: 'DaemonSet with "100%" behind a metrics-only Service (node-exporter style)', yaml: daemonset({ strategy: ALL, ports: '[{containerPort: 9100, name: metrics}]' }).replace('targetPort: http', 'targetPort: metrics').replace('name: http, port: 80', 'name: metrics, port: 9100') },
    { name: 'DaemonSet with "100%" whose only Service has internalTrafficPolicy: Local: node-local traffic, daemonset-surge\'s', yaml: daemonset({ strategy: ALL, service: 'internalTrafficPolicy: Local' }) },
    { name: 'DaemonSet with "100%" and the served hint "false"', yaml: daemonset({ strategy: ALL, annotations: '"kubegrace.dev/served": "false"' }) },
  ],
  invalid: [
    {
      name: 'a served DaemonSet (ClusterIP Service) with maxUnavailable "100%": every node at once, a full outage (reproducer 02b)',
      yaml: daemonset({ strategy: ALL }),
      findings: [
        {
          severity: 'warning',
          object: 'DaemonSet/node-api',
          pointer: '/spec/updateStrategy/rollingUpdate/maxUnavailable',
          message:
            'updateStrategy.rollingUpdate maxUnavailable "100%" with maxSurge absent (default 0): the DaemonSet controller deletes the pod of every node at once (the percentage is of the nodes that run it, rounded up), before any replacement is ready, so each rollout takes down every endpoint of Service/node-api until the new pods are Ready, a full outage; set updateStrategy.rollingUpdate.maxUnavailable to a bound below every node (1, the default, or a percentage such as 10% on large clusters), so that the pods of the other nodes keep serving while some restart',
        },
      ],
    },
    { name: 'maxSurge "0%" written, maxUnavailable " 100% "', yaml: daemonset({ strategy: '{rollingUpdate: {maxSurge: "0%", maxUnavailable: " 100% "}}' }), findings: [{ severity: 'warning', message: 'with maxSurge "0%"' }] },
    { name: 'a Local-policy Service beside a cluster one: the cluster one loses every endpoint', yaml: daemonset({ strategy: ALL, service: 'internalTrafficPolicy: Local' }) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: node-api-cluster, namespace: demo}\nspec: {selector: {app: node-api}, ports: [{port: 80, targetPort: http}]}\n', findings: [{ severity: 'warning', message: 'every endpoint of Service/node-api-cluster until' }] },
    { name: 'no Service in the input, port http declared: assumed served, and said so', yaml: daemonset({ strategy: ALL, service: false }), findings: [{ severity: 'warning', message: /takes down every pod that serves it .*\(served status unknown: no Service in the input selects it, but it declares port http\/8080/ }] },
    {
      name: 'the Longhorn manager (catalog single-version longhorn-manager): the outage is the program\'s price, info (reproducer 02)',
      yaml: daemonset({ strategy: ALL, ...LONGHORN }),
      findings: [
        {
          severity: 'info',
          message:
            /a full outage; required here: container "api" runs Longhorn manager \(a new manager waits until no old manager pod remains; catalog entry longhorn-manager\), whose old and new versions must not run side by side, which a bounded maxUnavailable would do across nodes\. The outage lasts, on every rollout, from the old pods' deletion \(each may take up to its grace period, 30s \(default\), to terminate/,
        },
      ],
    },
    { name: 'the Longhorn image running another command (deploy-driver) is judged as any program', yaml: daemonset({ strategy: ALL, image: LONGHORN.image, command: '[longhorn-manager, -d, deploy-driver]' }), findings: [{ severity: 'warning' }] },
  ],
});

test('rollout-full-outage: a DaemonSet finding offers no fix (the bound on maxUnavailable is a choice of rollout speed)', () => {
  expect(runRule(rolloutFullOutage, daemonset({ strategy: ALL })).map((f) => f.fix)).toEqual([undefined]);
});

test('rollout-full-outage: a DaemonSet of a single-instance program (policy entry with overlap instances): the info says the exact fact, and that a DaemonSet runs several', () => {
  const catalog = builtinCatalog().withOverride({ add: [{ id: 'acme-agent', kind: 'single-version', overlap: 'instances', title: 'ACME agent (one per cluster)', match: { images: ['*/acme/agent'] }, why: 'owns a cluster-wide lock table without locking', source: ['ACME runbook AG-1'] }] });
  const yaml = daemonset({ strategy: ALL, image: 'registry.example.com/acme/agent:1' });
  const r = lintSources([{ file: 'test.yaml', text: yaml }], { rules: [rolloutFullOutage], policy: { name: 'test', rules: new Map(), customRules: [], catalog }, version: KubeVersion.parse('1.33') });
  expect(r.findings.map((f) => f.severity)).toEqual(['info']);
  expect(r.findings[0].message).toContain('runs ACME agent (one per cluster; catalog entry acme-agent), of which two instances must not run at once, whatever their versions, which a bounded maxUnavailable would do across nodes (and a DaemonSet runs one on every node it schedules to, so several run at once whatever the strategy, which this program must not do either). The outage lasts');
});
