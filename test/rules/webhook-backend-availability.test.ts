import { scopeOf, webhookBackendAvailability } from '../../lib/rules/webhook-backend-availability';
import { ruleTester, runRule } from '../helpers/rule-tester';

interface HookOpts {
  kind?: string;
  apiVersion?: string;
  /** Extra fields of the (first) webhook entry, flow-style lines at 2-space indent under the item. */
  fields?: string;
  failurePolicy?: string;
  clientConfig?: string;
  rules?: string;
  /** Extra webhook entries (full YAML list items). */
  more?: string;
}

function hook(o: HookOpts = {}): string {
  return `apiVersion: ${o.apiVersion ?? 'admissionregistration.k8s.io/v1'}
kind: ${o.kind ?? 'ValidatingWebhookConfiguration'}
metadata: {name: guard}
webhooks:
- name: guard.example.com
${o.failurePolicy ? `  failurePolicy: ${o.failurePolicy}\n` : ''}  clientConfig: ${o.clientConfig ?? '{service: {namespace: guard, name: guard-webhook, path: /validate}}'}
  rules: ${o.rules ?? '[{apiGroups: [networking.k8s.io], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [ingresses]}]'}
  sideEffects: None
  admissionReviewVersions: [v1]
${o.fields ?? ''}${o.more ?? ''}`;
}

interface BackendOpts {
  kind?: string;
  replicas?: number;
  strategy?: string;
  labels?: string;
  ns?: string | null;
  svcName?: string;
}

function backend(o: BackendOpts = {}): string {
  const ns = o.ns === null ? '' : `, namespace: ${o.ns ?? 'guard'}`;
  const labels = o.labels ?? '{app: guard}';
  const svc = `---
apiVersion: v1
kind: Service
metadata: {name: ${o.svcName ?? 'guard-webhook'}${ns}}
spec: {selector: {app: guard}, ports: [{port: 443, targetPort: 9443}]}
`;
  if (o.kind === 'Pod') {
    return `${svc}---
apiVersion: v1
kind: Pod
metadata: {name: guard${ns}, labels: ${labels}}
spec: {containers: [{name: hook, image: guard:1, ports: [{containerPort: 9443}]}]}
`;
  }
  return `${svc}---
apiVersion: apps/v1
kind: ${o.kind ?? 'Deployment'}
metadata: {name: guard${ns}}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}${o.strategy ? `  ${o.kind === 'DaemonSet' ? 'updateStrategy' : 'strategy'}: ${o.strategy}\n` : ''}  selector: {matchLabels: {app: guard}}
  template:
    metadata: {labels: ${labels}}
    spec: {containers: [{name: hook, image: guard:1, ports: [{containerPort: 9443}]}]}
`;
}

const pdb = (spec: string, ns = 'guard') => `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guard, namespace: ${ns}}
spec: {selector: {matchLabels: {app: guard}}, ${spec}}
`;

const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: guard, namespace: guard}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: guard}, minReplicas: ${min}, maxReplicas: 5}
`;

const apiService = (service = '{namespace: guard, name: guard-webhook, port: 443}', group = 'metrics.k8s.io') => `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.${group}}
spec:
  group: ${group}
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: ${service}
`;

/** A CustomResourceDefinition converted by a webhook (kserve's llmisvc CRDs, review round 30). */
const crd = (o: { conversion?: string; versions?: string } = {}) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: guards.guard.example.com}
spec:
  group: guard.example.com
  names: {kind: Guard, plural: guards, singular: guard}
  scope: Namespaced
  conversion: ${o.conversion ?? '{strategy: Webhook, webhook: {clientConfig: {service: {namespace: guard, name: guard-webhook, path: /convert}}, conversionReviewVersions: [v1]}}'}
  versions: ${o.versions ?? '[{name: v1alpha1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}, {name: v1alpha2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]'}
`;
const POD_RULES = '[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]';
/** kube-webhook-certgen's patch Job as the ingress-nginx and kubevela charts run it (a post-install hook). */
const patchJob = (args: string) => `---
apiVersion: batch/v1
kind: Job
metadata: {name: guard-admission-patch, namespace: guard, annotations: {helm.sh/hook: "post-install,post-upgrade"}}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers: [{name: patch, image: registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.5.2, args: ${args}}]
`;
const HA = pdb('maxUnavailable: 1');

/** A ClusterRole bound to the backend's ServiceAccount (default in namespace guard); RULES is its rules. */
const RBAC = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: guard}
rules: RULES
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: guard}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: guard}
subjects: [{kind: ServiceAccount, name: default, namespace: guard}]
`;


/**
 * Kyverno's admission controller as its chart renders it (kyverno/kyverno @111e07bb charts/kyverno): it
 * registers its webhooks itself at run time, calling the Service named by KYVERNO_SVC (review p26 item 4).
 */
const kyverno = (o: { replicas?: number; env?: string; args?: string; image?: string; svc?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: ${o.svc ?? 'kyverno-svc'}, namespace: kyverno}
spec: {selector: {app.kubernetes.io/component: admission-controller}, ports: [{name: https, port: 443, targetPort: https}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kyverno-admission-controller, namespace: kyverno}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 40%}}
  selector: {matchLabels: {app.kubernetes.io/component: admission-controller}}
  template:
    metadata: {labels: {app.kubernetes.io/component: admission-controller}}
    spec:
      containers:
        - name: kyverno
          image: ${o.image ?? 'reg.kyverno.io/kyverno/kyverno:v1.15.0'}
          args: ${o.args ?? '[--admissionReports=true, --forceFailurePolicyIgnore=false]'}
          env: ${o.env ?? '[{name: KYVERNO_SVC, value: kyverno-svc}]'}
          ports: [{containerPort: 9443, name: https}, {containerPort: 8000, name: metrics-port}]
`;
const kyvernoPdb = `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: kyverno-admission-controller, namespace: kyverno}
spec: {selector: {matchLabels: {app.kubernetes.io/component: admission-controller}}, maxUnavailable: 1}
`;
/** A webhook configuration of the input that calls kyverno-svc (as `kubectl get` dumps what Kyverno registered). */
const kyvernoHook = (policy: string) => `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: kyverno-resource-validating-webhook-cfg}
webhooks:
- name: validate.kyverno.svc-fail
  failurePolicy: ${policy}
  clientConfig: {service: {namespace: kyverno, name: kyverno-svc, path: /validate/fail}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`;

/**
 * The Datadog Cluster Agent as the DataDog/helm-charts chart renders it (charts/datadog 3.240.0, review round 35,
 * report p56 item 3): it registers MutatingWebhookConfiguration datadog-webhook itself, calling the Service of
 * DD_ADMISSION_CONTROLLER_SERVICE_NAME, failing closed only with DD_ADMISSION_CONTROLLER_FAILURE_POLICY Fail.
 */
