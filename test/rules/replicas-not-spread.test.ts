import * as fs from 'fs';
import * as path from 'path';
import { replicasNotSpread } from '../../lib/rules/replicas-not-spread';
import { fluentBit } from '../helpers/fluent-bit';
import { ruleTester, runRule } from '../helpers/rule-tester';

function workload(podSpec: string, opts: { kind?: string; replicas?: string; annotations?: string; service?: boolean } = {}): string {
  return `apiVersion: apps/v1
kind: ${opts.kind ?? 'Deployment'}
metadata: {name: web}
spec:
${opts.replicas === '' ? '' : `  replicas: ${opts.replicas ?? '3'}\n`}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web, tier: front}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${podSpec}      containers: [{name: app, image: web, ports: [{containerPort: 8080}]}]
${opts.service === false ? '' : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`}`;
}
const tsc = (key: string, selector = '{matchLabels: {app: web}}', when = 'ScheduleAnyway') => `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: ${key}, whenUnsatisfiable: ${when}, labelSelector: ${selector}}
`;
const anti = (kind: 'required' | 'preferred', key: string, selector = '{matchLabels: {app: web}}') =>
  kind === 'required'
    ? `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: ${key}, labelSelector: ${selector}}
`
    : `      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm: {topologyKey: ${key}, labelSelector: ${selector}}
`;
const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: ${min}
  maxReplicas: 10
`;

/** A pod-spec line mounting PVC "data", and the PVC with the given access modes. */
const CLAIM = '      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n';
const pvc = (modes: string) => `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: ${modes}
  resources: {requests: {storage: 1Gi}}
`;

const pdb = (spec: string) => `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  ${spec}
  selector: {matchLabels: {app: web}}
`;

/** The workload with its Service called by one fail-closed validating webhook on the API group given (port 80). */
const webhookCalled = (yaml: string, group: string) =>
  yaml +
  `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: externalsecret-validate}
webhooks:
- name: validate.externalsecret.external-secrets.io
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {service: {namespace: default, name: web, path: /validate, port: 80}}
  rules: [{apiGroups: [${group}], apiVersions: ['*'], operations: [CREATE, UPDATE], resources: ['*']}]
`;

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

