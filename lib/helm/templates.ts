/**
 * The templates of a generated chart: one file per object (the synthesized object with its knobs
 * replaced by values), `_helpers.tpl` (names, labels, image, preStop seconds), `_guards.tpl` (the
 * checks that make `helm template` / `helm install` fail on unsafe values) and NOTES.txt.
 *
 * The guards mirror the linter: grace-period-budget (lib/rules/grace-period-budget.ts, with the
 * addends of lib/timeline/addends.ts), progress-deadline, pdb-blocks-eviction (percentages rounded
 * up as the disruption controller does) and linkerd-proxy-drain, and the API's own validation of
 * rolling updates.
 */
import { HINT, scaleTargetKindIs } from '../model/graph';
import { isClusterScoped } from '../model/parse';
import { isObject, Json, JsonObject, KObject } from '../model/types';
import { DEFAULTS, get } from '../model/workload';
import { DEFAULT_DRAIN_SECONDS, GRACE_MARGIN_SECONDS, MINIMUM_GRACE_AFTER_HOOK } from '../timeline/budget';
import { LINKERD, ISTIO } from '../timeline/mesh';
import { DEFAULT_PRESTOP_SECONDS } from '../timeline/prestop';
import { AWS_LBC } from '../constructs/load-balancer';
import { ChartAnalysis, DEREGISTRATION, deregistrationAnnotations, PreStopTarget, rolloutGuarded, WorkloadPlan } from './analyze';
import { block, cloneT, emitDocument, entryAt, entryOf, escapeTemplate, expr, goString, isTMap, isTSeq, nodeAt, setAt, TEntry, TExpr, TMap, TNode, toT, TSeq } from './emit';
import { Labels, matches, parseLabelSelector, parseMapSelector } from '../model/selector';
import type { NamespaceCollision } from './refusals';