const dca = (o: { replicas?: number; policy?: string; enabled?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: dd-datadog-cluster-agent-admission-controller, namespace: datadog}
spec:
  selector: {app: dd-datadog-cluster-agent}
  ports: [{port: 443, targetPort: 8000}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: dd-datadog-cluster-agent, namespace: datadog}
spec:
  replicas: ${o.replicas ?? 1}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  selector: {matchLabels: {app: dd-datadog-cluster-agent}}
  template:
    metadata: {labels: {app: dd-datadog-cluster-agent}}
    spec:
      containers:
        - name: cluster-agent
          image: registry.datadoghq.com/cluster-agent:7.81.1
          env:
            - {name: DD_ADMISSION_CONTROLLER_ENABLED, value: "${o.enabled ?? 'true'}"}
            - {name: DD_ADMISSION_CONTROLLER_MUTATION_ENABLED, value: "true"}
            - {name: DD_ADMISSION_CONTROLLER_SERVICE_NAME, value: dd-datadog-cluster-agent-admission-controller}
            - {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: "${o.policy ?? 'Fail'}"}
          ports: [{name: datadog-webhook, containerPort: 8000, protocol: TCP}]
`;
const dcaPdb = `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: dd-datadog-cluster-agent, namespace: datadog}
spec: {selector: {matchLabels: {app: dd-datadog-cluster-agent}}, minAvailable: 1}
`;

ruleTester(webhookBackendAvailability, {
  valid: [
    // Review round 16 (kubevela): the patch Job writes the chart's failurePolicy after install.
    { name: 'Fail in the manifest, patched to Ignore by a kube-webhook-certgen Job', yaml: hook({ failurePolicy: 'Fail' }) + backend() + patchJob('[patch, --webhook-name=guard, --namespace=guard, --patch-failure-policy=Ignore]') },
    { name: 'Ignore in the manifest, the patch Job patches only the mutating configuration (--patch-validating=false)', yaml: hook({ failurePolicy: 'Ignore' }) + backend() + patchJob('[patch, --webhook-name=guard, --patch-validating=false, --patch-failure-policy=Fail]') },
    { name: 'failurePolicy Ignore with a single replica', yaml: hook({ failurePolicy: 'Ignore' }) + backend({ replicas: 1 }) },
    { name: 'v1beta1 without failurePolicy defaults to Ignore', yaml: hook({ apiVersion: 'admissionregistration.k8s.io/v1beta1' }) + backend({ replicas: 1 }) },
    { name: 'clientConfig.url: the backend is outside the set', yaml: hook({ clientConfig: '{url: "https://guard.example.com/validate"}' }) + backend({ replicas: 1 }) },
    { name: 'the Service is not in the set', yaml: hook() },
    { name: 'the Service is in another namespace', yaml: hook() + backend({ replicas: 1, ns: 'other' }) },
    { name: 'the Service selects no pods in the set', yaml: hook() + backend({ replicas: 1, labels: '{app: other}' }) },
    { name: 'replicas 2 with a PDB maxUnavailable 1 and the default rollout', yaml: hook() + backend({ replicas: 2 }) + HA },
    { name: 'replicas 3 with a PDB minAvailable 1', yaml: hook() + backend({ replicas: 3 }) + pdb('minAvailable: 1') },
    { name: 'HPA minReplicas 2 with a PDB (spec.replicas 1 is overridden)', yaml: hook() + backend({ replicas: 1 }) + hpa(2) + HA },
    { name: 'a DaemonSet backend: skipped by drains, counted per node', yaml: hook() + backend({ kind: 'DaemonSet' }) },
    { name: 'rules that match nothing (no operations)', yaml: hook({ rules: '[{apiGroups: [""], apiVersions: [v1], operations: [], resources: [pods]}]' }) + backend({ replicas: 1 }) },
    { name: 'no rules at all', yaml: hook({ rules: '[]' }) + backend({ replicas: 1 }) },
    { name: 'backend scaled to 0', yaml: hook() + backend({ replicas: 0 }) },
    { name: 'sideEffects and timeoutSeconds do not matter: HA backend stays clean', yaml: hook({ fields: '  timeoutSeconds: 30\n' }) + backend({ replicas: 2 }) + HA },
    { name: 'APIService without a service (a built-in group)', yaml: apiService('null') + backend({ replicas: 1 }) },
    { name: 'CRD conversion webhook backed by replicas 2 with a PDB', yaml: crd() + backend({ replicas: 2 }) + HA },
    { name: 'CRD with strategy None', yaml: crd({ conversion: '{strategy: None}' }) + backend({ replicas: 1 }) },
    { name: 'CRD conversion webhook with a single version (nothing to convert)', yaml: crd({ versions: '[{name: v1, served: true, storage: true}]' }) + backend({ replicas: 1 }) },
    { name: 'CRD conversion webhook on an outside url', yaml: crd({ conversion: '{strategy: Webhook, webhook: {clientConfig: {url: "https://convert.example.com/convert"}, conversionReviewVersions: [v1]}}' }) + backend({ replicas: 1 }) },
    { name: 'APIService backed by replicas 2 with a PDB (metrics-server HA)', yaml: apiService() + backend({ replicas: 2 }) + pdb('minAvailable: 1') },
    { name: 'APIService whose Service is not in the set', yaml: apiService() },
    // Review p26 item 4: Kyverno registers its fail-closed webhooks at run time (catalog registers-webhooks).
    { name: 'Kyverno admission controller with 3 replicas and a PDB (the chart\'s HA values)', yaml: kyverno({ replicas: 3 }) + kyvernoPdb },
    { name: 'Kyverno with --forceFailurePolicyIgnore=true: every webhook fails open', yaml: kyverno({ args: '[--forceFailurePolicyIgnore=true]' }) },
    { name: 'Kyverno with --serverIP: its webhooks call a URL, not the Service', yaml: kyverno({ args: '[--serverIP=10.0.0.5]' }) },
    { name: 'Kyverno whose KYVERNO_SVC comes from a ConfigMap: the Service is unknown', yaml: kyverno({ env: '[{name: KYVERNO_SVC, valueFrom: {configMapKeyRef: {name: x, key: y}}}]' }) },
    { name: 'Kyverno whose KYVERNO_SVC names a Service not in the input', yaml: kyverno({ env: '[{name: KYVERNO_SVC, value: other-svc}]' }) },
    { name: 'the webhook configurations Kyverno registered are in the input (Ignore): judged as written, nothing synthesized', yaml: kyverno({ replicas: 1 }) + kyvernoHook('Ignore') },
    { name: 'the background controller (another image) registers no webhooks', yaml: kyverno({ image: 'reg.kyverno.io/kyverno/background-controller:v1.15.0' }) },
    // Review round 35, report p56 item 3: the Datadog Cluster Agent's webhooks fail closed only with Fail.
    { name: 'Datadog Cluster Agent, one replica, failure policy Ignore (the chart\'s default): pods are admitted unmutated', yaml: dca({ policy: 'Ignore' }) },
    { name: 'Datadog Cluster Agent, one replica, Fail, but the admission controller disabled', yaml: dca({ enabled: 'false' }) },
    { name: 'Datadog Cluster Agent with Fail, 2 replicas and a PDB (the chart\'s HA values)', yaml: dca({ replicas: 2 }) + dcaPdb },
    { name: 'a webhook on default/kubernetes whose group has no APIService in the set', yaml: hook({ failurePolicy: 'Fail', clientConfig: '{service: {namespace: default, name: kubernetes, path: /apis/other.example.com/v1/checks}}' }) + '---\n' + apiService(undefined, 'admission.example.com') },

  ],
  invalid: [
    {
      // Review p26 item 4: the chart's default values (admissionController.replicas: ~, no PDB).
      name: 'Kyverno admission controller, one replica: its runtime webhooks fail closed on kyverno-svc',
      yaml: kyverno(),
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/kyverno-admission-controller',
          pointer: '/spec/template/spec/containers/0/image',
          message:
            "container \"kyverno\" runs Kyverno's admission controller (catalog entry kyverno-admission-controller), which creates its admission webhook configurations itself at run time (so none is in the input), failing closed (failurePolicy Fail) and calling Service kyverno/kyverno-svc (named by env KYVERNO_SVC), backed by Deployment/kyverno-admission-controller replicas 1 (default): a single replica, so a node drain, an eviction or a node failure leaves no backend until a replacement is scheduled and Ready. While no backend is Ready the API server rejects every CREATE and UPDATE (and the other operations its rules name) of the resources matched by a Kyverno policy whose failurePolicy is Fail, Kyverno's default, in the namespaces its webhook namespaceSelector selects (the chart's default: all but kube-system and Kyverno's own), and every CREATE and UPDATE of Kyverno's policies themselves. Fix: run >= 2 replicas spread over nodes, with a PodDisruptionBudget (maxUnavailable: 1); or make the webhooks fail open (--forceFailurePolicyIgnore=true, chart value features.forceFailurePolicyIgnore.enabled) where admitting unchecked objects is acceptable",
        },
      ],
    },
    {
      // Review round 35, report p56 item 3 (repro/04-dca-runtime-webhook-fail.yaml, trimmed).
      name: 'Datadog Cluster Agent, one replica (the chart\'s default), failure policy Fail: its runtime webhook fails closed',
      yaml: dca(),
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/dd-datadog-cluster-agent',
          pointer: '/spec/template/spec/containers/0/image',
          message: /^container "cluster-agent" runs the Datadog Cluster Agent's admission controller \(catalog entry datadog-cluster-agent-admission-controller\), which creates its admission webhook configurations itself at run time \(so none is in the input\), failing closed \(failurePolicy Fail, as its env sets DD_ADMISSION_CONTROLLER_ENABLED=true and DD_ADMISSION_CONTROLLER_FAILURE_POLICY=Fail\) and calling Service datadog\/dd-datadog-cluster-agent-admission-controller \(named by env DD_ADMISSION_CONTROLLER_SERVICE_NAME\), backed by Deployment\/dd-datadog-cluster-agent replicas 1: a single replica.*the API server rejects the CREATE of every pod its mutating webhooks match.*make the webhooks fail open \(DD_ADMISSION_CONTROLLER_FAILURE_POLICY=Ignore, its default, chart value clusterAgent.admissionController.failurePolicy\)/,
        },
      ],
    },
    {
      name: 'Datadog Cluster Agent with Fail, 2 replicas and no PDB',
      yaml: dca({ replicas: 2 }),
      findings: [{ severity: 'warning', message: /replicas 2: no PodDisruptionBudget selects/ }],
    },
    {
      name: 'Kyverno with 3 replicas and no PDB; KYVERNO_SVC unset or empty is the program\'s default kyverno-svc',
      yaml: kyverno({ replicas: 3, env: '[{name: KYVERNO_SVC, value: ""}]' }),
      findings: [{ severity: 'warning', message: /calling Service kyverno\/kyverno-svc \(named by the program's default\), backed by Deployment\/kyverno-admission-controller replicas 3: no PodDisruptionBudget selects/ }],
    },
    {
      name: 'Kyverno whose KYVERNO_SVC names another Service of the input',
      yaml: kyverno({ env: '[{name: KYVERNO_SVC, value: kyv}]', svc: 'kyv' }),
      findings: [{ severity: 'warning', message: /calling Service kyverno\/kyv \(named by env KYVERNO_SVC\)/ }],
    },
    {
      // The configuration in the input is judged as written, once: no second finding on the Deployment.
      name: 'the webhook configuration Kyverno registered is in the input (Fail): judged as written, not twice',
      yaml: kyverno({ replicas: 1 }) + kyvernoHook('Fail'),
      findings: [{ severity: 'warning', object: 'ValidatingWebhookConfiguration/kyverno-resource-validating-webhook-cfg', message: /"validate.kyverno.svc-fail" \(failurePolicy: Fail\) calls Service kyverno\/kyverno-svc/ }],
    },
    {
      // Review rounds 13-17 (volcano, cluster-api-operator, kanister, approver-policy): only custom resources are rejected.
      name: "a webhook on custom resources only (an operator's own CRDs): info",
      yaml: hook({ rules: '[{apiGroups: [batch.volcano.sh], apiVersions: [v1alpha1], operations: [CREATE, UPDATE], resources: [jobs]}]' }) + backend(),
      findings: [{ severity: 'info', message: '; they match only custom resources (batch.volcano.sh), so this is an info: only writes of those fail while no backend is Ready: GitOps controllers and the operator\'s own reconcilers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again' }],
    },
    {
      // Review round 34, report p50 item 7 (tidb-operator v1.6.6: the StatefulSet webhook's objectSelector requires
      // app.kubernetes.io/managed-by: tidb-operator, the label its member managers put on the StatefulSets they create).
      name: "an objectSelector requiring managed-by to name the backend's program (its image guard:1): info",
      yaml: hook({ rules: '[{apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [statefulsets]}]', fields: '  objectSelector: {matchLabels: {app.kubernetes.io/managed-by: guard}}\n' }) + backend(),
      findings: [{ severity: 'info', message: 'UPDATE of statefulsets (apps) in the namespaces and for the objects its namespaceSelector/objectSelector match (not cluster-wide). Fix: run >= 2 replicas spread over nodes, with a PodDisruptionBudget (maxUnavailable: 1); or failurePolicy: Ignore where admitting unchecked objects is acceptable; its objectSelector matches only objects labelled app.kubernetes.io/managed-by=guard, which names the program behind this webhook: the objects it manages and writes itself, so this is an info' }],
    },
    {
      name: "an objectSelector requiring created-by In the backend's app.kubernetes.io/name: info",
      yaml:
        hook({ rules: '[{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [configmaps]}]', fields: '  objectSelector: {matchExpressions: [{key: app.kubernetes.io/created-by, operator: In, values: [guard-operator]}]}\n' }) +
        backend({ labels: '{app: guard, app.kubernetes.io/name: guard-operator}' }),
      findings: [{ severity: 'info', message: 'only objects labelled app.kubernetes.io/created-by=guard-operator, which names the program behind this webhook' }],
    },
    {
      name: 'an objectSelector on managed-by: Helm (every object of a Helm release): still a warning',
      yaml: hook({ rules: '[{apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [statefulsets]}]', fields: '  objectSelector: {matchLabels: {app.kubernetes.io/managed-by: Helm}}\n' }) + backend(),
      findings: [{ severity: 'warning', message: /^(?!.*so this is an info)/ }],
    },
    {
      name: "an objectSelector on managed-by naming another program than the backend's: still a warning",
      yaml: hook({ rules: '[{apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [statefulsets]}]', fields: '  objectSelector: {matchLabels: {app.kubernetes.io/managed-by: argocd}}\n' }) + backend(),
      findings: [{ severity: 'warning', message: /^(?!.*so this is an info)/ }],
    },
    {
      name: "an operator-only objectSelector on pod CREATE: still a warning (the pods' replacements would be refused)",
      yaml: hook({ rules: '[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]', fields: '  objectSelector: {matchLabels: {app.kubernetes.io/managed-by: guard}}\n' }) + backend(),
      findings: [{ severity: 'warning', message: /^(?!.*so this is an info)/ }],
    },
    {
      name: "cert-manager's webhook names every resource of its own groups: still custom resources only (info)",
      yaml: hook({ rules: '[{apiGroups: [cert-manager.io, acme.cert-manager.io], apiVersions: ["v1"], operations: [CREATE, UPDATE], resources: ["*/*"]}]' }) + backend(),
      findings: [{ severity: 'info', message: 'custom resources (cert-manager.io, acme.cert-manager.io)' }],
    },
    {
      name: 'Gateway API (gateway.networking.k8s.io) counts as built-in: warning',
      yaml: hook({ rules: '[{apiGroups: [gateway.networking.k8s.io], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [httproutes]}]' }) + backend(),
      findings: [{ severity: 'warning', message: 'httproutes (gateway.networking.k8s.io)' }],
    },
    {
      // Review p38 item 3: the Spark operator's CRDs are in sparkoperator.k8s.io, a *.k8s.io name of one project.
      name: 'a *.k8s.io group that kube-apiserver does not serve (sparkoperator.k8s.io) is custom: info',
      yaml: hook({ rules: '[{apiGroups: [sparkoperator.k8s.io], apiVersions: [v1beta2], operations: [CREATE, UPDATE], resources: [sparkapplications, scheduledsparkapplications]}]' }) + backend(),
      findings: [{ severity: 'info', message: 'custom resources (sparkoperator.k8s.io)' }],
    },
    {
      name: "the VPA's autoscaling.k8s.io is custom too; with a built-in group beside it the finding stays a warning",
      yaml: hook({ rules: '[{apiGroups: [autoscaling.k8s.io], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [verticalpodautoscalers]}, {apiGroups: [storage.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [storageclasses]}]' }) + backend(),
      findings: [{ severity: 'warning', message: 'verticalpodautoscalers (autoscaling.k8s.io)' }],
    },
    {
      name: 'volume snapshots (snapshot.storage.k8s.io) count as shared infrastructure: warning',
      yaml: hook({ rules: '[{apiGroups: [snapshot.storage.k8s.io], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [volumesnapshots]}]' }) + backend(),
      findings: [{ severity: 'warning', message: 'volumesnapshots (snapshot.storage.k8s.io)' }],
    },
    {
      name: 'custom resources and pods: warning',
      yaml: hook({ rules: '[{apiGroups: [batch.volcano.sh], apiVersions: [v1alpha1], operations: [CREATE], resources: [jobs]}, {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]' }) + backend(),
      findings: [{ severity: 'warning', message: 'CREATE of pods' }],
    },
    {
      // Review round 16 (kanister's operator: no leader election, one replica): two replicas would be two active controllers.
      name: 'one replica whose ServiceAccount has roles in the input granting no leases: the advice is conditional',
      yaml: hook() + backend() + RBAC.replace('RULES', '[{apiGroups: [cr.kanister.io], resources: [actionsets], verbs: ["*"]}]'),
      findings: [{ severity: 'warning', message: 'if it must run as one instance (the roles bound to its ServiceAccount, ClusterRole/guard, grant no leases for leader election), keep it' }],
    },
    {
      name: 'one replica whose roles grant leases (leader election): the plain advice',
      yaml: hook() + backend() + RBAC.replace('RULES', '[{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}]'),
      findings: [{ severity: 'warning', message: /Fix: run >= 2 replicas spread over nodes, with a PodDisruptionBudget \(maxUnavailable: 1\); or failurePolicy: Ignore/ }],
    },
    {
      // Review round 16 (kubevela's vela-core-admission: rendered Ignore, patched to Fail by its post-install hook Job).
      name: 'Ignore in the manifest, patched to Fail after install by a kube-webhook-certgen Job',
      yaml: hook({ failurePolicy: 'Ignore' }) + backend() + patchJob('[patch, --webhook-name=guard, --namespace=guard, --patch-mutating=false, --secret-name=guard, --patch-failure-policy=Fail]'),
      findings: [
        {
          severity: 'warning',
          pointer: '/webhooks/0/failurePolicy',
          message: /^webhook "guard\.example\.com" \(failurePolicy Fail, which Job\/guard-admission-patch \(kube-webhook-certgen patch --patch-failure-policy=Fail\) writes after install over the Ignore of the manifest\) calls Service guard\/guard-webhook.*; or failurePolicy: Ignore and --patch-failure-policy=Ignore in Job\/guard-admission-patch where admitting unchecked objects is acceptable$/,
        },
      ],
    },
    {
      name: 'a Helm test Pod labelled like the backend (opentelemetry-operator\'s wget tests) is no backend: the finding names the Deployment alone',
      yaml: `${hook()}---\n${backend({ replicas: 1 })}---
