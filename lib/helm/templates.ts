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
import { HINT } from '../model/graph';
import { isClusterScoped } from '../model/parse';
import { isObject, Json, JsonObject, KObject } from '../model/types';
import { DEFAULTS, get } from '../model/workload';
import { DEFAULT_DRAIN_SECONDS, GRACE_MARGIN_SECONDS, MINIMUM_GRACE_AFTER_HOOK } from '../timeline/budget';
import { LINKERD, ISTIO } from '../timeline/mesh';
import { ChartAnalysis, DEREGISTRATION, deregistrationAnnotations, PreStopTarget, WorkloadPlan } from './analyze';
import { block, emitDocument, entryAt, expr, goString, isTMap, nodeAt, setAt, TMap, TNode, toT, TSeq } from './emit';

/** Labels Helm charts conventionally add; written into metadata.labels only, never into selectors. */
export const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/instance', 'app.kubernetes.io/version'];

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

/** printf format text for Go: the literal parts with `%` doubled. */
function fmt(before: string, after: string): string {
  return goString(`${before.replace(/%/g, '%%')}%d${after.replace(/%/g, '%%')}`);
}

export class ChartTemplates {
  private readonly names = new Set<string>();

  constructor(
    private readonly chart: string,
    private readonly a: ChartAnalysis,
  ) {
    for (const o of a.objects) if (o.kind !== 'Namespace') this.names.add(this.nameKey(o.kind, o.namespace, o.name));
  }

  private nameKey(kind: string, ns: string | undefined, name: string): string {
    return `${kind}/${isClusterScoped(kind) ? '' : (ns ?? 'default')}/${name}`;
  }

  private tpl(name: string): string {
    return goString(`${this.chart}.${name}`);
  }