ruleTester(replicasNotSpread, {
  valid: [
    { name: 'a Moleculer node with kubegrace.dev/served "false" (the hint wins)', yaml: moleculer({ name: 'account', replicas: 2, annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'a Moleculer node of one replica', yaml: moleculer({ name: 'account', replicas: 1 }) },
    { name: 'host ports: two of these pods never share a node (NodePorts), like required hostname anti-affinity (the minio example)', yaml: workload('', { kind: 'StatefulSet' }).replace('ports: [{containerPort: 8080}]', 'ports: [{containerPort: 8080, hostPort: 9000}]') },
    { name: 'hostNetwork with a declared port: a host port too', yaml: workload('      hostNetwork: true\n') },
    { name: 'hostname spread constraint', yaml: workload(tsc('kubernetes.io/hostname')) },
    { name: 'zone spread constraint', yaml: workload(tsc('topology.kubernetes.io/zone')) },
    { name: 'required hostname anti-affinity', yaml: workload(anti('required', 'kubernetes.io/hostname')) },
    { name: 'preferred hostname anti-affinity (argo-cd style)', yaml: workload(anti('preferred', 'kubernetes.io/hostname')) },
    { name: 'preferred zone anti-affinity', yaml: workload(anti('preferred', 'topology.kubernetes.io/zone', '{matchExpressions: [{key: app, operator: In, values: [web]}]}')) },
    { name: 'anti-affinity on a label shared by a group (part-of style) still selects its own pods', yaml: workload(anti('preferred', 'kubernetes.io/hostname', '{matchLabels: {tier: front}}')) },
    { name: 'a single replica', yaml: workload('', { replicas: '1' }) },
    { name: 'default replicas (1)', yaml: workload('', { replicas: '' }) },
    { name: 'unserved: another Service in the namespace, none selects the pods', yaml: workload('', { service: false }) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {selector: {app: other}, ports: [{port: 80}]}\n' },
    { name: 'served hint false', yaml: workload('', { annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'HPA minReplicas 1 owns the count', yaml: workload('', { replicas: '' }) + hpa(1) },
    // Review report p28 item 4: the Pomerium chart's proxy HPA; the API server rejects it (hpa-replicas: error).
    { name: 'an autoscaling/v2beta1 HPA minReplicas 2 on 1.31 is not served: the Deployment runs 1 replica', yaml: workload('', { replicas: '' }) + hpa(2).replace('autoscaling/v2', 'autoscaling/v2beta1'), kubeVersion: '1.31' },
    { name: 'Fluent Bit as a Deployment whose Service reaches only its monitoring server (2020, named http): not served', yaml: fluentBit({ kind: 'Deployment', replicas: 2 }) },
    { name: 'DaemonSets have no replicas', yaml: workload('', { kind: 'DaemonSet', replicas: '' }) },
    { name: 'pinned to one node: cannot spread', yaml: workload('      nodeSelector: {kubernetes.io/hostname: node-1}\n') },
    // Replicas sharing an exclusive claim: spreading them makes them fail (surge-volume-deadlock reports the claim).
    { name: 'Deployment replicas 3 sharing a ReadWriteOnce claim (open-webui): not told to spread', yaml: workload(CLAIM) + pvc('[ReadWriteOnce]') },
    { name: 'Deployment replicas 3 sharing a ReadWriteOncePod claim', yaml: workload(CLAIM) + pvc('[ReadWriteOncePod]') },
    { name: 'HPA minReplicas 2 with replicas unset, sharing a ReadWriteOnce claim (sentry-web)', yaml: workload(CLAIM, { replicas: '' }) + hpa(2) + pvc('[ReadWriteOnce]') },
    { name: 'ReplicaSet replicas 3 sharing a ReadWriteOnce claim', yaml: workload(CLAIM, { kind: 'ReplicaSet' }) + pvc('[ReadWriteOnce]') },
  ],
  invalid: [
    {
      // Review round 35, report p55 item 2: pdb-missing already warned on it; a node failure fails every call too.
      name: 'a Moleculer node reached through its transporter (its Service carries only metrics), 2 replicas',
      yaml: moleculer({ name: 'account', replicas: 2 }),
      findings: [{ severity: 'warning', object: 'Deployment/account', message: 'one node drain or failure can take every replica at once; add topologySpreadConstraints' }],
    },
    // Review round 33, report p40 item 1: External Secrets' webhook (2 replicas), whose only client is the API server calling
    // webhooks on external-secrets.io: webhook-backend-availability rates losing every replica info.
    {
      name: 'a webhook backend whose only client is the API server, through fail-closed webhooks on custom resources only: info',
      yaml: webhookCalled(workload('', { replicas: '2' }), 'external-secrets.io'),
      findings: [
        {
          severity: 'info',
          message:
            "replicas 2 but nothing spreads them across nodes or zones (no hostname/zone topologySpreadConstraint or pod anti-affinity selecting its own pods; the scheduler's default spreading is only a soft preference): one node drain or failure can take every replica at once; that costs little here: its only client is the API server, calling validate.externalsecret.external-secrets.io, which matches only custom resources (external-secrets.io): losing every replica fails only writes of those, which GitOps controllers and the operator's own reconcilers retry (a one-shot kubectl apply or helm upgrade fails and must be run again), as webhook-backend-availability rates that outage; add topologySpreadConstraints",
        },
      ],
    },
    { name: 'a webhook backend whose webhook matches a built-in group (apps): warning', yaml: webhookCalled(workload('', { replicas: '2' }), 'apps'), findings: [{ severity: 'warning', message: /can take every replica at once; add topologySpreadConstraints/ }] },
    {
      name: 'Fluent Bit as a Deployment with a forward input on its Service: served',
      yaml: fluentBit({ kind: 'Deployment', replicas: 2, extraPorts: [{ name: 'forward', port: 24224 }] }),
      findings: [{ severity: 'warning', message: /^replicas 2 but nothing spreads them/ }],
    },
    {
      name: 'unknown served (no Service in the set), port 8080 declared: assumed served, and said so',
      yaml: workload('', { service: false }),
      findings: [{ severity: 'warning', message: /nothing spreads them.*\(served status unknown: no Service in the input selects it, but it declares port 8080/ }],
    },
    {
      name: 'three replicas, no spreading (Deployment on 1.27: matchLabelKeys in the fix)',
      yaml: workload(''),
      kubeVersion: '1.27',
      findings: [{ severity: 'warning', pointer: '/spec/template/spec', message: /^replicas 3 but nothing spreads them.*labelSelector: \{matchLabels: \{app: web\}\}, matchLabelKeys: \[pod-template-hash\] \(ScheduleAnyway spreads when it can and never leaves a pod Pending; use DoNotSchedule only where co-located replicas are worse than a pod that cannot schedule, with matchLabelKeys: \[pod-template-hash\] so a surge pod does not stall the rollout\)$/ }],
    },
    {
      name: 'below 1.27 the fix omits matchLabelKeys',
      yaml: workload(''),
      kubeVersion: '1.26',
      findings: [{ severity: 'warning', message: /labelSelector: \{matchLabels: \{app: web\}\} \(ScheduleAnyway spreads when it can and never leaves a pod Pending; use DoNotSchedule only where co-located replicas are worse than a pod that cannot schedule\)$/ }],
    },
    {
      name: 'StatefulSet: no matchLabelKeys (no pod-template-hash)',
      yaml: workload('', { kind: 'StatefulSet' }),
      findings: [{ severity: 'warning', object: 'StatefulSet/web', message: /\{app: web\}\} \(ScheduleAnyway[^)]*cannot schedule\)$/ }],
    },
    {
      name: 'replicas sharing a ReadWriteMany claim may be spread',
      yaml: workload(CLAIM) + pvc('[ReadWriteMany]'),
      findings: [{ severity: 'warning', message: /^replicas 3 but nothing spreads them/ }],
    },
    {
      name: 'a claim whose PVC is not in the input: access mode unknown, still reported',
      yaml: workload(CLAIM),
      findings: [{ severity: 'warning', message: /^replicas 3 but nothing spreads them/ }],
    },
    {
      name: 'a StatefulSet mounting its volumeClaimTemplates (one claim per pod) is still reported',
      yaml: workload('', { kind: 'StatefulSet' }).replace('      containers: [{name: app, image: web, ports: [{containerPort: 8080}]}]\n', '      containers: [{name: app, image: web, ports: [{containerPort: 8080}], volumeMounts: [{name: data, mountPath: /d}]}]\n  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n'),
      findings: [{ severity: 'warning', object: 'StatefulSet/web' }],
    },
    {
      name: 'HPA minReplicas 2 counts',
      yaml: workload('', { replicas: '' }) + hpa(2),
      findings: [{ severity: 'warning', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/web)' }],
    },
    {
      name: 'served by hint only',
      yaml: workload('', { service: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'spread constraint on another key does not count: pointer at it, the key named',
      yaml: workload(tsc('node.kubernetes.io/instance-type')),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/topologySpreadConstraints', message: 'nothing spreads them across nodes or zones (topologySpreadConstraints[0] uses topologyKey node.kubernetes.io/instance-type, which groups nodes by kind, not by node or zone; the scheduler' }],
    },
    {
      name: "haproxytech's values example: DoNotSchedule on kubernetes.io/zone, which is no well-known node label: named, with the key it likely meant",
      yaml: workload(tsc('kubernetes.io/zone', '{matchLabels: {app: web}}', 'DoNotSchedule')),
      findings: [
        {
          severity: 'warning',
          message:
            /^replicas 3 but nothing spreads them across nodes or zones \(topologySpreadConstraints\[0\] uses topologyKey kubernetes\.io\/zone, which is not a label Kubernetes puts on nodes \(the well-known one is topology\.kubernetes\.io\/zone\): unless nodes were labelled with it, it spreads nothing \(and with DoNotSchedule no node without it fits: see spread-blocks-surge\); the scheduler's default spreading is only a soft preference\): one node drain or failure can take every replica at once; set the topologyKey of topologySpreadConstraints\[0\] to topology\.kubernetes\.io\/zone, or add topologySpreadConstraints/,
        },
      ],
    },
    {
      name: 'ScheduleAnyway on kubernetes.io/zone: spreads nothing, and no pointer to spread-blocks-surge (no pod is left Pending)',
      yaml: workload(tsc('kubernetes.io/zone')),
      findings: [{ severity: 'warning', message: /\(the well-known one is topology\.kubernetes\.io\/zone\): unless nodes were labelled with it, it spreads nothing; the scheduler's/ }],
    },
    {
      name: 'a custom node label (example.com/rack) is not known to spread: said so, no key suggested',
      yaml: workload(tsc('example.com/rack')),
      findings: [{ severity: 'warning', message: /topologySpreadConstraints\[0\] uses topologyKey example\.com\/rack, a node label kubegrace does not know: whether nodes carry it and it keeps replicas apart is not in the manifests; the scheduler's default spreading is only a soft preference\): one node drain or failure can take every replica at once; add topologySpreadConstraints/ }],
    },
    {
      name: 'a region constraint: one domain in a one-region cluster',
      yaml: workload(tsc('topology.kubernetes.io/region')),
      findings: [{ severity: 'warning', message: 'topologySpreadConstraints[0] uses topologyKey topology.kubernetes.io/region: a cluster in one region is one domain, so it keeps no replica off a shared node' }],
    },
    {
      name: 'spread constraint selecting other pods does not count: said so',
      yaml: workload(tsc('kubernetes.io/hostname', '{matchLabels: {app: db}}')),
      findings: [{ severity: 'warning', message: 'topologySpreadConstraints[0] (topologyKey kubernetes.io/hostname) selects other pods than its own {app: web}' }],
    },
    {
      name: 'anti-affinity on another app does not count: pointer at it',
      yaml: workload(anti('preferred', 'kubernetes.io/hostname', '{matchLabels: {app: cache}}')),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/affinity/podAntiAffinity', message: 'preferred pod anti-affinity term 0 (topologyKey kubernetes.io/hostname) selects other pods than its own {app: web}' }],
    },
    {
      name: 'required anti-affinity on a reserved key no node carries (topology.kubernetes.io/hostname) separates nothing: named, with the key it likely meant',
      yaml: workload(anti('required', 'topology.kubernetes.io/hostname')),
      findings: [{ severity: 'warning', message: /required pod anti-affinity term 0 uses topologyKey topology\.kubernetes\.io\/hostname, which is not a label Kubernetes puts on nodes \(the well-known one is kubernetes\.io\/hostname\).*; set the topologyKey of required pod anti-affinity term 0 to kubernetes\.io\/hostname, or add/ }],
    },
    {
      name: 'a spread constraint and an anti-affinity term, neither counting: both named',
      yaml: workload(tsc('kubernetes.io/os') + anti('preferred', 'kubernetes.io/hostname', '{matchLabels: {app: cache}}').replace('      affinity:', '      affinity:')),
      findings: [{ severity: 'warning', message: '(topologySpreadConstraints[0] uses topologyKey kubernetes.io/os, which groups nodes by kind, not by node or zone; preferred pod anti-affinity term 0 (topologyKey kubernetes.io/hostname) selects other pods than its own {app: web}; the scheduler' }],
    },
    {
      name: 'no budget in the set: a drain can take every replica too',
      yaml: workload(''),
      findings: [{ severity: 'warning', message: /soft preference\): one node drain or failure can take every replica at once; add/ }],
    },
    {
      name: 'a budget that holds a drain back (maxUnavailable 1 of 3): only a node failure takes them all, and the budget is named',
      yaml: workload('') + pdb('maxUnavailable: 1'),
      findings: [{ severity: 'warning', message: /soft preference\): one node failure can take every replica at once \(a drain of that node is held back by PodDisruptionBudget\/web: 1 eviction at a time, each waiting for a replacement to become Ready elsewhere\); add/ }],
    },
    {
      name: 'a budget that allows no eviction: the drain stalls',
      yaml: workload('') + pdb('minAvailable: 3'),
      findings: [{ severity: 'warning', message: /one node failure can take every replica at once \(a drain of that node is held back by PodDisruptionBudget\/web: it allows no eviction, so the drain stalls\)/ }],
    },
    {
      name: 'a budget that allows every replica to go (maxUnavailable 100%) holds nothing back',
      yaml: workload('') + pdb('maxUnavailable: 100%'),
      findings: [{ severity: 'warning', message: /one node drain or failure can take every replica at once/ }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: workload('', { annotations: '"kubegrace.dev/ignore": "replicas-not-spread", "kubegrace.dev/ignore-reason": "single-node dev cluster"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

/** Real charts (../shared/corpus/rendered, rendered for Kubernetes 1.31): reviewed findings, pinned. */
const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const corpusFile = (f: string) => fs.readFileSync(path.join(CORPUS, f), 'utf8');
const describeCorpus = fs.existsSync(CORPUS) ? describe : describe.skip;

describeCorpus('replicas-not-spread on the corpus', () => {
  test('charts with anti-affinity are clean; ingress-nginx with 3 replicas and none is not', () => {
    for (const f of ['linkerd-control-plane-ha.yaml', 'argo-cd-ha-install.yaml', 'teleport-cluster-ha-pdb.yaml']) {
      expect(runRule(replicasNotSpread, corpusFile(f), '1.31')).toEqual([]);
    }
    expect(runRule(replicasNotSpread, corpusFile('ingress-nginx-ha.yaml'), '1.31').map((f) => f.object.name)).toEqual(['ingress-nginx-controller']);
  });
});

/** Review round 25 (bitnami/dremio): a hostname or zone rule whose selector is one label value off the pods' own. */
describe('replicas-not-spread: a spreading rule that matches no pod, one label value off', () => {
  const AA = '/spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0';
  /** bitnami/dremio's executor (templates/executor/statefulset.yaml): component executor-<engine> in the term, executor on the pods. */
  const DREMIO = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: dremio-executor-default, namespace: dremio}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector: {matchLabels: {app.kubernetes.io/name: dremio, app.kubernetes.io/component: executor, engine: default}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: dremio-executor-default, namespace: dremio}
spec:
  replicas: 3
  serviceName: dremio-headless
  podManagementPolicy: Parallel
  selector: {matchLabels: {app.kubernetes.io/name: dremio, app.kubernetes.io/component: executor, engine: default}}
  template:
    metadata:
      labels: {app.kubernetes.io/name: dremio, app.kubernetes.io/component: executor, engine: default}
      annotations: {kubegrace.dev/ignore: prestop-missing, kubegrace.dev/ignore-reason: not the subject of this repro}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {app.kubernetes.io/name: dremio, app.kubernetes.io/component: executor-default}
            topologyKey: kubernetes.io/hostname
      containers:
      - name: dremio
        image: docker.io/bitnami/dremio:26.0.0-debian-12-r5
        ports:
        - {name: liveness, containerPort: 44349}
        - {name: server-fabric, containerPort: 45678}
        readinessProbe:
          tcpSocket: {port: liveness}
        livenessProbe:
          tcpSocket: {port: liveness}
          periodSeconds: 20
---
apiVersion: v1
kind: Service
metadata: {name: dremio-headless, namespace: dremio}
spec:
  clusterIP: None
  selector: {app.kubernetes.io/name: dremio}
  ports:
  - {name: tcp-fabric, port: 45678, targetPort: server-fabric}
`;
  const other = (labels: string) => `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: other}
spec:
  replicas: 1
  selector: {matchLabels: {${labels}}}
  template:
    metadata: {labels: {${labels}}}
    spec: {containers: [{name: app, image: other}]}
`;

  test('the Dremio executor: the message names the label to correct, and the proposal corrects it instead of adding a soft spread', () => {
    const got = runRule(replicasNotSpread, DREMIO, '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain(
      'required pod anti-affinity term 0 (topologyKey kubernetes.io/hostname) matches no pod in the input: its labelSelector wants app.kubernetes.io/component: executor-default, and the pods carry app.kubernetes.io/component: executor, so it keeps nothing apart',
    );
    expect(got[0].message).toContain('correct the selector: set app.kubernetes.io/component to executor in the labelSelector of required pod anti-affinity term 0');
    expect(got[0].message).not.toContain('selects other pods than its own');
    expect(got[0].message).not.toContain('ScheduleAnyway');
    expect(got[0].fix?.safety).toBe('proposal');
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: `${AA}/labelSelector/matchLabels/app.kubernetes.io~1component`, value: 'executor' }]);
  });

  test('a StatefulSet\'s required term: corrected by a proposal', () => {
    const got = runRule(replicasNotSpread, workload(anti('required', 'kubernetes.io/hostname', '{matchLabels: {app: web, tier: front-end}}'), { kind: 'StatefulSet' }), '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain('its labelSelector wants tier: front-end, and the pods carry tier: front');
    expect(got[0].message).toContain('(a hard rule: replicas beyond the number of nodes or zones then stay Pending)');
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: `${AA}/labelSelector/matchLabels/tier`, value: 'front' }]);
  });

  test('a soft spread constraint one value off: corrected in place', () => {
    const got = runRule(replicasNotSpread, workload(tsc('topology.kubernetes.io/zone', '{matchLabels: {app: webapp}}')), '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain('topologySpreadConstraints[0] (topologyKey topology.kubernetes.io/zone) matches no pod in the input: its labelSelector wants app: webapp, and the pods carry app: web');
    expect(got[0].message).not.toContain('a hard rule');
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/topologySpreadConstraints/0/labelSelector/matchLabels/app', value: 'web' }]);
  });

  test('a Deployment\'s required term: no fix (corrected, it would hold the surge pod off every node with a replica), the advice says what to change', () => {
    const got = runRule(replicasNotSpread, workload(anti('required', 'kubernetes.io/hostname', '{matchLabels: {app: web, tier: front-end}}')), '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].message).toMatch(/correct the selector: set tier to front in the labelSelector of required pod anti-affinity term 0, .*see spread-blocks-surge\)$/);
    expect(got[0].fix).toBeUndefined();
  });

  test('the value in matchExpressions: named, no fix', () => {
    const got = runRule(replicasNotSpread, workload(anti('required', 'kubernetes.io/hostname', '{matchExpressions: [{key: tier, operator: In, values: [front-end]}]}'), { kind: 'StatefulSet' }), '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain('matches no pod in the input: its labelSelector wants tier: front-end, and the pods carry tier: front');
    expect(got[0].fix).toBeUndefined();
  });

  test('near misses stay as before: a selector another workload\'s pods match, an unlike value, a term over other namespaces', () => {
    const cases = [
      workload(anti('required', 'kubernetes.io/hostname', '{matchLabels: {app: web, tier: front-end}}'), { kind: 'StatefulSet' }) + other('app: web, tier: front-end'),
      workload(anti('required', 'kubernetes.io/hostname', '{matchLabels: {app: web, tier: db}}'), { kind: 'StatefulSet' }),
      workload(anti('required', 'kubernetes.io/hostname', '{matchLabels: {app: web, tier: front-end}}, namespaces: [edge]'), { kind: 'StatefulSet' }),
    ];
    for (const yaml of cases) {
      const got = runRule(replicasNotSpread, yaml, '1.31');
      expect(got).toHaveLength(1);
      expect(got[0].message).toContain('required pod anti-affinity term 0 (topologyKey kubernetes.io/hostname) selects other pods than its own {app: web}');
      expect(got[0].message).toContain('add topologySpreadConstraints with topologyKey kubernetes.io/hostname');
      expect(got[0].fix?.description).toBe('add a topologySpreadConstraint spreading StatefulSet/web over kubernetes.io/hostname (ScheduleAnyway)');
    }
  });
});

// Review report p33 item 2 (strimzi-ha): two leader-election replicas of the Strimzi cluster
// operator were in scope only through the 'assumed served' of its health port http/8080, which the
// catalog now knows (strimzi-operator-health): no traffic evidence, so not reported.
describe("replicas-not-spread: the Strimzi cluster operator's health port is no evidence of traffic", () => {
  const op = (port = '') => `apiVersion: v1
kind: ServiceAccount
metadata: {name: strimzi-cluster-operator, namespace: kafka}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: strimzi-cluster-operator, namespace: kafka}
spec:
  replicas: 2
  selector: {matchLabels: {name: strimzi-cluster-operator}}
  template:
    metadata: {labels: {name: strimzi-cluster-operator}}
    spec:
      containers:
        - name: strimzi-cluster-operator
          image: quay.io/strimzi/operator:0.47.0
          ports: [{containerPort: 8080, name: http}${port}]
          args: [/opt/strimzi/bin/cluster_operator_run.sh]
`;
  test('only the health port: not reported; another port: still reported', () => {
    expect(runRule(replicasNotSpread, op(), '1.31')).toEqual([]);
    expect(runRule(replicasNotSpread, op(', {containerPort: 9000, name: api}'), '1.31').map((f) => f.severity)).toEqual(['warning']);
  });
});

// Review round 33, report p44 (item A): Pyroscope's ring members, pull workers and raft metastore are
// exempt from prestop-missing (graph.ts peerDialed) but stay served for this rule: with the forced
// distributor.replication-factor=1, a node holding every ingester or segment-writer loses data in
// flight, and one holding the metastore's majority loses its quorum. (Exempting the whole workload
// silenced this warning for Hazelcast once, and was reverted.)
describe('replicas-not-spread: Pyroscope components exempt from prestop-missing are still judged', () => {
  const pyro = (target: string) => `apiVersion: v1
kind: Service
metadata: {name: pyro-${target}}
spec:
  selector: {app: pyro, component: ${target}}
  ports: [{name: http2, port: 4040, targetPort: http2}, {name: grpc, port: 9095, targetPort: grpc}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pyro-${target}}
spec:
  serviceName: pyro-${target}
  replicas: 3
  selector: {matchLabels: {app: pyro, component: ${target}}}
  template:
    metadata: {labels: {app: pyro, component: ${target}}}
    spec:
      containers:
      - name: ${target}
        image: grafana/pyroscope:2.2.1
        args: ["-target=${target}"]
        ports: [{name: http2, containerPort: 4040}, {name: grpc, containerPort: 9095}]
`;
  test('ingester, segment-writer, metastore, query-backend: the warning', () => {
    for (const target of ['ingester', 'segment-writer', 'metastore', 'query-backend']) {
      expect([target, runRule(replicasNotSpread, pyro(target), '1.31').map((f) => f.severity)]).toEqual([target, ['warning']]);
    }
  });
});

// Review round 33, report p45 item 2: pgadmin4's chart writes its topologySpreadConstraints value at spec.template, a sibling of
// spec.template.spec, where the API server drops it as an unknown field.
describe('a spreading key written above the pod spec is named as misplaced', () => {
  const atTemplate = (key: string) =>
    workload('').replace('    spec:\n', `${(key === 'tsc' ? tsc('kubernetes.io/hostname') : anti('preferred', 'kubernetes.io/hostname')).replace(/^ {2}/gm, '')}    spec:\n`);
  test('topologySpreadConstraints at spec.template: where it is, where it goes, pointed at it, no proposal', () => {
    const yaml = atTemplate('tsc');
    expect(yaml).toContain('    topologySpreadConstraints:\n    - {maxSkew: 1');
    const got = runRule(replicasNotSpread, yaml, '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].pointer).toBe('/spec/template/topologySpreadConstraints');
    expect(got[0].message).toContain(
      '(no hostname/zone topologySpreadConstraint or pod anti-affinity selecting its own pods in its pod spec; topologySpreadConstraints is written at /spec/template/topologySpreadConstraints, outside the pod spec (/spec/template/spec): the API server drops it as an unknown field, so it spreads nothing;',
    );
    expect(got[0].message).toContain('move topologySpreadConstraints from /spec/template/topologySpreadConstraints under spec.template.spec, where the API server keeps it');
    expect(got[0].message).not.toContain('add topologySpreadConstraints');
    expect(got[0].fix).toBeUndefined();
  });
  test('affinity with podAntiAffinity in the workload spec', () => {
    const yaml = workload('').replace('  selector:', `${anti('preferred', 'kubernetes.io/hostname').replace(/^ {4}/gm, '')}  selector:`);
    const got = runRule(replicasNotSpread, yaml, '1.31');
    expect(got).toHaveLength(1);
    expect(got[0].pointer).toBe('/spec/affinity');
    expect(got[0].message).toContain('affinity is written at /spec/affinity, outside the pod spec (/spec/template/spec)');
    expect(got[0].message).toContain('move affinity from /spec/affinity under spec.template.spec');
  });
  test('placed in the pod spec it counts: not reported', () => {
    expect(runRule(replicasNotSpread, workload(tsc('kubernetes.io/hostname')), '1.31')).toEqual([]);
  });
});