/** A namespace as a shell word, for commands in messages. */
export function shellWord(s: string): string {
  return /^[a-z0-9.-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Labels Helm charts conventionally add to metadata.labels. Of them only the instance label goes into selectors. */
export const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/name', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/instance', 'app.kubernetes.io/version'];

/**
 * The label that keeps two releases' pods apart: added to every pod template and to every selector that
 * selects the chart's pods. Its value is the release name, fixed for the life of a release, so selectors
 * (immutable) are the same on every upgrade; nothing that changes between upgrades (chart or app
 * version, nameOverride, values) ever enters a selector.
 */
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';

/** Go template condition: the cluster (or --kube-version) is at least X.Y. */
export function kubeAtLeast(major: number, minor: number): string {
  return `semverCompare ${goString(`>=${major}.${minor}-0`)} $.Capabilities.KubeVersion.Version`;
}

/** Text from manifests inside a Go template comment: no comment end, no template delimiters, one line. */
export function commentText(s: string): string {
  return s.replace(/\*\//g, '* /').replace(/\{\{/g, '{ {').replace(/\}\}/g, '} }').replace(/[\r\n]+/g, ' ');
}

/** Text from manifests inside a printf format: `%` doubled. */
export function pct(s: string): string {
  return s.replace(/%/g, '%%');
}

/** The rule ID each acknowledge key suppresses on the rendered workload. */
export const ACKNOWLEDGED_RULES: Record<string, string[]> = {
  gracePeriodBudget: ['grace-period-budget'],
  preStopMissing: ['prestop-missing'],
  rolloutOutage: ['rollout-full-outage', 'recreate-strategy'],
  pdbBlocksEviction: ['pdb-blocks-eviction'],
  meshDrain: ['linkerd-proxy-drain'],
  namespaceWithoutReadinessGate: ['lb-readiness-gate'],
};

export interface TemplateFile {
  path: string;
  text: string;
}

type Path = (string | number)[];

const POD_SPEC: Record<string, Path> = {
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
  Pod: ['spec'],
};

/** unhealthyPodEvictionPolicy only on Kubernetes >= 1.27 (beta, on by default). */
function adaptPdb(root: TMap): void {
  const e = entryAt(root, ['spec', 'unhealthyPodEvictionPolicy']);
  if (e) e.when = e.when ? `and (${kubeAtLeast(1, 27)}) (${e.when})` : kubeAtLeast(1, 27);
}

/** The value at a path of strings (map keys) and numbers (list indexes). */
function getPath(v: Json | undefined, path: Path): Json | undefined {
  let cur = v;
  for (const seg of path) {
    if (typeof seg === 'number') cur = Array.isArray(cur) ? cur[seg] : undefined;
    else cur = isObject(cur) ? cur[seg] : undefined;
  }
  return cur;
}

/** A sleep handler as `sleep` on >= 1.30, else `exec: [sleep, N]` (images without a shell still have no `sleep` binary: see NOTES). */
function adaptSleep(handler: TMap): void {
  const e = entryOf(handler, 'sleep');
  if (!e || !isTMap(e.value)) return;
  const seconds = entryOf(e.value, 'seconds')?.value;
  let text: TNode;
  if (typeof seconds === 'number') text = String(seconds);
  else if (seconds instanceof TExpr && /^\{\{ (.*) \}\}$/.test(seconds.text)) text = expr(`{{ ${/^\{\{ (.*) \}\}$/.exec(seconds.text)![1]} | toString | toJson }}`);
  else return;
  const when = kubeAtLeast(1, 30);
  e.when = e.when ? `and (${e.when}) (${when})` : when;
  handler.entries.push({ key: 'exec', value: new TMap([{ key: 'command', value: new TSeq([{ value: 'sleep' }, { value: text }]) }]), when: `not (${when})` });
}

/** printf format text for Go: the literal parts with `%` doubled. */
function fmt(before: string, after: string): string {
  return goString(`${before.replace(/%/g, '%%')}%d${after.replace(/%/g, '%%')}`);
}

/**
 * prometheus-operator's resources keep their name: the operator labels their pods with it
 * (`app.kubernetes.io/instance`, `alertmanager`, `prometheus`, `operator.prometheus.io/name`,
 * `thanos-ruler`: rules/rollout-util operatorWorkload) over spec.podMetadata.labels, so the
 * manifests' own Services and PodDisruptionBudgets select that name, and a prefixed name would leave
 * them selecting no pod (kube-prometheus's alertmanager-main Service and PDB: `app.kubernetes.io/instance: main`).
 * Names are per namespace, so releases in two namespaces still do not collide; a second release
 * in the same namespace is refused by Helm (the object belongs to the first).
 */
const OPERATOR_NAMED_KINDS = new Set(['Prometheus', 'PrometheusAgent', 'Alertmanager', 'ThanosRuler']);

function keepsItsName(raw: JsonObject): boolean {
  return typeof raw.apiVersion === 'string' && raw.apiVersion.startsWith('monitoring.coreos.com/') && typeof raw.kind === 'string' && OPERATOR_NAMED_KINDS.has(raw.kind);
}

export class ChartTemplates {
  /** kind/namespace/name of every object in the chart -> its short name (after the fullname). */
  private readonly names = new Map<string, string>();
  /** Pod template labels of the chart's workloads: a selector matching one gets the instance label. */
  private readonly podLabels: Labels[];

  /** Uids of the objects that carry the release-namespace guard (refusals.ts releaseNamespaceCollisions). */
  private readonly nsGuarded = new Set<string>();

  constructor(
    private readonly chart: string,
    private readonly a: ChartAnalysis,
    private readonly collisions: NamespaceCollision[] = [],
  ) {
    for (const c of collisions) for (const o of c.objects) for (const x of [o.kept, ...o.released]) this.nsGuarded.add(x.uid);
    for (const o of a.objects) if (o.kind !== 'Namespace' && !keepsItsName(o.raw)) this.names.set(this.nameKey(o.kind, o.namespace, o.name), a.shortNames.get(o.uid) ?? o.name);
    this.podLabels = a.graph.workloads.map((w) => w.templateLabels);
  }

  /** Whether a selector (LabelSelector, or a Service's map when `map`) selects pods of the chart. */
  private selectsChartPods(sel: Json | undefined, map = false): boolean {
    if (!isObject(sel) || Object.keys(sel).length === 0) return false;
    const s = map ? parseMapSelector(sel) : parseLabelSelector(sel);
    return this.podLabels.some((l) => matches(s, l));
  }

  /** Adds the instance label to a selector at `path` (a LabelSelector, or a map when `map`) if it selects the chart's pods. */
  private instanceSelector(root: TMap, raw: JsonObject, path: Path, map = false): void {
    const sel = getPath(raw, path);
    if (!this.selectsChartPods(sel, map) || !isTMap(nodeAt(root, path))) return;
    const target: Path = map ? path : [...path, 'matchLabels'];
    const own = getPath(raw, target);
    if (isObject(own) && own[INSTANCE_LABEL] !== undefined) return;
    if (isTMap(nodeAt(root, target))) setAt(root, [...target, INSTANCE_LABEL], this.releaseName());
    else setAt(root, target, new TMap([{ key: INSTANCE_LABEL, value: this.releaseName() }]));
  }

  private releaseName(): TNode {
    return expr('{{ $.Release.Name | toJson }}');
  }

  /** The namespace an object goes to: the release namespace for the primary one (or none given), else as written. */
  private namespaceNode(raw: JsonObject, kind: string): TNode | undefined {
    if (isClusterScoped(kind)) return undefined;
    const ns = get(raw, 'metadata', 'namespace');
    if (typeof ns !== 'string' || ns === '' || ns === this.a.primaryNamespace) return expr('{{ $.Release.Namespace | toJson }}');
    return ns;
  }

  private nameKey(kind: string, ns: string | undefined, name: string): string {
    return `${kind}/${isClusterScoped(kind) ? '' : (ns ?? 'default')}/${name}`;
  }

  private tpl(name: string): string {
    return goString(`${this.chart}.${name}`);
  }

  /** The template expression of an object name: `<fullname>-<short>`, or the fullname when short is the chart name. */
  private nameExpr(short: string): TNode {
    return expr(`{{ include ${this.tpl('objectName')} (list $ ${goString(short)}) | toJson }}`);
  }

  private preStopExpr(plan: WorkloadPlan): string {
    return `(include ${this.tpl(`preStopSeconds.${plan.key}`)} $ | int)`;
  }

  private drainExpr(plan: WorkloadPlan): string {
    return plan.drain.knob ? '(int $w.drainSeconds)' : String(Math.ceil(plan.drain.constant));
  }

  // -------------------------------------------------------------------------------------------
  // Objects

  /** Every object of the manifests as a template file, plus the PDBs the chart may add. */
  objectFiles(): TemplateFile[] {
    const files: TemplateFile[] = [];
    const used = new Set<string>();
    const fileName = (kind: string, name: string, ns: string | undefined) => {
      const clean = (s: string) => s.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
      let f = `${clean(kind)}-${clean(name)}`;
      if (used.has(f) && ns) f = `${f}-${clean(ns)}`;
      const root = f;
      for (let n = 2; used.has(f); n++) f = `${root}-${n}`;
      used.add(f);
      return `templates/${f}.yaml`;
    };
    for (const o of this.a.objects) {
      files.push({ path: fileName(o.kind, o.name, o.namespace), text: this.objectTemplate(o) });
    }
    for (const plan of this.a.workloads) {
      if (plan.pdb && !plan.pdb.obj) {
        const name = plan.pdb.generatedName!;
        files.push({ path: fileName('PodDisruptionBudget', name, plan.namespace), text: this.generatedPdb(plan, name) });
      }
    }
    return files;
  }

  private objectTemplate(o: KObject): string {
    const root = toT(JSON.parse(JSON.stringify(o.raw)) as Json) as TMap;
    const header: string[] = [];
    let footer: string[] = [];
    this.applyMetadata(root, o.raw, o.kind, this.a.shortNames.get(o.uid));
    this.applyReferences(root, o);
    if (this.nsGuarded.has(o.uid)) header.push(`{{- include ${this.tpl('guards.release-namespace')} $ }}`);
    if (o.kind === 'Namespace') {
      header.push('{{- if .Values.namespace.create }}');
      footer = ['{{- end }}'];
    }
    const plan = this.a.byObject.get(o.uid);
    if (plan) {
      header.push(this.bind(plan), `{{- include ${this.tpl(`guards.${plan.key}`)} $ }}`, ...this.ignoreHeader(plan));
      this.applyWorkload(root, plan);
      this.applyClassicFallback(root, plan);
    }
    this.applySelectors(root, o);
    const ps = POD_SPEC[o.kind];
    if (ps) this.adaptPodSpec(root, ps);
    const pdbPlan = this.a.pdbOwner.get(o.uid);
    if (pdbPlan) {
      header.push(this.bind(pdbPlan), '{{- if $w.pdb.enabled }}');
      footer = ['{{- end }}'];
      this.applyPdb(root, o.raw, pdbPlan.key);
    }
    if (o.kind === 'PodDisruptionBudget') adaptPdb(root);
    const hpaPlan = this.a.hpaOwner.get(o.uid);
    if (hpaPlan) {
      header.push(this.bind(hpaPlan));
      this.applyHpa(root, hpaPlan);
    }
    const lbPlan = this.a.lbService.get(o.uid);
    if (lbPlan) {
      if (lbPlan !== hpaPlan && lbPlan !== pdbPlan) header.push(this.bind(lbPlan));
      this.applyLoadBalancer(root, o.raw, lbPlan);
    }
    return [...header, emitDocument(root).replace(/\n$/, ''), ...footer].join('\n') + '\n';
  }

  /** The instance label in every selector that selects the chart's pods, and in the pod templates. */
  private applySelectors(root: TMap, o: KObject): void {
    const raw = o.raw;
    if (o.kind === 'Service') this.instanceSelector(root, raw, ['spec', 'selector'], true);
    if (o.kind === 'PodDisruptionBudget') this.instanceSelector(root, raw, ['spec', 'selector']);
    if (o.kind === 'NetworkPolicy') this.instanceSelector(root, raw, ['spec', 'podSelector']);
    const ps = POD_SPEC[o.kind];
    if (!ps) return;
    if (o.kind !== 'Pod' && o.kind !== 'CronJob' && o.kind !== 'Job') this.instanceSelector(root, raw, ['spec', 'selector']);
    const tpl = ps.slice(0, -1);
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'].includes(o.kind) && isObject(get(raw, ...tpl.map(String)))) {
      const labels = get(raw, ...tpl.map(String), 'metadata', 'labels');
      if (!(isObject(labels) && labels[INSTANCE_LABEL] !== undefined)) {
        if (!isTMap(nodeAt(root, [...tpl, 'metadata']))) setAt(root, [...tpl, 'metadata'], new TMap());
        if (isTMap(nodeAt(root, [...tpl, 'metadata', 'labels']))) setAt(root, [...tpl, 'metadata', 'labels', INSTANCE_LABEL], this.releaseName());
        else setAt(root, [...tpl, 'metadata', 'labels'], new TMap([{ key: INSTANCE_LABEL, value: this.releaseName() }]));
      }
    }
    const tsc = get(raw, ...ps.map(String), 'topologySpreadConstraints');
    if (Array.isArray(tsc)) tsc.forEach((_, i) => this.instanceSelector(root, raw, [...ps, 'topologySpreadConstraints', i, 'labelSelector']));
    for (const kind of ['podAffinity', 'podAntiAffinity']) {
      const req = get(raw, ...ps.map(String), 'affinity', kind, 'requiredDuringSchedulingIgnoredDuringExecution');
      if (Array.isArray(req)) req.forEach((_, i) => this.instanceSelector(root, raw, [...ps, 'affinity', kind, 'requiredDuringSchedulingIgnoredDuringExecution', i, 'labelSelector']));
      const pref = get(raw, ...ps.map(String), 'affinity', kind, 'preferredDuringSchedulingIgnoredDuringExecution');
      if (Array.isArray(pref)) pref.forEach((_, i) => this.instanceSelector(root, raw, [...ps, 'affinity', kind, 'preferredDuringSchedulingIgnoredDuringExecution', i, 'podAffinityTerm', 'labelSelector']));
    }
  }

  /**
   * Fields newer than the cluster are left out or replaced, by `.Capabilities.KubeVersion` (the cluster's
   * version, or `helm template --kube-version`): the preStop/postStart `sleep` action (1.30) becomes
   * `exec: [sleep, N]`, and topology spread `matchLabelKeys` (1.27) is omitted.
   */
  private adaptPodSpec(root: TMap, ps: Path): void {
    for (const list of ['containers', 'initContainers']) {
      const seq = nodeAt(root, [...ps, list]);
      if (!isTSeq(seq)) continue;
      seq.items.forEach((_, i) => {
        for (const hook of ['preStop', 'postStart']) {
          const handler = nodeAt(root, [...ps, list, i, 'lifecycle', hook]);
          if (isTMap(handler)) adaptSleep(handler);
        }
      });
    }
    const tsc = nodeAt(root, [...ps, 'topologySpreadConstraints']);
    if (isTSeq(tsc)) {
      for (const item of tsc.items) {
        if (!isTMap(item.value)) continue;
        const e = entryOf(item.value, 'matchLabelKeys');
        if (e) e.when = kubeAtLeast(1, 27);
      }
    }
  }

  private bind(plan: WorkloadPlan): string {
    return `{{- $w := index .Values.workloads ${goString(plan.key)} }}`;
  }

  /** Release-aware name and namespace, and the chart's labels (standard ones and commonLabels) next to the object's own. */
  private applyMetadata(root: TMap, raw: JsonObject, kind: string, short?: string): void {
    const name = raw.metadata && isObject(raw.metadata) ? String(raw.metadata.name) : '';
    if (kind === 'Namespace') {
      if (name === this.a.primaryNamespace) setAt(root, ['metadata', 'name'], expr('{{ $.Release.Namespace | toJson }}'));
    } else if (!keepsItsName(raw)) setAt(root, ['metadata', 'name'], this.nameExpr(short ?? name));
    const ns = this.namespaceNode(raw, kind);
    if (ns !== undefined) setAt(root, ['metadata', 'namespace'], ns);
    this.addLabels(root, ['metadata', 'labels'], get(raw, 'metadata', 'labels'), `include ${this.tpl('labels')} $ | fromYaml`);
  }

  /** Appends template labels (a dict expression) to the labels map at `path`, omitting the keys the object already has (its own win). */
  private addLabels(root: TMap, path: Path, ownLabels: Json | undefined, dictExpr: string, when?: string): void {
    const own = isObject(ownLabels) ? Object.keys(ownLabels) : [];
    const raw1 = `omit (${dictExpr})${own.map((k) => ` ${goString(k)}`).join('')}`;
    const labels = nodeAt(root, path);
    if (isTMap(labels)) labels.entries.push({ raw: raw1, with: true });
    else if (when) setAt(root, path, new TMap([{ raw: raw1, with: true }]), when);
    else setAt(root, path, new TMap([{ raw: raw1, with: true }]));
  }

  /** References to objects of this chart follow their prefixed names. */
  private applyReferences(root: TMap, o: KObject): void {
    const ns = o.namespace;
    const ref = (path: Path, kind: string, refNs: string | undefined = ns) => {
      const v = nodeAt(root, path);
      const short = typeof v === 'string' ? this.names.get(this.nameKey(kind, refNs, v)) : undefined;
      if (short === undefined) return;
      setAt(root, path, this.nameExpr(short));
    };
    const each = (path: Path, fn: (i: number) => void) => {
      const v = get(o.raw, ...path.map(String));
      if (Array.isArray(v)) v.forEach((_, i) => fn(i));
    };
    const ps = POD_SPEC[o.kind];
    if (ps) {
      ref([...ps, 'serviceAccountName'], 'ServiceAccount');
      ref([...ps, 'serviceAccount'], 'ServiceAccount');
      each([...ps, 'imagePullSecrets'], (i) => ref([...ps, 'imagePullSecrets', i, 'name'], 'Secret'));
      each([...ps, 'volumes'], (i) => {
        const v = [...ps, 'volumes', i];
        ref([...v, 'configMap', 'name'], 'ConfigMap');
        ref([...v, 'secret', 'secretName'], 'Secret');
        ref([...v, 'persistentVolumeClaim', 'claimName'], 'PersistentVolumeClaim');
        each([...v, 'projected', 'sources'], (j) => {
          ref([...v, 'projected', 'sources', j, 'configMap', 'name'], 'ConfigMap');
          ref([...v, 'projected', 'sources', j, 'secret', 'name'], 'Secret');
        });
      });
      for (const list of ['containers', 'initContainers']) {
        each([...ps, list], (i) => {
          const c = [...ps, list, i];
          each([...c, 'env'], (j) => {
            ref([...c, 'env', j, 'valueFrom', 'configMapKeyRef', 'name'], 'ConfigMap');
            ref([...c, 'env', j, 'valueFrom', 'secretKeyRef', 'name'], 'Secret');
          });
          each([...c, 'envFrom'], (j) => {
            ref([...c, 'envFrom', j, 'configMapRef', 'name'], 'ConfigMap');
            ref([...c, 'envFrom', j, 'secretRef', 'name'], 'Secret');
          });
        });
      }
    }
    if (o.kind === 'StatefulSet') ref(['spec', 'serviceName'], 'Service');
    if (o.kind === 'TargetGroupBinding') ref(['spec', 'serviceRef', 'name'], 'Service');
    if (ps) {
      // The AWS LB controller's readiness gate names its TargetGroupBinding: it follows the binding's name.
      each([...ps, 'readinessGates'], (i) => {
        const t = nodeAt(root, [...ps, 'readinessGates', i, 'conditionType']);
        if (typeof t !== 'string' || !t.startsWith(AWS_LBC.readinessGatePrefix)) return;
        const short = this.names.get(this.nameKey('TargetGroupBinding', ns, t.slice(AWS_LBC.readinessGatePrefix.length)));
        if (short === undefined) return;
        setAt(root, [...ps, 'readinessGates', i, 'conditionType'], expr(`{{ printf "%s%s" ${goString(AWS_LBC.readinessGatePrefix)} (include ${this.tpl('objectName')} (list $ ${goString(short)})) | toJson }}`));
      });
    }
    if (o.kind === 'HorizontalPodAutoscaler') {
      const k = get(o.raw, 'spec', 'scaleTargetRef', 'kind');
      const n = get(o.raw, 'spec', 'scaleTargetRef', 'name');
      // The HPA controller also resolves the kind written in lower case (scaleTargetKindIs).
      const kinds = new Set([...this.names.keys()].map((key) => key.slice(0, key.indexOf('/'))));
      const kind = typeof k === 'string' && typeof n === 'string' ? [...kinds].find((x) => scaleTargetKindIs(k, x) && this.names.has(this.nameKey(x, ns, n))) ?? k : k;
      if (typeof kind === 'string') ref(['spec', 'scaleTargetRef', 'name'], kind);
    }
    if (o.kind === 'Ingress') {
      ref(['spec', 'defaultBackend', 'service', 'name'], 'Service');
      each(['spec', 'tls'], (i) => ref(['spec', 'tls', i, 'secretName'], 'Secret'));
      each(['spec', 'rules'], (i) => each(['spec', 'rules', i, 'http', 'paths'], (j) => ref(['spec', 'rules', i, 'http', 'paths', j, 'backend', 'service', 'name'], 'Service')));
    }
    if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
      const k = get(o.raw, 'roleRef', 'kind');
      if (typeof k === 'string') ref(['roleRef', 'name'], k);
      each(['subjects'], (i) => {
        const s = get(o.raw, 'subjects') as Json[];
        const subj = s[i];
        if (isObject(subj) && subj.kind === 'ServiceAccount') {
          ref(['subjects', i, 'name'], 'ServiceAccount', typeof subj.namespace === 'string' ? subj.namespace : ns);
          if (typeof subj.namespace === 'string' && subj.namespace === this.a.primaryNamespace) setAt(root, ['subjects', i, 'namespace'], expr('{{ $.Release.Namespace | toJson }}'));
        }
      });
    }
  }

  // -------------------------------------------------------------------------------------------
  // Workloads

  private applyWorkload(root: TMap, plan: WorkloadPlan): void {
    const ps: Path = ['spec', 'template', 'spec'];
    const raw = plan.obj.raw;
    const spec = (raw.spec ?? {}) as JsonObject;
    if (plan.replicas) setAt(root, ['spec', 'replicas'], expr('{{ int $w.replicas }}'), plan.replicas.present ? undefined : 'ne (int $w.replicas) 1');
    setAt(root, ['spec', 'minReadySeconds'], expr('{{ int $w.minReadySeconds }}'), plan.minReadyPresent ? undefined : 'ne (int $w.minReadySeconds) 0');
    if (plan.kind === 'Deployment') {
      setAt(root, ['spec', 'progressDeadlineSeconds'], expr('{{ int $w.progressDeadlineSeconds }}'), plan.progressDeadlinePresent ? undefined : 'ne (int $w.progressDeadlineSeconds) 600');
      const strategy = new TMap([
        {
          key: 'rollingUpdate',
          value: new TMap([
            { key: 'maxSurge', value: expr('{{ $w.strategy.maxSurge | toJson }}') },
            { key: 'maxUnavailable', value: expr('{{ $w.strategy.maxUnavailable | toJson }}') },
          ]),
          when: 'eq $w.strategy.type "RollingUpdate"',
        },
        { key: 'type', value: expr('{{ $w.strategy.type | toJson }}') },
      ]);
      setAt(root, ['spec', 'strategy'], strategy, plan.strategyPresent ? undefined : 'or (ne $w.strategy.type "RollingUpdate") (ne (toString $w.strategy.maxSurge) "25%") (ne (toString $w.strategy.maxUnavailable) "25%")');
    } else if (plan.kind === 'DaemonSet') {
      const strategy = new TMap([
        {
          key: 'rollingUpdate',
          value: new TMap([
            { key: 'maxSurge', value: expr('{{ $w.updateStrategy.maxSurge | toJson }}') },
            { key: 'maxUnavailable', value: expr('{{ $w.updateStrategy.maxUnavailable | toJson }}') },
          ]),
          when: 'eq $w.updateStrategy.type "RollingUpdate"',
        },
        { key: 'type', value: expr('{{ $w.updateStrategy.type | toJson }}') },
      ]);
      setAt(root, ['spec', 'updateStrategy'], strategy, plan.strategyPresent ? undefined : 'or (ne $w.updateStrategy.type "RollingUpdate") (ne (toString $w.updateStrategy.maxSurge) "0") (ne (toString $w.updateStrategy.maxUnavailable) "1")');
    } else {
      const ru = new TMap([{ key: 'partition', value: expr('{{ int $w.updateStrategy.partition }}') }]);
      if (plan.stsMaxUnavailable) ru.entries.push({ key: 'maxUnavailable', value: expr('{{ $w.updateStrategy.maxUnavailable | toJson }}') });
      const strategy = new TMap([
        { key: 'rollingUpdate', value: ru, when: 'eq $w.updateStrategy.type "RollingUpdate"' },
        { key: 'type', value: expr('{{ $w.updateStrategy.type | toJson }}') },
      ]);
      setAt(root, ['spec', 'updateStrategy'], strategy, plan.strategyPresent ? undefined : 'or (ne $w.updateStrategy.type "RollingUpdate") (ne (int $w.updateStrategy.partition) 0)');
    }
    setAt(root, [...ps, 'terminationGracePeriodSeconds'], expr('{{ int $w.terminationGracePeriodSeconds }}'), plan.gracePresent ? undefined : 'ne (int $w.terminationGracePeriodSeconds) 30');

    for (const c of plan.containers) {
      const cp: Path = [...ps, c.list, c.index];
      if (c.image) {
        setAt(root, [...cp, 'image'], expr(`{{ include ${this.tpl('image')} (list $ ${c.ref}.image) | toJson }}`));
        setAt(root, [...cp, 'imagePullPolicy'], expr(`{{ ${c.ref}.image.pullPolicy | toJson }}`), `${c.ref}.image.pullPolicy`);
      }
      setAt(root, [...cp, 'resources'], block(`${c.ref}.resources`), c.resourcesEmptyWritten ? undefined : `${c.ref}.resources`);
      setAt(root, [...cp, 'securityContext'], block(`${c.ref}.securityContext`), `${c.ref}.securityContext`);
      const env = nodeAt(root, [...cp, 'env']);
      if (isTSeq(env)) env.items.push({ value: block('$e'), range: `$e := ${c.ref}.extraEnv` });
      else setAt(root, [...cp, 'env'], block(`${c.ref}.extraEnv`), `${c.ref}.extraEnv`);
    }

    if (plan.preStop) for (const t of plan.preStop.targets) this.applyPreStop(root, [...ps, 'containers', t.index], t);

    if (plan.drain.knob) {
      const where: Path = plan.drain.where === 'template' ? ['spec', 'template', 'metadata'] : ['metadata'];
      const value = expr('{{ int $w.drainSeconds | toString | toJson }}');
      if (plan.drain.declared) setAt(root, [...where, 'annotations', HINT.drainSeconds], value);
      else {
        const cond = `ne (int $w.drainSeconds) ${DEFAULT_DRAIN_SECONDS}`;
        if (isTMap(nodeAt(root, [...where, 'annotations']))) setAt(root, [...where, 'annotations', HINT.drainSeconds], value, cond);
        else setAt(root, [...where, 'annotations'], new TMap([{ key: HINT.drainSeconds, value }]), cond);
      }
    }

    if (plan.spread) {
      const path: Path = [...ps, 'topologySpreadConstraints'];
      if (plan.spread.uniform) {
        const first = toT((get(spec, 'template', 'spec', 'topologySpreadConstraints') as Json[])[0]) as TMap;
        setAt(first, ['topologyKey'], expr('{{ $key | toJson }}'));
        setAt(first, ['maxSkew'], expr('{{ int $w.spread.maxSkew }}'));
        setAt(first, ['whenUnsatisfiable'], expr('{{ $w.spread.whenUnsatisfiable | toJson }}'));
        setAt(root, path, new TSeq([{ value: first, range: '$key := $w.spread.topologyKeys' }]), '$w.spread.enabled');
      } else {
        entryAt(root, path)!.when = '$w.spread.enabled';
      }
    }

    // Mesh annotations the constructs derive from the app's shutdown time.
    const ann: Path = ['spec', 'template', 'metadata', 'annotations'];
    const pre = this.preStopExpr(plan);
    const drain = this.drainExpr(plan);
    const stay = `(add ${pre} (max ${drain} 1))`;
    if (plan.mesh.linkerdWait) setAt(root, [...ann, LINKERD.waitBeforeExit], expr(`{{ ${stay} | toString | toJson }}`));
    // A native-mode proxy below 1.29 (no native sidecars there): a classic one, with the classic drain.
    const native = kubeAtLeast(1, 29);
    const fb = plan.mesh.nativeFallback;
    if (fb?.linkerd) {
      setAt(root, [...ann, fb.linkerd.key], expr(`{{ ternary "true" "false" (${native}) | toJson }}`));
      setAt(root, [...ann, LINKERD.waitBeforeExit], expr(`{{ ${stay} | toString | toJson }}`), `not (${native})`);
    }
    if (fb?.istio) {
      setAt(root, [...ann, ISTIO.nativeSidecar], expr(`{{ ternary "true" "false" (${native}) | toJson }}`));
      const classic = `printf ${fmt(fb.istio.before, fb.istio.after)} ${stay}`;
      if (fb.istio.original === undefined) setAt(root, [...ann, ISTIO.proxyConfig], expr(`{{ ${classic} | toJson }}`), `not (${native})`);
      else setAt(root, [...ann, ISTIO.proxyConfig], expr(`{{ if ${native} }}{{ ${goString(fb.istio.original)} | toJson }}{{ else }}{{ ${classic} | toJson }}{{ end }}`));
    }
    if (plan.mesh.linkerdShutdownGrace) {
      const before = plan.mesh.linkerdShutdownGrace.native ? (fb?.linkerd ? `(ternary (add ${pre} ${drain}) ${stay} (${native}))` : `(add ${pre} ${drain})`) : stay;
      setAt(root, [...ann, LINKERD.shutdownGracePeriod], expr(`{{ printf "%ds" (max (sub (int $w.terminationGracePeriodSeconds) (add ${before} ${GRACE_MARGIN_SECONDS})) 1) | toJson }}`));
    }
    if (plan.mesh.istioDrain) {
      setAt(root, [...ann, ISTIO.proxyConfig], expr(`{{ printf ${fmt(plan.mesh.istioDrain.before, plan.mesh.istioDrain.after)} ${stay} | toJson }}`));
    }
    this.applyPodValues(root, plan);
  }

  /** Seconds a classic sidecar must keep serving after the start of termination: the app's preStop + drain. */
  private appStopExpr(plan: WorkloadPlan): string {
    return `(add ${this.preStopExpr(plan)} ${this.drainExpr(plan)})`;
  }

  /**
   * Native sidecars below Kubernetes 1.29 (classic-sidecar.ts): each init container with
   * `restartPolicy: Always` is written only on >= 1.29; below, a copy of it (the same values, no
   * restartPolicy) is appended to `containers`, kept up through the app's preStop + drain as its
   * `classicFallback` value says: the program's drain flags, a preStop `exec: [sleep, N]`, or nothing.
   * `refuse` is the guard's (it fails the rendering below 1.29).
   */
  private applyClassicFallback(root: TMap, plan: WorkloadPlan): void {
    if (!plan.nativeSidecars.length) return;
    const ps: Path = ['spec', 'template', 'spec'];
    const native = kubeAtLeast(1, 29);
    const inits = nodeAt(root, [...ps, 'initContainers']) as TSeq;
    const containers = nodeAt(root, [...ps, 'containers']) as TSeq;
    const n = this.appStopExpr(plan);
    for (const sc of plan.nativeSidecars) {
      const item = inits.items[sc.index];
      const copy = cloneT(item.value) as TMap;
      item.when = item.when ? `and (${native}) (${item.when})` : native;
      const i = copy.entries.findIndex((e) => 'key' in e && e.key === 'restartPolicy');
      if (i >= 0) copy.entries.splice(i, 1);
      const mode = `${sc.ref}.classicFallback`;
      const is = (m: string) => `eq ${mode} ${goString(m)}`;
      const unless = (e: TEntry | undefined, m: string) => {
        if (e) e.when = e.when ? `and (ne ${mode} ${goString(m)}) (${e.when})` : `ne ${mode} ${goString(m)}`;
      };
      if (sc.flags && sc.modes.includes('drainFlags')) {
        const f = sc.flags;
        unless(entryOf(copy, 'args'), 'drainFlags');
        const accept = expr(`{{ printf ${goString(`${f.program.acceptFlag}=%ds`)} (add ${n} ${Math.ceil(f.extraAcceptSeconds)}) | toJson }}`);
        const args = new TSeq([...f.kept.map((a) => ({ value: a as TNode })), { value: accept }, { value: `${f.program.drainFlag}=${Math.ceil(f.drainSeconds)}s` }]);
        copy.entries.push({ key: 'args', value: args, when: is('drainFlags') });
      }
      if (sc.modes.includes('execSleep')) {
        unless(entryOf(copy, 'lifecycle'), 'execSleep');
        const hook = new TMap([{ key: 'preStop', value: new TMap([{ key: 'exec', value: new TMap([{ key: 'command', value: new TSeq([{ value: 'sleep' }, { value: expr(`{{ ${n} | toString | toJson }}`) }]) }]) }]) }]);
        copy.entries.push({ key: 'lifecycle', value: hook, when: `and (${is('execSleep')}) (gt ${n} 0)` });
      }
      containers.items.push({ value: copy, when: `not (${native})` });
    }
    // Only native sidecars: no initContainers at all below 1.29 (rather than an empty key).
    if (inits.items.every((it) => it.when !== undefined && it.when.includes(native))) {
      const e = entryAt(root, [...ps, 'initContainers'])!;
      e.when = e.when ? `and (${native}) (${e.when})` : native;
    }
  }

  /** kubegrace.dev/ignore for the rules whose guard the values acknowledge (computed in the template header). */
  private ignoreHeader(plan: WorkloadPlan): string[] {
    const p = `workloads.${plan.key}.acknowledge`;
    const lines = ['{{- $ignore := list }}', '{{- $reasons := list }}'];
    const ack = plan.values.children.find((n) => n.key === 'acknowledge');
    const keys = ack && ack.kind === 'group' ? ack.children.map((n) => n.key) : [];
    for (const k of keys) {
      if (k === 'namespaceWithoutReadinessGate') continue;
      lines.push(`{{- if $w.acknowledge.${k} }}{{- $ignore = concat $ignore (list ${ACKNOWLEDGED_RULES[k].map(goString).join(' ')}) }}{{- $reasons = append $reasons ${goString(`${p}.${k} is true`)} }}{{- end }}`);
    }
    if (plan.readinessGateNamespace) {
      lines.push(
        `{{- if not $.Values.namespace.create }}{{- $ignore = append $ignore "lb-readiness-gate" }}{{- $reasons = append $reasons ${goString(`the Namespace is not part of the release: the chart checks its ${AWS_LBC.readinessGateInjectLabel} label at install time (${p}.namespaceWithoutReadinessGate overrides)`)} }}{{- end }}`,
      );
    }
    return lines;
  }

  /** The pod-level values: annotations, labels, scheduling, pull secrets, service account, security context. */
  private applyPodValues(root: TMap, plan: WorkloadPlan): void {
    const raw = plan.obj.raw;
    const meta: Path = ['spec', 'template', 'metadata'];
    const ps: Path = ['spec', 'template', 'spec'];
    // Workload annotations: kubegrace.dev/ignore for acknowledged guards.
    const own = get(raw, 'metadata', 'annotations');
    const ownIgnore = isObject(own) && typeof own[HINT.ignore] === 'string' ? (own[HINT.ignore] as string) : undefined;
    const ownReason = isObject(own) && typeof own[HINT.ignoreReason] === 'string' ? (own[HINT.ignoreReason] as string) : undefined;
    const ignoreValue = expr(`{{ join "," (${ownIgnore !== undefined ? `prepend $ignore ${goString(ownIgnore)} | uniq` : '$ignore | uniq'}) | toJson }}`);
    const reasonValue = expr(`{{ join "; " (${ownReason !== undefined ? `prepend $reasons ${goString(ownReason)}` : '$reasons'}) | toJson }}`);
    const annotations = nodeAt(root, ['metadata', 'annotations']);
    if (isTMap(annotations)) {
      setAt(root, ['metadata', 'annotations', HINT.ignore], ignoreValue, ownIgnore !== undefined ? undefined : '$ignore');
      setAt(root, ['metadata', 'annotations', HINT.ignoreReason], reasonValue, ownReason !== undefined ? undefined : '$ignore');
    } else {
      setAt(root, ['metadata', 'annotations'], new TMap([{ key: HINT.ignore, value: ignoreValue }, { key: HINT.ignoreReason, value: reasonValue }]), '$ignore');
    }
    // Pod template annotations and labels.
    const podAnn = get(raw, ...meta.map(String), 'annotations');
    // Workload values first, then the chart-wide ones.
    const podAnnotations = '(merge (dict) $w.podAnnotations $.Values.podAnnotations)';
    if (isObject(podAnn)) this.addLabels(root, [...meta, 'annotations'], podAnn, podAnnotations);
    else setAt(root, [...meta, 'annotations'], block(podAnnotations), `or $w.podAnnotations $.Values.podAnnotations`);
    const podLabels = get(raw, ...meta.map(String), 'labels');
    this.addLabels(root, [...meta, 'labels'], { ...(isObject(podLabels) ? podLabels : {}), [INSTANCE_LABEL]: '' }, '(merge (dict) $w.podLabels $.Values.podLabels)');
    // Scheduling and the rest: a set value replaces the synthesized field.
    const replace = (key: string, value: TNode, when: string) => {
      const e = entryAt(root, [...ps, key]);
      if (e) e.when = e.when ? `and (not (${when})) (${e.when})` : `not (${when})`;
      const spec = nodeAt(root, ps) as TMap;
      spec.entries.push({ key, value, when });
    };
    const either = (k: string) => `($w.${k} | default $.Values.${k})`;
    replace('nodeSelector', block(either('nodeSelector')), `or $w.nodeSelector $.Values.nodeSelector`);
    replace('tolerations', block(either('tolerations')), `or $w.tolerations $.Values.tolerations`);
    replace('affinity', block(either('affinity')), `or $w.affinity $.Values.affinity`);
    replace('priorityClassName', expr(`{{ ${either('priorityClassName')} | toJson }}`), `or $w.priorityClassName $.Values.priorityClassName`);
    replace('serviceAccountName', expr('{{ $w.serviceAccountName | toJson }}'), '$w.serviceAccountName');
    if (isTMap(nodeAt(root, [...ps, 'securityContext']))) setAt(root, [...ps, 'securityContext'], block('$w.podSecurityContext'), '$w.podSecurityContext');
    else setAt(root, [...ps, 'securityContext'], block('$w.podSecurityContext'), '$w.podSecurityContext');
    // Pull secrets: the synthesized ones, then global.imagePullSecrets and the workload's.
    const secretItem = { value: new TMap([{ key: 'name', value: expr('{{ if kindIs "string" $s }}{{ $s | toJson }}{{ else }}{{ $s.name | toJson }}{{ end }}') }]), range: '$s := concat $.Values.global.imagePullSecrets $.Values.imagePullSecrets $w.imagePullSecrets' };
    const ips = nodeAt(root, [...ps, 'imagePullSecrets']);
    if (isTSeq(ips)) ips.items.push(secretItem);
    else setAt(root, [...ps, 'imagePullSecrets'], new TSeq([secretItem]), 'or $.Values.global.imagePullSecrets $.Values.imagePullSecrets $w.imagePullSecrets');
    // Further topology spread constraints after the synthesized ones.
    const tscPath: Path = [...ps, 'topologySpreadConstraints'];
    const tsc = entryAt(root, tscPath);
    const extra = { value: block('$c'), range: '$c := $w.topologySpreadConstraints' };
    if (tsc && isTSeq(tsc.value)) {
      if (tsc.when) {
        for (const item of tsc.value.items) item.when = item.when ? `and (${tsc.when}) (${item.when})` : tsc.when;
        tsc.when = `or (${tsc.when}) $w.topologySpreadConstraints`;
      }
      tsc.value.items.push(extra);
    } else if (!tsc) setAt(root, tscPath, new TSeq([extra]), '$w.topologySpreadConstraints');
  }

  private applyPreStop(root: TMap, cp: Path, t: PreStopTarget): void {
    const d = '(int $w.preStop.delaySeconds)';
    let handler: TMap;
    if (t.kind === 'sleep') {
      handler = new TMap([{ key: 'sleep', value: new TMap([{ key: 'seconds', value: expr(`{{ ${d} }}`) }]) }]);
    } else {
      const items = t.command!.map((el, i) => ({ value: i === t.token!.index ? expr(`{{ printf ${fmt(t.token!.before, t.token!.after)} ${d} | toJson }}`) : (el as TNode) }));
      handler = new TMap([{ key: 'exec', value: new TMap([{ key: 'command', value: new TSeq(items) }]) }]);
    }
    const when = `gt ${d} 0`;
    if (t.lifecycleOnlyPreStop) setAt(root, [...cp, 'lifecycle'], new TMap([{ key: 'preStop', value: handler }]), when);
    else setAt(root, [...cp, 'lifecycle', 'preStop'], handler, when);
  }

  // -------------------------------------------------------------------------------------------
  // PDB, HPA, Service

  private applyPdb(root: TMap, raw: JsonObject, key: string): void {
    // An acknowledged budget that blocks eviction: its own pdb-blocks-eviction finding is suppressed, with the reason.
    const own = get(raw, 'metadata', 'annotations');
    if (!(isObject(own) && own[HINT.ignore] !== undefined)) {
      const ann = new TMap([
        { key: HINT.ignore, value: 'pdb-blocks-eviction' },
        { key: HINT.ignoreReason, value: `workloads.${key}.acknowledge.pdbBlocksEviction is true` },
      ]);
      const ack = '$w.acknowledge.pdbBlocksEviction';
      if (isTMap(nodeAt(root, ['metadata', 'annotations']))) for (const e of ann.entries) setAt(root, ['metadata', 'annotations', (e as { key: string }).key], (e as { value: TNode }).value, ack);
      else setAt(root, ['metadata', 'annotations'], ann, ack);
    }
    const set = (key: string, value: TNode, when: string) => setAt(root, ['spec', key], value, when);
    set('minAvailable', expr('{{ $w.pdb.minAvailable | toJson }}'), 'not (kindIs "invalid" $w.pdb.minAvailable)');
    set('maxUnavailable', expr('{{ $w.pdb.maxUnavailable | toJson }}'), 'not (kindIs "invalid" $w.pdb.maxUnavailable)');
    set('unhealthyPodEvictionPolicy', expr('{{ $w.pdb.unhealthyPodEvictionPolicy | toJson }}'), '$w.pdb.unhealthyPodEvictionPolicy');
  }

  private generatedPdb(plan: WorkloadPlan, name: string): string {
    const labels = get(plan.obj.raw, 'metadata', 'labels');
    const metadata: JsonObject = { name };
    if (plan.namespace) metadata.namespace = plan.namespace;
    if (isObject(labels)) metadata.labels = labels;
    const raw: JsonObject = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata,
      spec: { selector: (get(plan.obj.raw, 'spec', 'selector') ?? {}) as Json },
    };
    const root = toT(raw) as TMap;
    this.applyMetadata(root, raw, 'PodDisruptionBudget');
    this.instanceSelector(root, raw, ['spec', 'selector']);
    this.applyPdb(root, raw, plan.key);
    adaptPdb(root);
    return [this.bind(plan), '{{- if $w.pdb.enabled }}', emitDocument(root).replace(/\n$/, ''), '{{- end }}'].join('\n') + '\n';
  }

  private applyHpa(root: TMap, plan: WorkloadPlan): void {
    setAt(root, ['spec', 'minReplicas'], expr('{{ int $w.autoscaling.minReplicas }}'), plan.hpa!.minPresent ? undefined : 'ne (int $w.autoscaling.minReplicas) 1');
    setAt(root, ['spec', 'maxReplicas'], expr('{{ int $w.autoscaling.maxReplicas }}'));
  }

  private applyLoadBalancer(root: TMap, raw: JsonObject, plan: WorkloadPlan): void {
    const annotations = get(raw, 'metadata', 'annotations');
    if (!isObject(annotations)) return;
    const strings = Object.fromEntries(Object.entries(annotations).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    for (const [key, value] of deregistrationAnnotations(strings)) {
      const m = DEREGISTRATION.exec(value)!;
      const start = m.index + m[0].length - m[2].length;
      const before = value.slice(0, start);
      const after = value.slice(start + m[2].length);
      setAt(root, ['metadata', 'annotations', key], expr(`{{ printf ${fmt(before, after)} (add ${this.preStopExpr(plan)} ${this.drainExpr(plan)} ${GRACE_MARGIN_SECONDS}) | toJson }}`));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Helpers, guards, NOTES

  helpers(): string {
    const c = this.chart;
    const d = (n: string) => `{{- define ${goString(`${c}.${n}`)} -}}`;
    const lines = [
      `{{/* Generated by kubegrace from synthesized manifests. */}}`,
      '',
      `{{/* The chart name, or .Values.nameOverride (helm create). */}}`,
      d('name'),
      `{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}`,
      `{{- end -}}`,
      '',
      `{{/* Release and chart name, or .Values.fullnameOverride; the release name alone when it contains the chart name (helm create). */}}`,
      d('fullname'),
      `{{- if .Values.fullnameOverride -}}`,
      `{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}`,
      `{{- else -}}`,
      `{{- $name := default .Chart.Name .Values.nameOverride -}}`,
      `{{- if contains $name .Release.Name -}}`,
      `{{- .Release.Name | trunc 63 | trimSuffix "-" -}}`,
      `{{- else -}}`,
      `{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}`,
      `{{- end -}}`,
      `{{- end -}}`,
      `{{- end -}}`,
      '',
      `{{/* An object name: <fullname>-<name>, or the fullname for the object named like the chart. Called with (list $ "name"). */}}`,
      d('objectName'),
      `{{- $root := index . 0 -}}`,
      `{{- $full := include ${goString(`${c}.fullname`)} $root -}}`,
      `{{- if eq (index . 1) ${goString(c)} -}}`,
      `{{- $full -}}`,
      `{{- else -}}`,
      `{{- printf "%s-%s" $full (index . 1) | trunc 63 | trimSuffix "-" -}}`,
      `{{- end -}}`,
      `{{- end -}}`,
      '',
      `{{/* Chart name and version, for the helm.sh/chart label. */}}`,
      d('chart'),
      `{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}`,
      `{{- end -}}`,
      '',
      `{{/* Labels every object gets in metadata.labels (YAML of a map), with .Values.commonLabels. Selectors get only ${INSTANCE_LABEL}. */}}`,
      d('labels'),
      `{{- $l := dict "helm.sh/chart" (include ${goString(`${c}.chart`)} .) "app.kubernetes.io/name" (include ${goString(`${c}.name`)} .) ${goString(INSTANCE_LABEL)} .Release.Name "app.kubernetes.io/managed-by" .Release.Service -}}`,
      `{{- with .Chart.AppVersion }}{{ $_ := set $l "app.kubernetes.io/version" (toString .) }}{{ end -}}`,
      `{{- toYaml (merge $l (.Values.commonLabels | default dict)) -}}`,
      `{{- end -}}`,
      '',
      `{{/* An image reference from (list $ {registry, repository, tag, digest}); global.imageRegistry replaces the registry. */}}`,
      d('image'),
      `{{- $root := index . 0 -}}`,
      `{{- $i := index . 1 -}}`,
      `{{- $registry := $root.Values.global.imageRegistry | default $i.registry -}}`,
      `{{- with $registry }}{{ . }}/{{ end -}}`,
      `{{- $i.repository -}}`,
      `{{- with $i.tag }}:{{ toString . }}{{ end -}}`,
      `{{- with $i.digest }}@{{ . }}{{ end -}}`,
      `{{- end -}}`,
    ];
    for (const plan of this.a.workloads) {
      lines.push(
        '',
        `{{/* ${commentText(plan.what)}: the longest preStop delay of its main containers, in seconds. */}}`,
        `{{- define ${this.tpl(`preStopSeconds.${plan.key}`)} -}}`,
        `{{- $w := index .Values.workloads ${goString(plan.key)} -}}`,
        `{{- max ${plan.preStop ? '(int $w.preStop.delaySeconds)' : '0'} ${[0, ...plan.fixedPreStops.map((s) => Math.ceil(s))].join(' ')} -}}`,
        `{{- end -}}`,
      );
    }
    return lines.join('\n') + '\n';
  }

  /** The guards of one workload, as Go template text (one named template per workload). */
  guards(): string {
    const out: string[] = [
      '{{/*',
      'Guards: each workload template includes its guard, which fails the rendering (helm template,',
      'helm install, helm upgrade) on values that would break a rollout or cut traffic. They mirror',
      'the kubegrace rules grace-period-budget, progress-deadline, pdb-blocks-eviction and',
      'linkerd-proxy-drain, and the API validation of rolling updates.',
      '*/}}',
    ];
    for (const plan of this.a.workloads) out.push('', ...this.guard(plan));
    if (this.collisions.length) out.push('', ...this.releaseNamespaceGuard());
    return out.join('\n') + '\n';
  }

  /**
   * The release namespaces where an object the manifests keep in another namespace would be the same
   * object as one the chart puts into the release namespace (refusals.ts releaseNamespaceCollisions):
   * the rendering fails there, naming the objects and where to install instead. Included by the
   * templates of those objects. No override: helm install would fail on "already exists".
   */
  private releaseNamespaceGuard(): string[] {
    const main = this.a.primaryNamespace!;
    const q = (s: string) => JSON.stringify(s);
    const refused = this.collisions.map((c) => q(c.namespace));
    const others = refused.length === 1 ? refused[0] : `${refused.slice(0, -1).join(', ')} or ${refused[refused.length - 1]}`;
    const lines = [
      '{{/*',
      `Release namespaces this chart refuses: objects the manifests keep in ${commentText(refused.join(', '))} share their kind and`,
      `name with objects of the main namespace ${commentText(q(main))}, which go to the release namespace. Included by those objects.`,
      '*/}}',
      `{{- define ${this.tpl('guards.release-namespace')} -}}`,
    ];
    for (const c of this.collisions) {
      lines.push(`{{- if eq .Release.Namespace ${goString(c.namespace)} -}}`, '{{- $c := list -}}');
      for (const o of c.objects) {
        const from = o.released.map((r) => (r.namespace !== undefined && r.namespace !== '' ? q(r.namespace) : 'no namespace (the release namespace)')).join(', ');
        if (o.onlyWithCreate) {
          lines.push(
            '{{- if .Values.namespace.create -}}',
            `{{- $c = append $c ${goString(`Namespace ${q(o.short)} (the manifests' Namespace object of ${q(c.namespace)}, and the one namespace.create makes for the release namespace from the one of ${from})`)} -}}`,
            '{{- end -}}',
          );
        } else {
          lines.push(`{{- $c = append $c (print ${goString(`${o.kind} ${q(o.kept.name)} of namespace ${q(c.namespace)} and ${o.kind} ${q(o.released[0].name)} of ${from}, both named `)} (include ${this.tpl('objectName')} (list $ ${goString(o.short)}) | toJson)) -}}`);
        }
      }
      const text =
        `: the chart keeps the objects the manifests put into namespace ${q(c.namespace)} there and puts those of their main namespace ${q(main)} into the release namespace, ` +
        `so a release installed into ${q(c.namespace)} would hold two objects of one kind and name: `;
      const fix =
        `; helm install would fail on the second ("already exists"), and the two are different objects. ` +
        `Install into namespace ${q(main)} (the manifests' main namespace) or another namespace than ${others}; ` +
        `or regenerate the chart with kubegrace chart generate --namespace ${shellWord(main)}, which keeps only the objects of ${q(main)} (with the cluster-scoped ones and those naming no namespace) and leaves out those of ${refused.join(', ')}`;
      lines.push('{{- if $c -}}', `{{- fail (print "kubegrace guard: release namespace " (toJson .Release.Namespace) ${goString(text)} (join "; " $c) ${goString(fix)}) -}}`, '{{- end -}}', '{{- end -}}');
    }
    lines.push('{{- end -}}');
    return lines;
  }

  private guard(plan: WorkloadPlan): string[] {
    const p = `workloads.${plan.key}`;
    const head = `kubegrace guard: ${pct(plan.what)}: `;
    const lines: string[] = [
      `{{- define ${this.tpl(`guards.${plan.key}`)} -}}`,
      `{{- $w := index .Values.workloads ${goString(plan.key)} -}}`,
      `{{- $grace := int $w.terminationGracePeriodSeconds -}}`,
      `{{- $pre := include ${this.tpl(`preStopSeconds.${plan.key}`)} . | int -}}`,
      `{{- $drain := ${plan.drain.knob ? 'int $w.drainSeconds' : String(Math.ceil(plan.drain.constant))} -}}`,
      `{{- $need := add $pre $drain ${plan.addend} -}}`,
    ];
    const f = (format: string, ...args: string[]) => `{{- fail (printf ${goString(head + format)}${args.map((a) => ` ${a}`).join('')}) -}}`;
    // A guard that mirrors a lint finding (not an API rejection) names the value that overrides it.
    const fa = (ack: string, format: string, ...args: string[]) =>
      `{{- if not $w.acknowledge.${ack} -}}${f(`${format}; or set ${p}.acknowledge.${ack}=true to accept it`, ...args)}{{- end -}}`;
    const preStopFix = plan.preStop ? ` or lower ${p}.preStop.delaySeconds` : ' or shorten the preStop hook';
    const addendText = plan.addendParts.map((x) => ` + ${x}`).join('').replace(/%/g, '%%');
    // grace-period-budget: without a hook, the budget counts only when the drain time is declared.
    const judged = plan.drain.declared || plan.fixedPreStops.length ? 'true' : plan.drain.knob ? `(or (gt $pre 0) (ne $drain ${DEFAULT_DRAIN_SECONDS}))` : '(gt $pre 0)';
    lines.push(
      `{{- if and (gt $pre 0) (ge $pre $grace) -}}`,
      fa(
        'gracePeriodBudget',
        `preStop delay %ds >= terminationGracePeriodSeconds %ds, so the kubelet would leave the app only ${MINIMUM_GRACE_AFTER_HOOK}s between SIGTERM and SIGKILL; raise ${p}.terminationGracePeriodSeconds to at least %d (preStop + drain${addendText} + ${GRACE_MARGIN_SECONDS}s margin)${preStopFix}`,
        '$pre',
        '$grace',
        `(add $need ${GRACE_MARGIN_SECONDS})`,
      ),
      `{{- else if and ${judged} (gt $need $grace) -}}`,
      fa(
        'gracePeriodBudget',
        `preStop %ds + drain %ds${addendText} = %ds exceeds terminationGracePeriodSeconds %ds, so in-flight work would be killed at the deadline; raise ${p}.terminationGracePeriodSeconds to at least %d (with a ${GRACE_MARGIN_SECONDS}s margin)${preStopFix}${plan.drain.knob ? ` or ${p}.drainSeconds` : ''}`,
        '$pre',
        '$drain',
        '$need',
        '$grace',
        `(add $need ${GRACE_MARGIN_SECONDS})`,
      ),
      `{{- end -}}`,
    );
    if (plan.preStop?.targets.some((t) => t.kind === 'sleep')) {
      // The API rejects a sleep action longer than the grace period (validateSleepAction), acknowledged or not;
      // below 1.30 the chart writes exec [sleep, N] instead, which the API does not bound.
      lines.push(
        `{{- if and (${kubeAtLeast(1, 30)}) (gt (int $w.preStop.delaySeconds) $grace) -}}`,
        f(
          `preStop.delaySeconds %d > terminationGracePeriodSeconds %d: the API rejects a preStop sleep action longer than the grace period (written on Kubernetes >= 1.30), acknowledged or not; raise ${p}.terminationGracePeriodSeconds to at least %d (preStop + drain${addendText} + ${GRACE_MARGIN_SECONDS}s margin) or lower ${p}.preStop.delaySeconds`,
          '(int $w.preStop.delaySeconds)',
          '$grace',
          `(add $need ${GRACE_MARGIN_SECONDS})`,
        ),
        `{{- end -}}`,
      );
    }
    if (plan.mesh.linkerdWait) {
      lines.push(
        `{{- $stay := add $pre (max $drain 1) -}}`,
        `{{- if ge $stay $grace -}}`,
        fa(
          'meshDrain',
          `the Linkerd proxy waits preStop + drain = %ds before it exits (${LINKERD.waitBeforeExit}) >= terminationGracePeriodSeconds %ds, so it would be killed while the app still drains through it; raise ${p}.terminationGracePeriodSeconds to at least %d`,
          '$stay',
          '$grace',
          `(add $stay ${GRACE_MARGIN_SECONDS})`,
        ),
        `{{- end -}}`,
      );
    }
    const zero = (v: string) => `(has (toString ${v}) (list "0" "0%"))`;
    if (plan.kind === 'Deployment' || plan.kind === 'DaemonSet') {
      const s = plan.kind === 'Deployment' ? 'strategy' : 'updateStrategy';
      lines.push(
        `{{- if and (eq $w.${s}.type "RollingUpdate") ${zero(`$w.${s}.maxSurge`)} ${zero(`$w.${s}.maxUnavailable`)} -}}`,
        f(`${p}.${s}.maxSurge and maxUnavailable are both 0: the API rejects it, since a rollout could neither add nor remove a pod; set ${p}.${s}.maxSurge to 1 (new pod first, capacity kept)`),
        `{{- end -}}`,
      );
    }
    if (plan.kind === 'Deployment') {
      lines.push(
        `{{- if ge (int $w.minReadySeconds) (int $w.progressDeadlineSeconds) -}}`,
        f(
          `${p}.minReadySeconds %d >= progressDeadlineSeconds %d: the API rejects it ("must be greater than minReadySeconds"); raise ${p}.progressDeadlineSeconds to at least %d (minReadySeconds + the default deadline of ${DEFAULTS.progressDeadlineSeconds}s)`,
          '(int $w.minReadySeconds)',
          '(int $w.progressDeadlineSeconds)',
          `(add (int $w.minReadySeconds) ${DEFAULTS.progressDeadlineSeconds})`,
        ),
        `{{- end -}}`,
      );
    }
    if (plan.hpa) {
      lines.push(
        `{{- if gt (int $w.autoscaling.minReplicas) (int $w.autoscaling.maxReplicas) -}}`,
        f(`${p}.autoscaling.minReplicas %d > maxReplicas %d: the API rejects it; raise maxReplicas or lower minReplicas`, '(int $w.autoscaling.minReplicas)', '(int $w.autoscaling.maxReplicas)'),
        `{{- end -}}`,
      );
    }
    if (plan.pdb) {
      const replicas = plan.hpa ? '(int $w.autoscaling.minReplicas)' : plan.replicas ? '(int $w.replicas)' : '1';
      const rText = plan.hpa ? `HPA minReplicas (${p}.autoscaling.minReplicas) %d` : `%d replica(s)`;
      const set = (k: string) => `(not (kindIs "invalid" $w.pdb.${k}))`;
      lines.push(
        `{{- if $w.pdb.enabled -}}`,
        `{{- if and ${set('minAvailable')} ${set('maxUnavailable')} -}}`,
        f(`${p}.pdb sets both minAvailable and maxUnavailable: the API rejects it; set one of them to null`),
        `{{- else if not (or ${set('minAvailable')} ${set('maxUnavailable')}) -}}`,
        f(`${p}.pdb sets neither minAvailable nor maxUnavailable; set maxUnavailable (e.g. 1) or ${p}.pdb.enabled: false`),
        `{{- end -}}`,
        `{{- $r := ${replicas} -}}`,
        `{{- if gt $r 0 -}}`,
        `{{- if ${set('maxUnavailable')} -}}`,
        `{{- if ${zero('$w.pdb.maxUnavailable')} -}}`,
        fa(
          'pdbBlocksEviction',
          `${p}.pdb.maxUnavailable %v allows no voluntary eviction, so kubectl drain would never finish and node upgrades would stall; use maxUnavailable 1 or more, or ${p}.pdb.enabled: false`,
          '$w.pdb.maxUnavailable',
        ),
        `{{- end -}}`,
        `{{- else -}}`,
        `{{- $min := $w.pdb.minAvailable -}}`,
        // Percentages round up in the disruption controller: ceil(p * r / 100).
        `{{- $needed := 0 -}}`,
        `{{- if kindIs "string" $min -}}{{- $needed = div (add (mul (trimSuffix "%" $min | int) $r) 99) 100 -}}{{- else -}}{{- $needed = int $min -}}{{- end -}}`,
        `{{- if ge $needed $r -}}`,
        fa(
          'pdbBlocksEviction',
          `${p}.pdb.minAvailable %v with ${rText} keeps %d pods available, so no pod may ever be evicted: kubectl drain would never finish and node upgrades would stall; lower minAvailable below the replicas${plan.replicas ? ` or raise ${p}.replicas` : ''}, or set minAvailable to null and maxUnavailable to 1`,
          '$min',
          '$r',
          '$needed',
        ),
        `{{- end -}}`,
        `{{- end -}}`,
        `{{- end -}}`,
        `{{- end -}}`,
      );
    }
    if (plan.preStop && plan.served) {
      lines.push(
        `{{- if eq (int $w.preStop.delaySeconds) 0 -}}`,
        fa(
          'preStopMissing',
          `${p}.preStop.delaySeconds 0 removes the preStop hook of a served workload: SIGTERM arrives while Services, proxies and load balancers still route clients to the pod; keep a delay (the constructs use ${DEFAULT_PRESTOP_SECONDS}s, or the load balancer's propagation window)`,
        ),
        `{{- end -}}`,
      );
    }
    if (rolloutGuarded(plan)) {
      const r = plan.hpa ? '(int $w.autoscaling.minReplicas)' : plan.replicas ? '(int $w.replicas)' : '1';
      const rText = plan.hpa ? `HPA minReplicas %d` : `%d replica(s)`;
      // Resolution as the Deployment controller does it: maxSurge rounds up, maxUnavailable down; both 0 -> 1 unavailable.
      lines.push(
        `{{- $r := ${r} -}}`,
        `{{- $surge := 0 -}}{{- $unav := 0 -}}`,
        `{{- $s := $w.strategy.maxSurge -}}{{- $u := $w.strategy.maxUnavailable -}}`,
        `{{- if kindIs "string" $s -}}{{- $surge = div (add (mul (trimSuffix "%" $s | int) $r) 99) 100 -}}{{- else -}}{{- $surge = int $s -}}{{- end -}}`,
        `{{- if kindIs "string" $u -}}{{- $unav = div (mul (trimSuffix "%" $u | int) $r) 100 -}}{{- else -}}{{- $unav = int $u -}}{{- end -}}`,
        `{{- if and (eq $surge 0) (eq $unav 0) -}}{{- $unav = 1 -}}{{- end -}}`,
        `{{- if eq $w.strategy.type "Recreate" -}}`,
        `{{- if ge $r 2 -}}`,
        fa(
          'rolloutOutage',
          `${p}.strategy.type Recreate with ${rText} on a served workload: every pod is terminated before any new one starts, so each rollout is a full outage of termination plus startup time; use RollingUpdate with maxSurge 1 and maxUnavailable 0`,
          '$r',
        ),
        `{{- end -}}`,
        `{{- else if and (gt $r 0) (ge $unav $r) (not (and ${zero('$s')} ${zero('$u')})) -}}`,
        fa(
          'rolloutOutage',
          `${p}.strategy maxSurge %v and maxUnavailable %v with ${rText}: all pods can be removed before any replacement is ready, a full outage for the whole startup time; set ${p}.strategy.maxSurge to 1 and maxUnavailable to 0 (surge first)`,
          '$s',
          '$u',
          '$r',
        ),
        `{{- end -}}`,
      );
    }
    if (plan.nativeSidecars.length) lines.push(...this.classicGuard(plan, head));
    if (plan.readinessGateNamespace) {
      const label = AWS_LBC.readinessGateInjectLabel;
      lines.push(
        // Only an install or upgrade against a cluster can see the namespace; helm template gets an empty lookup.
        `{{- if not .Values.namespace.create -}}`,
        `{{- $ns := lookup "v1" "Namespace" "" .Release.Namespace -}}`,
        `{{- if $ns -}}`,
        `{{- if ne (index ($ns.metadata.labels | default dict) ${goString(label)} | default "") "enabled" -}}`,
        fa(
          'namespaceWithoutReadinessGate',
          `namespace %s lacks the label ${label}: enabled, so the AWS Load Balancer Controller injects no readiness gate and a rollout can remove every healthy target; label the namespace (kubectl label namespace %s ${label}=enabled) before installing`,
          '.Release.Namespace',
          '.Release.Namespace',
        ),
        `{{- end -}}`,
        `{{- end -}}`,
        `{{- end -}}`,
      );
    }
    lines.push('{{- end -}}');
    return lines;
  }

  /**
   * Below 1.29: a native sidecar whose classicFallback is `refuse` fails the rendering, naming the
   * value; `drainFlags` with an image tag older than the program's first release with the flags too.
   */
  private classicGuard(plan: WorkloadPlan, head: string): string[] {
    const lines = [`{{- if not (${kubeAtLeast(1, 29)}) -}}`];
    const f = (format: string, ...args: string[]) => `{{- fail (printf ${goString(head + format)}${args.map((a) => ` ${a}`).join('')}) -}}`;
    plan.nativeSidecars.forEach((sc, i) => {
      const mode = `${sc.ref}.classicFallback`;
      const name = pct(JSON.stringify(sc.name));
      const options = sc.modes.filter((m) => m !== 'refuse').map((m) => `${m}${m === 'drainFlags' && sc.flags ? ` (${sc.flags.program.title} >= ${sc.flags.program.minVersion.join('.')}: ${sc.flags.program.acceptFlag})` : m === 'execSleep' ? ' (only if its image has a sleep binary)' : m === 'stopAtOnce' ? ' (accept that it may stop before the app has drained)' : ''}`);
      lines.push(
        `{{- if eq ${mode} "refuse" -}}`,
        f(
          `Kubernetes %s has no native sidecars (>= 1.29), so init container ${name} (restartPolicy: Always) would run as a regular container, which gets SIGTERM together with the app and may stop before the app has drained${sc.defaultMode === 'refuse' ? ` (${pct(sc.why)})` : ''}; set ${sc.valuesPath}.classicFallback to ${pct(options.join(', or '))}, or install on Kubernetes >= 1.29`,
          '$.Capabilities.KubeVersion.Version',
        ),
        `{{- end -}}`,
      );
      const knob = plan.containers.find((c) => c.list === 'initContainers' && c.index === sc.index);
      if (sc.flags && knob?.image) {
        const p = sc.flags.program;
        lines.push(
          `{{- $tag${i} := toString ${sc.ref}.image.tag -}}`,
          `{{- if and (eq ${mode} "drainFlags") (regexMatch ${goString('^v?[0-9]+\\.[0-9]+\\.[0-9]+([-+.].*)?$')} $tag${i}) -}}`,
          `{{- if semverCompare ${goString(`<${p.minVersion.join('.')}-0`)} (regexFind ${goString('[0-9]+\\.[0-9]+\\.[0-9]+')} $tag${i}) -}}`,
          f(
            `${sc.valuesPath}.classicFallback drainFlags needs ${pct(p.title)} >= ${p.minVersion.join('.')} (the first release with ${p.acceptFlag}), but ${sc.valuesPath}.image.tag is %s; raise the tag, or choose another classicFallback`,
            `$tag${i}`,
          ),
          `{{- end -}}`,
          `{{- end -}}`,
        );
      }
    });
    lines.push('{{- end -}}');
    return lines;
  }

  notes(): string {
    const out: string[] = [
      '{{ .Chart.Name }} {{ .Chart.Version }} is installed as release {{ .Release.Name }} in namespace {{ .Release.Namespace }}.',
      'Its values passed the kubegrace guards (termination budget, rollout, disruption budget).',
    ];
    if (this.collisions.length) {
      const q = (x: string) => escapeTemplate(JSON.stringify(x));
      out.push(
        `Kept in other namespaces as the manifests wrote them, under names the release namespace holds too: ${this.collisions.map((c) => `${c.objects.filter((o) => !o.onlyWithCreate).map((o) => `${escapeTemplate(o.kind)} {{ include ${this.tpl('objectName')} (list $ ${goString(o.short)}) }}`).join(', ')} in ${q(c.namespace)}`).join('; ')}.`,
        `The chart refuses ${this.collisions.map((c) => q(c.namespace)).join(', ')} as release namespace (each would hold two objects of one name); it is meant for ${q(this.a.primaryNamespace!)}, the manifests' main namespace.`,
      );
    }
    for (const plan of this.a.workloads) {
      const resource = `${plan.kind.toLowerCase()}/{{ include ${this.tpl('objectName')} (list $ ${goString(plan.name)}) }}`;
      const ns = plan.namespace === undefined || plan.namespace === this.a.primaryNamespace ? '{{ $.Release.Namespace }}' : escapeTemplate(plan.namespace);
      const timeout = plan.kind === 'Deployment' ? ' --timeout {{ add (int .progressDeadlineSeconds) 60 }}s' : '';
      const drain = plan.drain.knob ? '{{ int .drainSeconds }}' : String(plan.drain.constant);
      const drainSum = plan.drain.knob ? '(int .drainSeconds)' : String(Math.ceil(plan.drain.constant));
      const pre = `(include ${this.tpl(`preStopSeconds.${plan.key}`)} $ | int)`;
      out.push(
        '',
        `{{- with index .Values.workloads ${goString(plan.key)} }}`,
        '',
        // Manifest text is printed by an action, never pasted into the template.
        `{{ ${goString(plan.what.replace(/[\r\n]+/g, ' '))} }}`,
        `  Watch the rollout:   kubectl --namespace ${ns} rollout status ${resource}${timeout}`,
        `  Termination budget:  preStop {{ ${pre} }}s + drain ${drain}s${plan.addendParts.map((x) => ` + ${escapeTemplate(x)}`).join('')} = {{ add ${pre} ${drainSum} ${plan.addend} }}s of terminationGracePeriodSeconds {{ int .terminationGracePeriodSeconds }}s`,
      );
      if (plan.preStop?.targets.some((t) => t.kind === 'sleep')) {
        out.push(
          `{{- if and (gt ${pre} 0) (not (${kubeAtLeast(1, 30)})) }}`,
          '  preStop hook:        Kubernetes {{ $.Capabilities.KubeVersion.Version }} has no sleep action (>= 1.30), so the hook runs `sleep` in the container: an image without a sleep binary (distroless, scratch) fails the hook and stops at once; use Kubernetes >= 1.30 or an image with sleep.',
          '{{- end }}',
        );
      }
      const fb = plan.mesh.nativeFallback;
      if (fb) {
        const stay = `(add ${pre} (max ${drainSum} 1))`;
        const meshes = [
          ...(fb.linkerd ? [`the Linkerd proxy is injected as a regular container (${fb.linkerd.key}: "false") that waits preStop + drain = {{ ${stay} }}s before it exits (${LINKERD.waitBeforeExit})`] : []),
          ...(fb.istio ? [`the Istio proxy is injected as a regular container (${ISTIO.nativeSidecar}: "false") that drains for preStop + drain = {{ ${stay} }}s (terminationDrainDuration)`] : []),
        ];
        out.push(`{{- if not (${kubeAtLeast(1, 29)}) }}`, `  Mesh proxy:          Kubernetes {{ $.Capabilities.KubeVersion.Version }} has no native sidecars (>= 1.29), so ${meshes.join('; ')}; it starts together with the app.`, '{{- end }}');
      }
      for (const sc of plan.nativeSidecars) {
        const mode = `${sc.ref.replace('$w.', '.')}.classicFallback`;
        const n = `(add ${pre} ${drainSum})`;
        // Manifest text is printed by an action, never pasted into the template.
        const name = `{{ ${goString(JSON.stringify(sc.name))} }}`;
        const flags = sc.flags
          ? `{{ if eq ${mode} "drainFlags" }}it keeps accepting connections for the app's preStop + drain = {{ add ${n} ${Math.ceil(sc.flags.extraAcceptSeconds)} }}s after SIGTERM (${sc.flags.program.acceptFlag}), then waits up to ${Math.ceil(sc.flags.drainSeconds)}s for open ones (${sc.flags.program.drainFlag}){{ else }}`
          : '';
        out.push(
          `{{- if not (${kubeAtLeast(1, 29)}) }}`,
          `  Native sidecar:      Kubernetes {{ $.Capabilities.KubeVersion.Version }} has none (>= 1.29), so ${name} runs as a regular container and gets SIGTERM with the app: ${flags}{{ if eq ${mode} "execSleep" }}its preStop sleeps the app's preStop + drain = {{ ${n} }}s first{{ else }}it is not kept up (classicFallback stopAtOnce) and may stop before the app has drained{{ end }}${sc.flags ? '{{ end }}' : ''}.`,
          `  Start-up order:      lost below 1.29: regular containers start together, so the app may start before ${name} is ready; let the app retry what it needs from ${name} at start, or make its startup or readiness probe check it.`,
          '{{- end }}',
        );
      }
      if (plan.readinessGateNamespace) {
        out.push(
          '{{- if not $.Values.namespace.create }}',
          `  Readiness gate:      namespace {{ $.Release.Namespace }} must carry the label ${AWS_LBC.readinessGateInjectLabel}: enabled (checked at install; helm template cannot see it).`,
          '{{- end }}',
        );
      }
      if (plan.pdb) {
        out.push(
          `  Disruption budget:   {{ if .pdb.enabled }}{{ if not (kindIs "invalid" .pdb.maxUnavailable) }}maxUnavailable {{ .pdb.maxUnavailable }}{{ else }}minAvailable {{ .pdb.minAvailable }}{{ end }}{{ else }}none (pdb.enabled is false){{ end }}`,
        );
      }
      out.push('{{- end }}');
    }
    out.push('', 'Change the knobs in values.yaml (see the chart README); unsafe combinations are refused at install time.');
    return out.join('\n') + '\n';
  }
}