  /** The template expression of an object name with the prefix value. */
  private nameExpr(name: string): TNode {
    return expr(`{{ include ${this.tpl('name')} (list $ ${goString(name)}) | toJson }}`);
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
    this.applyMetadata(root, o.raw, o.kind);
    this.applyReferences(root, o);
    const plan = this.a.byObject.get(o.uid);
    if (plan) {
      header.push(this.bind(plan), `{{- include ${this.tpl(`guards.${plan.key}`)} $ }}`);
      this.applyWorkload(root, plan);
    }
    const pdbPlan = this.a.pdbOwner.get(o.uid);
    if (pdbPlan) {
      header.push(this.bind(pdbPlan), '{{- if $w.pdb.enabled }}');
      footer = ['{{- end }}'];
      this.applyPdb(root);
    }
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

  private bind(plan: WorkloadPlan): string {
    return `{{- $w := index .Values.workloads ${goString(plan.key)} }}`;
  }

  /** Name with the prefix, and the chart's labels next to the object's own. */
  private applyMetadata(root: TMap, raw: JsonObject, kind: string): void {
    if (kind !== 'Namespace') setAt(root, ['metadata', 'name'], this.nameExpr(raw.metadata && isObject(raw.metadata) ? String(raw.metadata.name) : ''));
    const labels = nodeAt(root, ['metadata', 'labels']);
    const own = isObject(get(raw, 'metadata', 'labels')) ? Object.keys(get(raw, 'metadata', 'labels') as JsonObject) : [];
    const clash = HELM_LABELS.filter((l) => own.includes(l));
    // The object's own value of a conventional label wins over the chart's.
    const raw1 = clash.length
      ? `omit (include ${this.tpl('labels')} $ | fromYaml) ${clash.map(goString).join(' ')} | toYaml`
      : `include ${this.tpl('labels')} $`;
    if (isTMap(labels)) labels.entries.push({ raw: raw1 });
    else setAt(root, ['metadata', 'labels'], new TMap([{ raw: raw1 }]));
  }

  /** References to objects of this chart follow their prefixed names. */
  private applyReferences(root: TMap, o: KObject): void {
    const ns = o.namespace;
    const ref = (path: Path, kind: string, refNs: string | undefined = ns) => {
      const v = nodeAt(root, path);
      if (typeof v !== 'string' || !this.names.has(this.nameKey(kind, refNs, v))) return;
      setAt(root, path, this.nameExpr(v));
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
    if (o.kind === 'HorizontalPodAutoscaler') {
      const k = get(o.raw, 'spec', 'scaleTargetRef', 'kind');
      if (typeof k === 'string') ref(['spec', 'scaleTargetRef', 'name'], k);
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
        if (isObject(subj) && subj.kind === 'ServiceAccount') ref(['subjects', i, 'name'], 'ServiceAccount', typeof subj.namespace === 'string' ? subj.namespace : ns);
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
        setAt(root, [...cp, 'image'], expr(`{{ include ${this.tpl('image')} ${c.ref}.image | toJson }}`));
        setAt(root, [...cp, 'imagePullPolicy'], expr(`{{ ${c.ref}.image.pullPolicy | toJson }}`), `${c.ref}.image.pullPolicy`);
      }
      setAt(root, [...cp, 'resources'], block(`${c.ref}.resources`), c.resourcesEmptyWritten ? undefined : `${c.ref}.resources`);
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
    if (plan.mesh.linkerdShutdownGrace) {
      const before = plan.mesh.linkerdShutdownGrace.native ? `(add ${pre} ${drain})` : stay;
      setAt(root, [...ann, LINKERD.shutdownGracePeriod], expr(`{{ printf "%ds" (max (sub (int $w.terminationGracePeriodSeconds) (add ${before} ${GRACE_MARGIN_SECONDS})) 1) | toJson }}`));
    }
    if (plan.mesh.istioDrain) {
      setAt(root, [...ann, ISTIO.proxyConfig], expr(`{{ printf ${fmt(plan.mesh.istioDrain.before, plan.mesh.istioDrain.after)} ${stay} | toJson }}`));
    }
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

  private applyPdb(root: TMap): void {
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
    this.applyPdb(root);
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
    const lines = [
      `{{/* Generated by kubegrace from synthesized manifests. */}}`,
      '',
      `{{/* An object name: the synthesized name with .Values.namePrefix. Called with (list $ "name"). */}}`,
      `{{- define ${goString(`${c}.name`)} -}}`,
      `{{- $root := index . 0 -}}`,
      `{{- printf "%s%s" ($root.Values.namePrefix | default "") (index . 1) -}}`,
      `{{- end -}}`,
      '',
      `{{/* Labels every object gets in metadata.labels (never in selectors: those are immutable). */}}`,
      `{{- define ${goString(`${c}.labels`)} -}}`,
      `helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}`,
      `app.kubernetes.io/managed-by: {{ .Release.Service | quote }}`,
      `app.kubernetes.io/instance: {{ .Release.Name | quote }}`,
      `app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}`,
      `{{- end -}}`,
      '',
      `{{/* An image reference from {repository, tag, digest}. */}}`,
      `{{- define ${goString(`${c}.image`)} -}}`,
      `{{- .repository -}}`,
      `{{- with .tag }}:{{ . }}{{ end -}}`,
      `{{- with .digest }}@{{ . }}{{ end -}}`,
      `{{- end -}}`,
    ];
    for (const plan of this.a.workloads) {
      lines.push(
        '',
        `{{/* ${plan.what}: the longest preStop delay of its main containers, in seconds. */}}`,
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
    return out.join('\n') + '\n';
  }

  private guard(plan: WorkloadPlan): string[] {
    const p = `workloads.${plan.key}`;
    const head = `kubegrace guard: ${plan.what}: `;
    const lines: string[] = [
      `{{- define ${this.tpl(`guards.${plan.key}`)} -}}`,
      `{{- $w := index .Values.workloads ${goString(plan.key)} -}}`,
      `{{- $grace := int $w.terminationGracePeriodSeconds -}}`,
      `{{- $pre := include ${this.tpl(`preStopSeconds.${plan.key}`)} . | int -}}`,
      `{{- $drain := ${plan.drain.knob ? 'int $w.drainSeconds' : String(Math.ceil(plan.drain.constant))} -}}`,
      `{{- $need := add $pre $drain ${plan.addend} -}}`,
    ];
    const f = (format: string, ...args: string[]) => `{{- fail (printf ${goString(head + format)}${args.map((a) => ` ${a}`).join('')}) -}}`;
    const preStopFix = plan.preStop ? ` or lower ${p}.preStop.delaySeconds` : ' or shorten the preStop hook';
    const addendText = plan.addendParts.map((x) => ` + ${x}`).join('').replace(/%/g, '%%');
    // grace-period-budget: without a hook, the budget counts only when the drain time is declared.
    const judged = plan.drain.declared || plan.fixedPreStops.length ? 'true' : plan.drain.knob ? `(or (gt $pre 0) (ne $drain ${DEFAULT_DRAIN_SECONDS}))` : '(gt $pre 0)';
    lines.push(
      `{{- if and (gt $pre 0) (ge $pre $grace) -}}`,
      f(
        `preStop delay %ds >= terminationGracePeriodSeconds %ds, so the kubelet would leave the app only ${MINIMUM_GRACE_AFTER_HOOK}s between SIGTERM and SIGKILL; raise ${p}.terminationGracePeriodSeconds to at least %d (preStop + drain${addendText} + ${GRACE_MARGIN_SECONDS}s margin)${preStopFix}`,
        '$pre',
        '$grace',
        `(add $need ${GRACE_MARGIN_SECONDS})`,
      ),
      `{{- else if and ${judged} (gt $need $grace) -}}`,
      f(
        `preStop %ds + drain %ds${addendText} = %ds exceeds terminationGracePeriodSeconds %ds, so in-flight work would be killed at the deadline; raise ${p}.terminationGracePeriodSeconds to at least %d (with a ${GRACE_MARGIN_SECONDS}s margin)${preStopFix}${plan.drain.knob ? ` or ${p}.drainSeconds` : ''}`,
        '$pre',
        '$drain',
        '$need',
        '$grace',
        `(add $need ${GRACE_MARGIN_SECONDS})`,
      ),
      `{{- end -}}`,
    );
    if (plan.mesh.linkerdWait) {
      lines.push(
        `{{- $stay := add $pre (max $drain 1) -}}`,
        `{{- if ge $stay $grace -}}`,
        f(
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
        f(
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
        f(
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
    lines.push('{{- end -}}');
    return lines;
  }

  notes(): string {
    const out: string[] = [
      '{{ .Chart.Name }} {{ .Chart.Version }} is installed as release {{ .Release.Name }}.',
      'Its values passed the kubegrace guards (termination budget, rollout, disruption budget).',
    ];
    for (const plan of this.a.workloads) {
      const resource = `${plan.kind.toLowerCase()}/{{ include ${this.tpl('name')} (list $ ${goString(plan.name)}) }}`;
      const nsFlag = plan.namespace ? `--namespace ${plan.namespace}` : '--namespace {{ .Release.Namespace }}';
      const timeout = plan.kind === 'Deployment' ? ' --timeout {{ add (int .progressDeadlineSeconds) 60 }}s' : '';
      const drain = plan.drain.knob ? '{{ int .drainSeconds }}' : String(plan.drain.constant);
      const drainSum = plan.drain.knob ? '(int .drainSeconds)' : String(Math.ceil(plan.drain.constant));
      const pre = `(include ${this.tpl(`preStopSeconds.${plan.key}`)} $ | int)`;
      out.push(
        '',
        `{{- with index .Values.workloads ${goString(plan.key)} }}`,
        '',
        `${plan.what}`,
        `  Watch the rollout:   kubectl ${nsFlag} rollout status ${resource}${timeout}`,
        `  Termination budget:  preStop {{ ${pre} }}s + drain ${drain}s${plan.addendParts.map((x) => ` + ${x}`).join('')} = {{ add ${pre} ${drainSum} ${plan.addend} }}s of terminationGracePeriodSeconds {{ int .terminationGracePeriodSeconds }}s`,
      );
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