apiVersion: v1
kind: Pod
metadata: {name: guard-webhook-test, namespace: guard, labels: {app: guard}, annotations: {helm.sh/hook: test}}
spec: {restartPolicy: Never, containers: [{name: wget, image: busybox, command: [wget, guard-webhook:443]}]}
`,
      findings: [{ severity: 'warning', message: /backed by Deployment\/guard replicas 1: a single replica/ }],
    },
    {
      name: 'failurePolicy unset (v1 default Fail), single replica: pointed at the service',
      yaml: hook() + backend({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          object: 'ValidatingWebhookConfiguration/guard',
          pointer: '/webhooks/0/clientConfig/service',
          message:
            'webhook "guard.example.com" (failurePolicy Fail (the v1 default when unset)) calls Service guard/guard-webhook, backed by Deployment/guard replicas 1: a single replica, so a node drain, an eviction or a node failure leaves no backend until a replacement is scheduled and Ready. While no backend is Ready the API server rejects CREATE, UPDATE of ingresses (networking.k8s.io) cluster-wide.',
        },
      ],
    },
    {
      // Review round 26 (karmada): 19 webhooks call https://karmada-webhook.karmada-system.svc:443/...
      name: 'a clientConfig.url naming an in-cluster Service by its DNS name counts as that Service: pointed at the url',
      yaml: hook({ clientConfig: '{url: "https://guard-webhook.guard.svc:443/validate"}' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', pointer: '/webhooks/0/clientConfig/url', message: /^webhook "guard.example.com" \(failurePolicy Fail \(the v1 default when unset\)\) calls Service guard\/guard-webhook, backed by Deployment\/guard replicas 1: a single replica/ }],
    },
    {
      name: 'a url with .svc.cluster.local and no port is the same Service; a url outside the cluster, or naming another Service, is not judged',
      yaml:
        hook({ clientConfig: '{url: "https://guard-webhook.guard.svc.cluster.local/validate"}' }) +
        backend({ replicas: 1 }) +
        '---\n' +
        hook({ clientConfig: '{url: "https://hooks.example.com/validate"}' }).replace('name: guard}', 'name: guard-external}') +
        '---\n' +
        hook({ clientConfig: '{url: "https://other.guard.svc/validate"}' }).replace('name: guard}', 'name: guard-other}'),
      findings: [{ severity: 'warning', pointer: '/webhooks/0/clientConfig/url', object: 'ValidatingWebhookConfiguration/guard' }],
    },
    {
      name: 'failurePolicy: Fail written: pointed at it; default replicas 1',
      yaml: hook({ failurePolicy: 'Fail' }) + backend(),
      findings: [{ severity: 'warning', pointer: '/webhooks/0/failurePolicy', message: '(failurePolicy: Fail) calls Service guard/guard-webhook, backed by Deployment/guard replicas 1 (default): a single replica' }],
    },
    {
      name: 'replicas 2 and no PDB',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 2 }),
      findings: [{ severity: 'warning', message: 'backed by Deployment/guard replicas 2: no PodDisruptionBudget selects Deployment/guard, so a drain, a node-pool upgrade or autoscaler consolidation can evict all replicas at once' }],
    },
    {
      name: 'replicas 2, no PDB: the fix asks for the budget only (the replicas are there)',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 2 }),
      findings: [{ severity: 'warning', message: /\. Fix: add a PodDisruptionBudget \(maxUnavailable: 1\) selecting Deployment\/guard; or failurePolicy: Ignore / }],
    },
    {
      // Review round 33, report p40 item 2 (ESO webhook, chart PDB minAvailable 1 over 1 replica): the eviction API refuses the
      // eviction, so a drain stalls instead of emptying the backend; the loss comes from a node failure, a drain
      // forced past the budget or a direct deletion.
      name: 'a single replica whose PDB refuses every eviction: the reason names what still removes it',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 1 }) + pdb('minAvailable: 1'),
      findings: [
        {
          severity: 'warning',
          message:
            'backed by Deployment/guard replicas 1: a single replica, so a node failure, a forced drain or a direct pod deletion leaves no backend until a replacement is scheduled and Ready (voluntary evictions are refused by PodDisruptionBudget/guard, which stalls drains instead: see pdb-blocks-eviction). While',
        },
      ],
    },
    {
      name: 'a single replica whose PDB allows its eviction: a drain or an eviction removes it',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 1 }) + pdb('maxUnavailable: 1'),
      findings: [{ severity: 'warning', message: 'replicas 1: a single replica, so a node drain, an eviction or a node failure leaves no backend' }],
    },
    {
      name: 'a PDB that allows every eviction: the fix changes that budget',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 2 }) + pdb('maxUnavailable: 2'),
      findings: [{ severity: 'warning', message: /\. Fix: set the PodDisruptionBudget of Deployment\/guard to maxUnavailable: 1; or failurePolicy/ }],
    },
    {
      name: 'replicas 3 with a PDB but Recreate: the fix is the rollout only',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 3, strategy: '{type: Recreate}' }) + HA,
      findings: [{ severity: 'warning', message: /\. Fix: roll out with RollingUpdate keeping one available \(maxSurge: 1, maxUnavailable: 0\); or failurePolicy/ }],
    },
    {
      // (Review round 11: grafana/rollout-operator, one replica with maxSurge 0 and maxUnavailable 1, no leader election.)
      name: 'one replica with maxSurge written as 0: the singleton remedy too',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', message: /\. Fix: if the program can run twice at once .*; if it must run as one instance \(one replica with Recreate or maxSurge 0 says so\), keep it/ }],
    },
    {
      // (Review round 10: antrea-controller "supports only a single replica"; the Flink operator without leader election.)
      name: 'one replica with Recreate (how a singleton says so): the usual fix only if the program can run twice, and the singleton remedy beside it',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ strategy: '{type: Recreate}' }),
      findings: [
        {
          severity: 'warning',
          message:
            /\. Fix: if the program can run twice at once \(leader election, or no shared state\), run >= 2 replicas spread over nodes, with a PodDisruptionBudget \(maxUnavailable: 1\); and roll out with RollingUpdate keeping one available \(maxSurge: 1, maxUnavailable: 0\); if it must run as one instance \(one replica with Recreate or maxSurge 0 says so\), keep it, give it a high priorityClassName so that its replacement is scheduled first \(preempting others\), and accept the window; or failurePolicy: Ignore/,
        },
      ],
    },
    {
      name: 'a single replica whose rollout removes it: both fixes',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ strategy: '{rollingUpdate: {maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', message: /\. Fix: run >= 2 replicas spread over nodes, with a PodDisruptionBudget \(maxUnavailable: 1\); and a rollout that keeps one available \(maxUnavailable: 0\); or failurePolicy/ }],
    },
    {
      name: 'a PDB in another namespace does not count',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 2 }) + pdb('maxUnavailable: 1', 'other'),
      findings: [{ severity: 'warning', message: 'no PodDisruptionBudget selects Deployment/guard' }],
    },
    {
      name: 'a PDB that allows evicting every replica (maxUnavailable 2 of 2)',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 2 }) + pdb('maxUnavailable: 2'),
      findings: [{ severity: 'warning', message: 'the PodDisruptionBudget of Deployment/guard allows every replica to be evicted' }],
    },
    {
      name: 'a PDB with minAvailable 0',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 3 }) + pdb('minAvailable: 0'),
      findings: [{ severity: 'warning', message: 'allows every replica to be evicted' }],
    },
    {
      name: 'replicas 3 with a PDB but strategy Recreate',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 3, strategy: '{type: Recreate}' }) + HA,
      findings: [{ severity: 'warning', message: 'backed by Deployment/guard replicas 3: its strategy is Recreate, so every rollout removes all replicas before a new one starts' }],
    },
    {
      name: 'replicas 2 with a PDB but maxUnavailable 100%',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: "100%"}}' }) + HA,
      findings: [{ severity: 'warning', message: 'its rollout (maxUnavailable "100%", resolved 2 unavailable of 2) removes every replica before a replacement is Ready' }],
    },
    {
      name: 'single replica and a rollout that removes it: both reasons',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ strategy: '{rollingUpdate: {maxUnavailable: 1}}' }),
      findings: [{ severity: 'warning', message: /a single replica, .*; and its rollout \(maxUnavailable 1, resolved 1 unavailable of 1\)/ }],
    },
    {
      name: 'HPA minReplicas 1 overrides replicas 3',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 3 }) + hpa(1) + HA,
      findings: [{ severity: 'warning', message: /backed by Deployment\/guard HPA minReplicas 1 \(HorizontalPodAutoscaler\/guard\): a single replica.*\. Fix: set minReplicas: 2 on HorizontalPodAutoscaler\/guard, spread the replicas over nodes, with a PodDisruptionBudget \(maxUnavailable: 1\); or failurePolicy/ }],
    },
    {
      name: 'a bare Pod backend',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ kind: 'Pod' }),
      findings: [{ severity: 'warning', message: 'Pod/guard (a bare Pod: a drain deletes it and nothing recreates it)' }],
    },
    {
      name: 'a Service written without a namespace is found by name (applied with -n)',
      yaml: hook({ failurePolicy: 'Fail' }) + backend({ replicas: 1, ns: null }),
      findings: [{ severity: 'warning', message: 'calls Service guard/guard-webhook, backed by Deployment/guard replicas 1' }],
    },
    {
      name: 'pod CREATE webhook without selectors and a single replica: its own replacement cannot be admitted',
      yaml: hook({ kind: 'MutatingWebhookConfiguration', rules: POD_RULES }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /rejects CREATE of pods cluster-wide; its selectors also match the backend's own pods, .* deleting the MutatingWebhookConfiguration .*failurePolicy: Ignore where admitting unmutated objects/ }],
    },
    {
      // openkruise's kruise chart with createNamespace=false (review round 21): 2 replicas and a budget,
      // and mpod.kb.io still admits (or refuses) the manager's own pods.
      name: 'pod CREATE webhook matching its own pods, backed by 2 replicas with a budget: info, the deadlock once all are gone',
      yaml: hook({ kind: 'MutatingWebhookConfiguration', rules: POD_RULES }) + backend({ replicas: 2 }) + HA,
      findings: [{ severity: 'info', message: "intercepts pod creation, and its selectors match the pods of its own backend, Deployment/guard replicas 2: if every backend pod is gone at once (a zone or node failure, a cluster restart), no replacement can be admitted" }],
    },
    {
      name: 'pod CREATE webhook matching its own pods, 2 replicas and no budget: the warning says the deadlock too',
      yaml: hook({ kind: 'MutatingWebhookConfiguration', rules: POD_RULES }) + backend({ replicas: 2 }),
      findings: [{ severity: 'warning', message: "its selectors also match the backend's own pods, so once no backend runs its replacement cannot be created either" }],
    },
    {
      name: 'objectSelector excluding its own pods: no self-deadlock, still blocks everything else it selects',
      yaml: hook({ rules: POD_RULES, fields: '  objectSelector: {matchExpressions: [{key: app, operator: NotIn, values: [guard]}]}\n' }) + backend({ replicas: 1 }),
      // (An opt-out objectSelector still rejects cluster-wide but for the objects it names: review p36, consul.)
      findings: [{ severity: 'warning', message: /rejects CREATE of pods cluster-wide except for objects labelled app=guard \(its objectSelector only opts those out\)\. Fix/ }],
    },
    {
      // Review p36 item 2: consul's connect injector opts out namespaces and its own pods.
      name: 'opt-out namespaceSelector and objectSelector: cluster-wide except for both',
      yaml:
        hook({
          rules: POD_RULES,
          fields:
            '  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, openebs]}, {key: openshift.io/cluster-monitoring, operator: DoesNotExist}]}\n  objectSelector: {matchExpressions: [{key: app, operator: NotIn, values: [guard]}]}\n',
        }) + backend({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          message:
            /rejects CREATE of pods cluster-wide except for namespaced objects in namespace kube-system or openebs or namespaces labelled openshift.io\/cluster-monitoring and for objects labelled app=guard \(its selectors only opt those out\)\. Fix/,
        },
      ],
    },
    {
      name: 'an opt-in objectSelector (In) is not cluster-wide',
      yaml: hook({ rules: POD_RULES, fields: '  objectSelector: {matchExpressions: [{key: inject, operator: In, values: ["true"]}]}\n' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /rejects CREATE of pods in the namespaces and for the objects its namespaceSelector\/objectSelector match \(not cluster-wide\)\. Fix/ }],
    },
    {
      name: 'namespaceSelector excluding its own namespace by name: no self-deadlock',
      yaml: hook({ rules: POD_RULES, fields: '  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [guard]}]}\n' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /rejects CREATE of pods cluster-wide except for namespaced objects in namespace guard \(its namespaceSelector only opts those out\)\. Fix/ }],
    },
    {
      name: 'namespaceSelector on a label of a Namespace not in the set: self-deadlock not claimed',
      yaml: hook({ rules: POD_RULES, fields: '  namespaceSelector: {matchExpressions: [{key: webhooks, operator: NotIn, values: [disabled]}]}\n' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /cluster-wide except for namespaced objects in namespaces labelled webhooks=disabled \(its namespaceSelector only opts those out\)\. Fix/ }],
    },
    {
      // cert-manager's webhook: an opt-out label; ClusterIssuers (cluster-scoped) are never exempt.
      name: 'an opt-out namespaceSelector (NotIn, DoesNotExist): cluster-wide but for the namespaces that opted out',
      yaml: hook({ rules: POD_RULES, fields: '  namespaceSelector: {matchExpressions: [{key: cert-manager.io/disable-validation, operator: NotIn, values: ["true"]}, {key: control-plane, operator: DoesNotExist}]}\n' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /cluster-wide except for namespaced objects in namespaces labelled cert-manager.io\/disable-validation=true or namespaces labelled control-plane \(its namespaceSelector only opts those out\)/ }],
    },
    {
      name: 'an opt-in namespaceSelector: only the namespaces it matches, and every cluster-scoped object',
      yaml: hook({ rules: POD_RULES, fields: '  namespaceSelector: {matchLabels: {webhooks: on}}\n' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /in the namespaces and for the objects its namespaceSelector\/objectSelector match \(not cluster-wide; a namespaceSelector never exempts cluster-scoped objects\)\. Fix/ }],
    },
    {
      name: 'two webhooks on one Service of different reach: the resources of each with its own reach (one without selectors rejects its resources everywhere)',
      yaml:
        hook({
          rules: POD_RULES,
          fields: '  namespaceSelector: {matchExpressions: [{key: example.com/skip, operator: DoesNotExist}]}\n',
          more: `- name: second.example.com
  clientConfig: {service: {namespace: guard, name: guard-webhook}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`,
        }) + backend({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          message: /rejects CREATE of pods cluster-wide except for namespaced objects in namespaces labelled example\.com\/skip \(its namespaceSelector only opts those out\), and CREATE of configmaps cluster-wide\. Fix/,
        },
      ],
    },
    {
      // Kuma's namespace-kuma-injector (namespaceSelector only) and pods-kuma-injector (an objectSelector
      // too), review p29: the pod clause was repeated once per webhook, differing only in the note.
      name: 'two pod webhooks whose reaches differ only in the note on cluster-scoped objects: one clause, with the note',
      yaml:
        hook({
          kind: 'MutatingWebhookConfiguration',
          rules: POD_RULES,
          fields: '  namespaceSelector: {matchLabels: {webhooks: on}}\n',
          more: `- name: second.example.com
  clientConfig: {service: {namespace: guard, name: guard-webhook}}
  rules: ${POD_RULES}
  namespaceSelector: {matchLabels: {webhooks: on}}
  objectSelector: {matchLabels: {inject: "yes"}}
  sideEffects: None
  admissionReviewVersions: [v1]
`,
        }) + backend({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          message: /rejects CREATE of pods in the namespaces and for the objects its namespaceSelector\/objectSelector match \(not cluster-wide; a namespaceSelector never exempts cluster-scoped objects\)\. Fix/,
        },
      ],
    },
    {
      name: 'an empty namespaceSelector selects every namespace: cluster-wide',
      yaml: hook({ rules: POD_RULES, fields: '  namespaceSelector: {}\n  objectSelector: {matchLabels: {}}\n' }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /rejects CREATE of pods cluster-wide/ }],
    },
    {
      name: 'namespaceSelector judged against the Namespace in the set',
      yaml:
        hook({ rules: POD_RULES, fields: '  namespaceSelector: {matchExpressions: [{key: webhooks, operator: NotIn, values: [off]}]}\n' }) +
        backend({ replicas: 1 }) +
        '---\napiVersion: v1\nkind: Namespace\nmetadata: {name: guard, labels: {team: a}}\n',
      findings: [{ severity: 'warning', message: "its selectors also match the backend's own pods" }],
    },
    {
      name: 'several webhooks calling the same Service: one finding listing them, scopes merged',
      yaml:
        hook({
          failurePolicy: 'Fail',
          more: `- name: second.example.com
  failurePolicy: Fail
  clientConfig: {service: {namespace: guard, name: guard-webhook}}
  rules: [{apiGroups: [networking.k8s.io], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [ingressclasses]}]
  sideEffects: None
  admissionReviewVersions: [v1]
- name: ignored.example.com
  failurePolicy: Ignore
  clientConfig: {service: {namespace: guard, name: guard-webhook}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`,
        }) + backend({ replicas: 1 }),
      findings: [{ severity: 'warning', message: /^webhooks "guard\.example\.com", "second\.example\.com" \(failurePolicy: Fail\) call Service .* rejects CREATE, UPDATE of ingresses, ingressclasses \(networking\.k8s\.io\) cluster-wide/ }],
    },
    {
      name: 'APIService metrics.k8s.io backed by a single replica (metrics-server default)',
      yaml: apiService() + backend({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          object: 'APIService/v1beta1.metrics.k8s.io',
          pointer: '/spec/service',
          message: /^APIService v1beta1\.metrics\.k8s\.io is served by Service guard\/guard-webhook, backed by Deployment\/guard replicas 1: a single replica.*aggregated API metrics\.k8s\.io\/v1beta1 is Unavailable: API discovery for the group fails .*kubectl top fails/,
        },
      ],
    },
    {
      // (Review round 11: tidb-operator 1.6's admission webhook, openshift/generic-admission-server.)
      name: 'a webhook that calls the API server itself (default/kubernetes, /apis/GROUP/VERSION/...): judged by the APIService\'s backend',
      yaml:
        hook({ failurePolicy: 'Fail', clientConfig: '{service: {namespace: default, name: kubernetes, path: /apis/admission.example.com/v1beta1/checks}}' }) +
        '---\n' +
        apiService(undefined, 'admission.example.com') +
        '---\n' +
        backend({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          object: 'ValidatingWebhookConfiguration/guard',
          message: /^webhook "guard\.example\.com" \(failurePolicy: Fail\) calls the API server, whose aggregator forwards the call \(APIService v1beta1\.admission\.example\.com\) to Service guard\/guard-webhook, backed by Deployment\/guard replicas 1: a single replica/,
        },
        { severity: 'warning', object: 'APIService/v1beta1.admission.example.com' },
      ],
    },
    {
      // Review round 30 (report p23 item 4): kserve's llmisvc CRDs convert v1alpha1 <-> v1alpha2 through the
      // one-replica llmisvc-controller-manager; a conversion webhook has no failurePolicy.
      name: 'CRD conversion webhook backed by a single replica: info, like a fail-closed webhook on custom resources only',
      yaml: crd() + backend({ replicas: 1 }),
      findings: [
        {
          severity: 'info',
          object: 'CustomResourceDefinition/guards.guard.example.com',
          pointer: '/spec/conversion/webhook/clientConfig/service',
          message:
            'the conversion webhook of CustomResourceDefinition guards.guard.example.com (no failurePolicy: a conversion webhook always fails closed) calls Service guard/guard-webhook, backed by Deployment/guard replicas 1: a single replica, so a node drain, an eviction or a node failure leaves no backend until a replacement is scheduled and Ready. While no backend is Ready the API server fails every read and write of guards (guard.example.com) that needs a conversion: requests in a served version other than the stored one (served v1alpha1, v1alpha2, stored as v1alpha2), and any request for objects still stored in an older version (written before the storage version changed), lists and watches included. Fix: run >= 2 replicas spread over nodes, with a PodDisruptionBudget (maxUnavailable: 1); it converts only custom resources (guard.example.com), so this is an info: only requests for those fail while no backend is Ready: GitOps controllers and the operator\'s own reconcilers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again',
        },
      ],
    },
    {
      name: 'CRD conversion webhook by a cluster DNS url (apiextensions v1beta1 webhookClientConfig), 2 replicas without a PDB',
      yaml: crd({ conversion: '{strategy: Webhook, webhookClientConfig: {url: "https://guard-webhook.guard.svc:443/convert"}}' }).replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1') + backend({ replicas: 2 }),
      findings: [{ severity: 'info', pointer: '/spec/conversion/webhookClientConfig/url', message: /backed by Deployment\/guard replicas 2: no PodDisruptionBudget selects Deployment\/guard/ }],
    },
    {
      name: 'APIService of another group, replicas 2 without a PDB',
      yaml: apiService(undefined, 'custom.metrics.k8s.io') + backend({ replicas: 2 }),
      findings: [{ severity: 'warning', message: /no PodDisruptionBudget selects Deployment\/guard.*HorizontalPodAutoscalers on custom metrics stop scaling/ }],
    },
  ],
});

// Review round 35, report p54 item 4: tektoncd/triggers config/webhook.yaml, webhook-service.yaml and
// 500-webhooks.yaml, trimmed: knative.dev/pkg writes the webhooks' rules at run time.
describe('webhooks with no rules whose program writes them at run time (catalog writesWebhookRules)', () => {
  const triggers = (o: { image?: string; replicas?: number; pdb?: boolean; rules?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: tekton-triggers-webhook, namespace: tekton-pipelines}
spec:
  replicas: ${o.replicas ?? 1}
  selector: {matchLabels: {app.kubernetes.io/name: webhook}}
  template:
    metadata: {labels: {app.kubernetes.io/name: webhook}}
    spec:
      containers:
      - name: webhook
        image: ${o.image ?? 'ghcr.io/tektoncd/triggers/webhook-dd1edc925ee1772a9f76e2c1bc291ef6:v0.36.0'}
        ports: [{name: https-webhook, containerPort: 8443}]
---
apiVersion: v1
kind: Service
metadata: {name: tekton-triggers-webhook, namespace: tekton-pipelines}
spec:
  selector: {app.kubernetes.io/name: webhook}
  ports: [{name: https-webhook, port: 443, targetPort: 8443}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validation.webhook.triggers.tekton.dev}
webhooks:
- admissionReviewVersions: [v1]
  clientConfig: {service: {name: tekton-triggers-webhook, namespace: tekton-pipelines}}
  failurePolicy: Fail
  sideEffects: None
  name: validation.webhook.triggers.tekton.dev
${o.rules ? `  rules: ${o.rules}\n` : ''}${o.pdb ? `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: tekton-triggers-webhook, namespace: tekton-pipelines}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app.kubernetes.io/name: webhook}}
` : ''}`;
  test('one replica of Tekton Triggers\' webhook: info, naming the scope written at run time', () => {
    const got = runRule(webhookBackendAvailability, triggers());
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['info', '/webhooks/0/failurePolicy']]);
    expect(got[0].message).toContain(
      '"validation.webhook.triggers.tekton.dev" (failurePolicy: Fail) calls Service tekton-pipelines/tekton-triggers-webhook, backed by Deployment/tekton-triggers-webhook replicas 1: a single replica',
    );
    expect(got[0].message).toContain("Its rules are not in the manifest: Tekton Triggers webhook (knative.dev/pkg webhook drainer; catalog entry tekton-triggers-webhook) writes them at run time, so while no backend is Ready the API server rejects every CREATE and UPDATE of Tekton Triggers' resources");
  });
  test.each([
    ['two replicas and a PDB', triggers({ replicas: 2, pdb: true })],
    ['an image the catalog does not know: rules that match nothing stay unjudged', triggers({ image: 'example.com/acme/webhook:v1' })],
    ['written rules that match nothing (no operations): not the run-time case', triggers({ rules: '[{apiGroups: [x.example.com], apiVersions: [v1], operations: [], resources: [things]}]' })],
  ])('no finding: %s', (_name, yaml) => expect(runRule(webhookBackendAvailability, yaml)).toEqual([]));
  test('rules: [] counts as none', () => {
    expect(runRule(webhookBackendAvailability, triggers({ rules: '[]' })).map((f) => f.severity)).toEqual(['info']);
  });
});

describe('scopeOf', () => {
  test('merges rules with the same operations and groups, names every operation and resource wildcard', () => {
    expect(
      scopeOf([
        { apiGroups: ['cert-manager.io'], operations: ['CREATE', 'UPDATE'], resources: ['*/*'] },
        { apiGroups: ['*'], operations: ['*'], resources: ['*'] },
      ]),
    ).toEqual({ text: 'CREATE, UPDATE of every resource (cert-manager.io); every operation of every resource (any API group)', createsPods: true });
  });
  test('pods of the core group under CREATE are pod creation; UPDATE only is not', () => {
    expect(scopeOf([{ apiGroups: [''], operations: ['UPDATE'], resources: ['pods'] }])).toEqual({ text: 'UPDATE of pods', createsPods: false });
    expect(scopeOf([{ apiGroups: ['apps'], operations: ['CREATE'], resources: ['pods'] }])?.createsPods).toBe(false);
  });
  test('no usable rules', () => {
    expect(scopeOf(undefined)).toBeUndefined();
    expect(scopeOf([{ apiGroups: [''], operations: ['CREATE'], resources: [] }])).toBeUndefined();
  });
});
