import { IntOrPercent, parseIntOrPercent } from './intstr';
import { indexKey, Labels, matches, parseLabelSelector, parseMapSelector, Selector, stringMap } from './selector';
import { isObject, Json, KObject } from './types';
import { ContainerPort, ContainerView, enumOr, get, helmRendered, num, Workload, workloadOf } from './workload';
import { namedListenPort } from './listen-ports';

export interface ServicePort {
  name?: string;
  port?: number;
  /** targetPort as written, or the port number when absent, 0 or "" (the API's defaults). */
  targetPort: number | string | undefined;
  protocol: string;
  index: number;
}

export interface ServiceView {
  obj: KObject;
  selector: Selector;
  ports: ServicePort[];
  type: string;
  headless: boolean;
  publishNotReadyAddresses: boolean;
  externalTrafficPolicy?: string;
  annotations: Labels;
  /** Every port looks like a metrics endpoint (scraped, not user traffic). */
  metricsOnly: boolean;
}

export interface PdbView {
  obj: KObject;
  selector: Selector;
  selectorRaw: Json | undefined;
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  unhealthyPodEvictionPolicy?: string;
}

export interface HpaView {
  obj: KObject;
  targetKind?: string;
  targetName?: string;
  minReplicas: number;
  minReplicasSet: boolean;
  maxReplicas?: number;
}

export interface ClaimMount {
  volumeName: string;
  claimName: string;
  /** Pointer of the volume entry, relative to the workload object. */
  pointer: string;
  pvc?: KObject;
  accessModes: string[];
}

/** A container port that a Service routes to, with the Service and port that do. */
export interface ServedPort {
  service: ServiceView;
  servicePort: ServicePort;
  container: ContainerView;
  containerPort?: ContainerPort;
  /**
   * How the container was found for a numeric targetPort that no container declares, in a pod of
   * several main containers (undefined when a container declares the port, or the pod has one main
   * container): `config`, its own env or args name the port (`evidence`: `env WEBHOOK_SERVER_PORT=9443`);
   * `guess`, nothing names it and resolveTargetPort ranked the candidates: the container may be the
   * wrong one, so findings say "probably" and repairs on it are proposals (guessedContainer in traffic.ts).
   */
  pick?: { by: 'config'; evidence: string } | { by: 'guess' };
}

/**
 * Port names that mark metrics endpoints (scraped, not user traffic): the words as a part of the
 * name (`http-metrics`, `prom_port`, redis-ha's `http-exporter-port`), "metrics" also at the end of one (Kong's `cmetrics`).
 */
export const METRICS_PORT = /(^|[-_])(prometheus|prom|monitor|monitoring|telemetry|exporter)($|[-_])|metrics($|[-_])/i;

/**
 * Whether a Service routes to a workload's pods (graceful-termination.md section 0):
 * - `served`: the `kubegrace.dev/served: "true"` hint, or a traffic Service in the set selects the pods;
 * - `unserved`: the hint says `"false"`, or the set holds Services in the workload's namespace and none
 *   of them routes user traffic to it (a whole chart or app was linted: its Services are there);
 * - `unknown`: no hint and no Service in the namespace (one file per object, the common app-repo layout).
 * Rules that judge the consistency of configured values ignore it; rules that advise adding something
 * for traffic stay silent on `unserved` and decide `unknown` explicitly (see likelyServed in traffic.ts).
 */
export type ServedState = 'served' | 'unserved' | 'unknown';

export const HINT = {
  served: 'kubegrace.dev/served',
  drainSeconds: 'kubegrace.dev/drain-seconds',
  servesAfterSigterm: 'kubegrace.dev/serves-after-sigterm-seconds',
  connectionPattern: 'kubegrace.dev/connection-pattern',
  reconnectProbability: 'kubegrace.dev/reconnect-probability',
  reconnectBackoff: 'kubegrace.dev/reconnect-backoff',
  ignore: 'kubegrace.dev/ignore',
  ignoreReason: 'kubegrace.dev/ignore-reason',
} as const;

function nsKey(ns: string | undefined, name: string): string {
  return `${ns ?? ''}/${name}`;
}

/** Index of pod templates by namespace and label pair, so selectors find candidates quickly. */
class TemplateIndex {
  private byNs = new Map<string, { all: Workload[]; byLabel: Map<string, Workload[]> }>();
  add(w: Workload): void {
    const ns = w.obj.namespace ?? '';
    let e = this.byNs.get(ns);
    if (!e) this.byNs.set(ns, (e = { all: [], byLabel: new Map() }));
    e.all.push(w);
    for (const [k, v] of Object.entries(w.templateLabels)) {
      const key = `${k}=${v}`;
      let l = e.byLabel.get(key);
      if (!l) e.byLabel.set(key, (l = []));
      l.push(w);
    }
  }
  select(ns: string | undefined, sel: Selector): Workload[] {
    const e = this.byNs.get(ns ?? '');
    if (!e) return [];
    const key = indexKey(sel);
    const candidates = key ? (e.byLabel.get(key) ?? []) : e.all;
    return candidates.filter((w) => matches(sel, w.templateLabels));
  }
}

/** The target Kubernetes version (engine/version.ts KubeVersion), as far as the graph needs it. */
export interface TargetVersion {
  atLeast(major: number, minor: number): boolean;
}

/**
 * The HorizontalPodAutoscaler API versions the API server stops serving, and from which 1.x minor
 * (kubernetes/website content/en/docs/reference/using-api/deprecation-guide.md: "The autoscaling/v2beta1
 * API version of HorizontalPodAutoscaler is no longer served as of v1.25", "The autoscaling/v2beta2 ... as of v1.26").
 */
const HPA_REMOVED_IN: Readonly<Record<string, number>> = { 'autoscaling/v2beta1': 25, 'autoscaling/v2beta2': 26 };

/**
 * "1.25" when `version`'s API server no longer serves this HorizontalPodAutoscaler's apiVersion:
 * applying it fails, so the HPA never exists and scales nothing. Not for an object of a Helm render
 * (helmRendered: the chart may choose the version by the cluster's API versions, which helm template
 * does not know), as rollout-util's budgetProblem for a policy/v1beta1 budget.
 */
export function hpaNotServed(o: KObject, version: TargetVersion | undefined): string | undefined {
  const minor = HPA_REMOVED_IN[o.apiVersion];
  if (!version || minor === undefined || o.kind !== 'HorizontalPodAutoscaler' || !version.atLeast(1, minor) || helmRendered(o)) return undefined;
  return `1.${minor}`;
}

/**
 * The object graph: which Services, PDBs and HPAs select or target which pod templates, and
 * which claims a template mounts. Built once per run; relations are precomputed.
 */
export class ObjectGraph {
  readonly workloads: Workload[] = [];
  /** Workloads managed by another object in the input (e.g. ReplicaSets of a Deployment). */
  readonly ownedWorkloads: Workload[] = [];
  readonly services: ServiceView[] = [];
  readonly pdbs: PdbView[] = [];
  readonly hpas: HpaView[] = [];
  readonly namespaces = new Map<string, KObject>();
  private readonly pvcs = new Map<string, KObject>();
  private readonly svcToWl = new Map<ServiceView, Workload[]>();
  private readonly wlToSvc = new Map<Workload, ServiceView[]>();
  private readonly pdbToWl = new Map<PdbView, Workload[]>();
  private readonly wlToPdb = new Map<Workload, PdbView[]>();
  private readonly wlToHpa = new Map<Workload, HpaView>();
  private readonly index = new TemplateIndex();
  private readonly byKind = new Map<string, KObject[]>();
  /** Namespaces that hold at least one Service in the input. */
  private readonly serviceNamespaces = new Set<string>();
  // Name and namespace indexes, so that rules never scan every Service or PDB per workload.
  private readonly servicesByNs = new Map<string, ServiceView[]>();
  private readonly serviceByName = new Map<string, ServiceView>();
  private readonly pdbByName = new Map<string, PdbView>();
  /** The workload view of each workload object (owned ones included), so nothing builds it twice. */
  private readonly workloadByObject = new Map<KObject, Workload>();
  /** Per-run memos of derived facts (see memo). */
  private readonly memos = new Map<object, Map<object, unknown>>();

  /**
   * `version`: the target Kubernetes version; with it, an HPA of an apiVersion that version no longer
   * serves (hpaNotServed) targets nothing (hpa-replicas reports it).
   */
  constructor(
    readonly objects: KObject[],
    opts: { version?: TargetVersion } = {},
  ) {
    for (const o of objects) {
      let k = this.byKind.get(o.kind);
      if (!k) this.byKind.set(o.kind, (k = []));
      k.push(o);
      const w = workloadOf(o);
      if (w) {
        this.workloadByObject.set(o, w);
        if (w.ownedBy) this.ownedWorkloads.push(w);
        else {
          this.workloads.push(w);
          this.index.add(w);
        }
        continue;
      }
      switch (o.kind) {
        case 'Service':
          this.services.push(serviceView(o));
          this.serviceNamespaces.add(o.namespace ?? '');
          break;
        case 'PodDisruptionBudget':
          this.pdbs.push(pdbView(o));
          break;
        case 'HorizontalPodAutoscaler':
          if (!hpaNotServed(o, opts.version)) this.hpas.push(hpaView(o));
          break;
        case 'PersistentVolumeClaim':
          this.pvcs.set(nsKey(o.namespace, o.name), o);
          break;
        case 'Namespace':
          this.namespaces.set(o.name, o);
          break;
      }
    }
    for (const sv of this.services) {
      const ns = sv.obj.namespace ?? '';
      let l = this.servicesByNs.get(ns);
      if (!l) this.servicesByNs.set(ns, (l = []));
      l.push(sv);
      const k = nsKey(sv.obj.namespace, sv.obj.name);
      if (!this.serviceByName.has(k)) this.serviceByName.set(k, sv);
    }
    for (const p of this.pdbs) {
      const k = nsKey(p.obj.namespace, p.obj.name);
      if (!this.pdbByName.has(k)) this.pdbByName.set(k, p);
    }
    for (const w of this.workloads) {
      this.wlToSvc.set(w, []);
      this.wlToPdb.set(w, []);
    }
    for (const s of this.services) {
      const ws = this.index.select(s.obj.namespace, s.selector);
      this.svcToWl.set(s, ws);
      for (const w of ws) this.wlToSvc.get(w)!.push(s);
    }
    for (const p of this.pdbs) {
      const ws = this.index.select(p.obj.namespace, p.selector);
      this.pdbToWl.set(p, ws);
      for (const w of ws) this.wlToPdb.get(w)!.push(p);
    }
    // HPA targets by name (only when the set has HPAs), the kind as the HPA controller resolves it
    // (scaleTargetKindIs: the kind or its all-lower-case form).
    const byName = new Map<string, Workload>();
    if (this.hpas.length) for (const w of this.workloads) byName.set(`${w.obj.namespace}/${w.kind.toLowerCase()}/${w.obj.name}`, w);
    for (const h of this.hpas) {
      const w = byName.get(`${h.obj.namespace}/${h.targetKind?.toLowerCase()}/${h.targetName}`);
      if (w && scaleTargetKindIs(h.targetKind, w.kind) && !this.wlToHpa.has(w)) this.wlToHpa.set(w, h);
    }
  }

  /**
   * The workload view of an object of this graph (undefined for other kinds), the same object the
   * graph's relations use.
   */
  workloadOfObject(o: KObject): Workload | undefined {
    return this.workloadByObject.get(o);
  }

  /**
   * A fact derived from this graph and `key` (a workload, a container view, ...), computed once per
   * graph: the graph lives for one lint run, so nothing leaks between runs. `slot` names the fact
   * (the function that computes it). Callers must not mutate what it returns.
   */
  memo<K extends object, T>(slot: object, key: K, compute: (key: K) => T): T {
    let m = this.memos.get(slot);
    if (!m) this.memos.set(slot, (m = new Map()));
    let v = m.get(key) as T | undefined;
    if (v === undefined && !m.has(key)) {
      v = compute(key);
      m.set(key, v);
    }
    return v as T;
  }

  /** Objects of a kind by namespace (`namespace ?? ''`), built on first use per kind. */
  private readonly byKindNs = new Map<string, Map<string, KObject[]>>();
  /** Workloads (not owned ones) by namespace, built on first use. */
  private workloadsByNs: Map<string, Workload[]> | undefined;
  /** Namespaces holding a workload or an owned workload, built on first use. */
  private workloadNamespaces: Set<string> | undefined;

  /** The objects of a kind in a namespace (`undefined` and `''` alike), in input order: an index, not a scan. */
  ofKindIn(kind: string, namespace: string | undefined): readonly KObject[] {
    let m = this.byKindNs.get(kind);
    if (!m) {
      this.byKindNs.set(kind, (m = new Map()));
      for (const o of this.ofKind(kind)) {
        const ns = o.namespace ?? '';
        let l = m.get(ns);
        if (!l) m.set(ns, (l = []));
        l.push(o);
      }
    }
    return m.get(namespace ?? '') ?? [];
  }

  /** The workloads (not owned ones) of a namespace (`undefined` and `''` alike), in input order. */
  workloadsIn(namespace: string | undefined): readonly Workload[] {
    if (!this.workloadsByNs) {
      this.workloadsByNs = new Map();
      for (const w of this.workloads) {
        const ns = w.obj.namespace ?? '';
        let l = this.workloadsByNs.get(ns);
        if (!l) this.workloadsByNs.set(ns, (l = []));
        l.push(w);
      }
    }
    return this.workloadsByNs.get(namespace ?? '') ?? [];
  }

  /** Owned workloads by namespace and label, built on first use. */
  private ownedIndex: TemplateIndex | undefined;

  /**
   * The owned workloads of a namespace whose pod labels `sel` matches: the Pods and ReplicaSets of
   * a dump (`kubectl get pods,svc -o yaml`), whether their controller is in the input or not.
   * Owned workloads are not judged (their controller is what to fix), but they are pods a Service
   * or a budget selects.
   */
  ownedSelected(namespace: string | undefined, sel: Selector): Workload[] {
    if (!this.ownedIndex) {
      this.ownedIndex = new TemplateIndex();
      for (const w of this.ownedWorkloads) this.ownedIndex.add(w);
    }
    return this.ownedIndex.select(namespace, sel);
  }

  /** Whether a namespace (`undefined` and `''` alike) holds a workload or an owned workload. */
  hasWorkloadsIn(namespace: string | undefined): boolean {
    if (!this.workloadNamespaces) {
      this.workloadNamespaces = new Set();
      for (const w of this.workloads) this.workloadNamespaces.add(w.obj.namespace ?? '');
      for (const w of this.ownedWorkloads) this.workloadNamespaces.add(w.obj.namespace ?? '');
    }
    return this.workloadNamespaces.has(namespace ?? '');
  }

  /** Every object of a kind, in input order (an index: rules must not scan all objects per workload). */
  ofKind(kind: string): readonly KObject[] {
    return this.byKind.get(kind) ?? [];
  }

  /** The Services of a namespace, in input order. */
  servicesIn(namespace: string | undefined): readonly ServiceView[] {
    return this.servicesByNs.get(namespace ?? '') ?? [];
  }
  /** The (first) Service with this name in the namespace. */
  serviceNamed(namespace: string | undefined, name: string): ServiceView | undefined {
    return this.serviceByName.get(nsKey(namespace, name));
  }
  /** The (first) PodDisruptionBudget with this name in the namespace. */
  pdbNamed(namespace: string | undefined, name: string): PdbView | undefined {
    return this.pdbByName.get(nsKey(namespace, name));
  }

  servicesFor(w: Workload): ServiceView[] {
    return this.wlToSvc.get(w) ?? [];
  }
  workloadsFor(s: ServiceView): Workload[] {
    return this.svcToWl.get(s) ?? [];
  }
  pdbsFor(w: Workload): PdbView[] {
    return this.wlToPdb.get(w) ?? [];
  }
  workloadsForPdb(p: PdbView): Workload[] {
    return this.pdbToWl.get(p) ?? [];
  }
  hpaFor(w: Workload): HpaView | undefined {
    return this.wlToHpa.get(w);
  }
  pvc(namespace: string | undefined, name: string): KObject | undefined {
    return this.pvcs.get(nsKey(namespace, name));
  }
  namespace(name: string | undefined): KObject | undefined {
    return name === undefined ? undefined : this.namespaces.get(name);
  }

  /** Services that carry user traffic to the workload (metrics-only Services excluded). */
  trafficServices(w: Workload): ServiceView[] {
    return this.trafficServicesOf(w).slice();
  }
  private trafficServicesOf(w: Workload): readonly ServiceView[] {
    let l = this.trafficServiceLists.get(w);
    // (A Service on port 80 or 443 of a web server in the pod serves clients, whatever its ports are
    // named, as does a metrics-named port of a program whose API is there, portProgram, and a port an
    // Ingress or route sends traffic to: routedPort.)
    if (!l) {
      const programs = [...new Set(w.containers.map((c) => portProgram(c)).filter((x) => x !== undefined))];
      l = this.servicesFor(w).filter((s) => !s.metricsOnly || s.ports.some((p) => this.routedPort(s, p) || programs.some((k) => !notClientPort(p, undefined, k))));
      this.trafficServiceLists.set(w, l);
    }
    return l;
  }
  private readonly trafficServiceLists = new Map<Workload, ServiceView[]>();

  /**
   * Whether an Ingress or a route sends traffic to this port of the Service: then it carries client
   * traffic, whatever it is named (plane's admin UI, Service port `admin-3000`, which a Traefik
   * IngressRoute routes /god-mode to; review round 25). Read: Ingress backends in the Service's
   * namespace (networking.k8s.io/v1 `service.port.number` or `.name`; v1beta1 `serviceName` and
   * `servicePort`), Gateway API routes' `rules[].backendRefs[]` of kind Service (HTTPRoute, GRPCRoute,
   * TLSRoute, TCPRoute, UDPRoute; `namespace` or the route's, `port` a Service port number) and Traefik
   * IngressRoutes' `routes[].services[]` of kind Service (IngressRoute, IngressRouteTCP,
   * IngressRouteUDP; `port` a number or a Service port name).
   */
  routedPort(s: ServiceView, sp: ServicePort): boolean {
    // (A Service rendered without a namespace, as `helm template` leaves it, is matched by name alone:
    // the chart's routes name the release namespace; review round 27, opa-kube-mgmt.)
    const ns = get(s.obj.raw, 'metadata', 'namespace');
    const ports = this.routedPorts().get(typeof ns === 'string' && ns !== '' ? `${ns}/${s.obj.name}` : `*/${s.obj.name}`);
    if (!ports) return false;
    return (sp.port !== undefined && ports.has(`#${sp.port}`)) || (sp.name !== undefined && ports.has(`:${sp.name}`));
  }
  private routedPorts(): Map<string, Set<string>> {
    if (this.routed) return this.routed;
    const m = new Map<string, Set<string>>();
    const add = (ns: string | undefined, name: Json | undefined, port: Json | undefined) => {
      if (typeof name !== 'string' || (typeof port !== 'number' && typeof port !== 'string')) return;
      for (const key of [`${ns ?? ''}/${name}`, `*/${name}`]) {
        let set = m.get(key);
        if (!set) m.set(key, (set = new Set()));
        set.add(typeof port === 'number' ? `#${port}` : `:${port}`);
      }
    };
    const isService = (ref: Json | undefined) => {
      const kind = get(ref, 'kind');
      const group = get(ref, 'group');
      return (kind === undefined || kind === 'Service') && (group === undefined || group === '');
    };
    for (const o of this.ofKind('Ingress')) {
      const backend = (b: Json | undefined) => {
        if (isObject(get(b, 'service'))) add(o.namespace, get(b, 'service', 'name'), get(b, 'service', 'port', 'number') ?? get(b, 'service', 'port', 'name'));
        else add(o.namespace, get(b, 'serviceName'), get(b, 'servicePort'));
      };
      backend(get(o.raw, 'spec', 'defaultBackend'));
      backend(get(o.raw, 'spec', 'backend'));
      const rules = get(o.raw, 'spec', 'rules');
      for (const r of Array.isArray(rules) ? rules : []) {
        const paths = get(r, 'http', 'paths');
        for (const x of Array.isArray(paths) ? paths : []) backend(get(x, 'backend'));
      }
    }
    // Gateway API routes (rules[].backendRefs[]) and Traefik's IngressRoutes (routes[].services[]):
    // backends of kind Service, in their own namespace field or the route's.
    const routeKinds = [
      { kinds: ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'], api: 'gateway.networking.k8s.io/', list: 'rules', refs: 'backendRefs' },
      { kinds: ['IngressRoute', 'IngressRouteTCP', 'IngressRouteUDP'], api: 'traefik.', list: 'routes', refs: 'services' },
    ];
    for (const rk of routeKinds) {
      for (const o of rk.kinds.flatMap((k) => this.ofKind(k))) {
        if (!o.apiVersion.startsWith(rk.api)) continue;
        const list = get(o.raw, 'spec', rk.list);
        for (const r of Array.isArray(list) ? list : []) {
          const refs = get(r, rk.refs);
          for (const b of Array.isArray(refs) ? refs : []) {
            const ns = get(b, 'namespace');
            if (isService(b)) add(typeof ns === 'string' ? ns : o.namespace, get(b, 'name'), get(b, 'port'));
          }
        }
      }
    }
    return (this.routed = m);
  }
  private routed: Map<string, Set<string>> | undefined;

  /** The `kubegrace.dev/served` hint: true, false, or undefined when absent. */
  servedHint(w: Workload): boolean | undefined {
    const v = w.annotations[HINT.served];
    if (v === undefined) return undefined;
    return v.trim().toLowerCase() === 'true';
  }

  /** Served, unserved or unknown (see ServedState): the hint wins, then the Services in the set. */
  servedState(w: Workload): ServedState {
    let s = this.servedStates.get(w);
    if (s === undefined) this.servedStates.set(w, (s = this.computeServedState(w)));
    return s;
  }
  private readonly servedStates = new Map<Workload, ServedState>();
  private computeServedState(w: Workload): ServedState {
    const hint = this.servedHint(w);
    if (hint !== undefined) return hint ? 'served' : 'unserved';
    if (this.trafficServicesOf(w).length > 0) return 'served';
    return this.serviceNamespaces.has(w.obj.namespace ?? '') ? 'unserved' : 'unknown';
  }

  /**
   * Which containers receive Service traffic, and through which ports, from the Services in the set
   * (none when the hint says the workload is unserved).
   */
  servedPorts(w: Workload): ServedPort[] {
    return this.servedPortsOf(w).slice();
  }
  /** servedPorts, computed once per workload (not to be mutated). */
  servedPortsOf(w: Workload): readonly ServedPort[] {
    let l = this.servedPortLists.get(w);
    if (!l) this.servedPortLists.set(w, (l = this.computeServedPorts(w)));
    return l;
  }
  private readonly servedPortLists = new Map<Workload, ServedPort[]>();
  private computeServedPorts(w: Workload): ServedPort[] {
    if (this.servedHint(w) === false) return [];
    const out: ServedPort[] = [];
    const candidates = [...w.containers, ...w.sidecars];
    for (const s of this.trafficServicesOf(w)) {
      for (const sp of s.ports) {
        const hit = resolveTargetPort(candidates, w.containers, sp, w.obj.name);
        // A headless Service maps no ports: an undeclared port on it that nothing names is no evidence that any
        // container listens there (the NATS chart's leafnodes and gateways ports, open only when configured:
        // a guess put them on its config reloader; review round 12).
        if (hit && s.headless && hit.pick?.by === 'guess') continue;
        // Nor is it when the container it falls to (the lone main container) declares its ports and not
        // this one, and neither names it in its env or args nor probes it: its manifest lists what it
        // listens on (the vector chart's headless Service lists the Aggregator's source ports for every
        // role, and the Agent's container declares only 9090; review round 32, report p34).
        if (hit && s.headless && undeclaredOnDeclaringContainer(hit, sp, w.containers)) continue;
        if (hit) out.push({ service: s, servicePort: sp, container: hit.container, containerPort: hit.port, ...(hit.pick && { pick: hit.pick }) });
      }
    }
    return out;
  }

  /** Containers that serve traffic (deduplicated, in declaration order); see trafficContainers for the refined view. */
  servedContainers(w: Workload): ContainerView[] {
    return this.memo(ObjectGraph.prototype.servedContainers, w, (x) => this.computeServedContainers(x)).slice();
  }
  private computeServedContainers(w: Workload): ContainerView[] {
    const state = this.servedState(w);
    if (state === 'unserved') return [];
    const fromServices = new Set(this.servedPortsOf(w).map((p) => p.container));
    if (fromServices.size === 0 && this.trafficServicesOf(w).length === 0) {
      const withPorts = declaredTrafficContainers(w);
      // Served by hint alone: the containers that declare ports, else a lone main container.
      if (state === 'served' && !withPorts.length && w.containers.length === 1) return [w.containers[0]];
      return withPorts;
    }
    return [...w.containers, ...w.sidecars].filter((c) => fromServices.has(c));
  }

  /** Replicas to reason with: spec.replicas, or HPA minReplicas when the HPA owns the count. */
  effectiveReplicas(w: Workload): number | undefined {
    const h = this.hpaFor(w);
    if (h) return h.minReplicas;
    return w.replicas;
  }

  claimsOf(w: Workload): ClaimMount[] {
    const vols = w.podSpec.volumes;
    if (!Array.isArray(vols)) return [];
    const out: ClaimMount[] = [];
    vols.forEach((v, i) => {
      const claimName = get(v, 'persistentVolumeClaim', 'claimName');
      if (!isObject(v) || typeof claimName !== 'string') return;
      const pvc = this.pvc(w.obj.namespace, claimName);
      const modes = get(pvc?.raw, 'spec', 'accessModes');
      out.push({
        volumeName: typeof v.name === 'string' ? v.name : `#${i}`,
        claimName,
        pointer: `${w.podSpecPointer}/volumes/${i}`,
        pvc,
        accessModes: Array.isArray(modes) ? modes.filter((m): m is string => typeof m === 'string') : [],
      });
    });
    return out;
  }
}

/**
 * Containers (main, then native sidecars) that declare a TCP port not named like a metrics or operator
 * port: the evidence for traffic when no Service in the set says which ports are routed.
 */
export function declaredTrafficContainers(w: Workload): ContainerView[] {
  return [...w.containers, ...w.sidecars].filter((c) => !MESH_PROXY.has(c.name) && trafficEvidencePorts(c).length > 0);
}

/**
 * Port names of cluster-membership gossip, as a part of the name: memberlist (Loki, Mimir, Tempo:
 * http-memberlist, tcp-gossip-ring), Serf (Consul's serflan-tcp, serfwan), "gossip", and
 * Alertmanager's cluster port (--cluster.listen-address, 9094, memberlist underneath), by the names
 * its manifests give it: clusterpeer-tcp/-udp (prometheus-community/helm-charts alertmanager
 * StatefulSet), cluster-tcp/-udp (its headless Service), tcp-mesh/udp-mesh (prometheus-operator's
 * alertmanager-operated Service), and cluster-tcp-18300 / cluster-udp-18301 (NeuVector's controllers, whose
 * embedded Consul joins its peers through the headless Service; review round 22), and ringpop's membership port
 * (Temporal's `membership` ports 6933-6936 and 6939, the chart's headless Services' `grpc-membership`: each
 * server role upserts its POD_IP into the cluster_membership table and bootstraps ringpop from the
 * hosts it reads there, not from DNS: temporalio/temporal @01d2be67 common/membership/ringpop/monitor.go
 * startHeartbeat, fetchCurrentBootstrapHostports; temporalio/helm-charts @e51b7344
 * charts/temporal/templates/server-service.yaml: "only the monitoring port is used for discovery
 * (by prometheus)"; review round 25). Whole names for cluster-tcp and tcp-mesh: "cluster" and "mesh"
 * alone are too broad (NATS's route port, a service mesh's ports).
 */
const GOSSIP_PORT = /(^|[-_])(gossip|memberlist|membership|ringpop|serf|serflan|serfwan|clusterpeer)($|[-_])|^cluster-(tcp|udp)(-\d+)?$|^(tcp|udp)-mesh$/i;

/** Web servers and proxies: a program that serves clients on the web's ports, never only scrapes. */
const WEB_SERVER_IMAGE = /(^|\/)(nginx|nginx-unprivileged|openresty|envoy|haproxy|traefik|caddy|httpd)$/;

/** Whether the image (repository without registry, tag or digest) is a web server or proxy (WEB_SERVER_IMAGE). */
export function webServerImage(image: string): boolean {
  return WEB_SERVER_IMAGE.test(imageRepo(image));
}

function imageRepo(image: string): string {
  return image.trim().toLowerCase().replace(/@.*$/, '').replace(/:[^/]*$/, '');
}

/**
 * Programs whose one HTTP server is on a port their manifests name like a metrics port: Grafana
 * Loki, Mimir and Tempo, Cortex (their ancestor) and Grafana's enterprise builds of them. Each runs
 * dskit's single HTTP server (`-server.http-listen-port`) for its APIs and /metrics together, and the
 * charts name that port `http-metrics` (grafana/loki production/helm/loki, grafana/mimir
 * operations/helm/charts/mimir-distributed, grafana/helm-charts tempo-distributed,
 * cortexproject/cortex-helm-chart), Tempo's jsonnet `prom-metrics`. Whether clients use that port
 * depends on the component (`-target`): API_TARGETS. (Loki's and Tempo's gateways are nginx: portProgram
 * `web-server`.)
 */
const API_ON_METRICS_PORT_IMAGE = /(^|\/)(loki|mimir|tempo|cortex|enterprise-logs|enterprise-metrics|enterprise-traces)$/;

/**
 * The components (`-target`) of those programs whose HTTP API clients call, through the chart's
 * gateway or directly: the distributor (remote write, log and OTLP pushes), the query-frontend
 * (queries), the ruler's and the alertmanager's APIs, Loki's compactor (deletes), the single binary
 * (`all`, also the default without -target) and Loki's simple-scalable read, write and backend. Not
 * the ingester, store-gateway, index-gateway, querier (which pulls work from the query-frontend or
 * scheduler over gRPC), compactor of the others, or Tempo 3's block-builder, live-store and backend
 * worker: their HTTP port is scraped, and peers reach them over gRPC through the ring.
 */
const API_TARGETS = new Set(['all', 'distributor', 'query-frontend', 'ruler', 'alertmanager', 'compactor', 'read', 'write', 'backend']);

function strings(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The components a container of those programs runs: its last -target flag's list, undefined without one. */
function dskitTargets(c: ContainerView): string[] | undefined {
  const argv = [...strings(c.raw.command), ...strings(c.raw.args)];
  let targets: string[] | undefined;
  argv.forEach((a, i) => {
    const m = /^--?target(?:=(.*))?$/.exec(a);
    if (m) targets = (m[1] ?? argv[i + 1] ?? '').split(',').map((t) => t.trim());
  });
  return targets;
}

/**
 * Components of those programs that no client reaches through a Service, by program:
 * - ring members, which the distributors and queriers pick from the hash ring (memberlist) and
 *   dial by pod address: the ingester, Mimir's and Cortex's store-gateway, Loki's pattern-ingester,
 *   Tempo's metrics-generator and live-store (Mimir: pkg/distributor/distributor.go, ring.DoBatch;
 *   pkg/querier/blocks_store_replicated_set.go). At SIGTERM the instance leaves the ring (LEAVING),
 *   and the replication factor covers the calls made to it meanwhile;
 * - workers that pull their work: Mimir's, Cortex's and Tempo's querier (from the query-frontend
 *   or scheduler, which it tells it is shutting down: Mimir pkg/querier/worker), Tempo's backend
 *   worker, and the consumers of Kafka (Mimir's block-builder, Tempo's block-builder);
 * - Mimir's and Cortex's query-scheduler, which its clients find by the pod addresses of its
 *   headless Service or the ring and tell they are shutting down (Mimir pkg/scheduler, SHUTTING_DOWN),
 *   their compactor (sharded by the ring, serving nothing) and overrides-exporter (only metrics).
 * Not Loki's querier (its gateway proxies the tail API to the querier Service), index-gateway
 * (queriers may call its Service) or compactor (the delete API).
 */
const PEER_ROUTED_TARGETS: ReadonlyArray<readonly [RegExp, ReadonlySet<string>]> = [
  [/(^|\/)(mimir|enterprise-metrics|cortex)$/, new Set(['ingester', 'store-gateway', 'querier', 'query-scheduler', 'compactor', 'overrides-exporter', 'block-builder', 'block-builder-scheduler'])],
  [/(^|\/)(loki|enterprise-logs)$/, new Set(['ingester', 'pattern-ingester'])],
  [/(^|\/)(tempo|enterprise-traces)$/, new Set(['ingester', 'metrics-generator', 'live-store', 'querier', 'compactor', 'block-builder', 'backend-worker'])],
];

/**
 * The components (PEER_ROUTED_TARGETS) when the container runs only components of its program that
 * no client reaches through a Service, e.g. `ingester`; else undefined (no -target: the single
 * binary, which serves its APIs).
 */
function peerRoutedTargets(c: ContainerView): string[] | undefined {
  const repo = imageRepo(c.image);
  const known = PEER_ROUTED_TARGETS.find(([re]) => re.test(repo))?.[1];
  if (!known) return undefined;
  const targets = dskitTargets(c)?.filter((t) => t !== '');
  return targets?.length && targets.every((t) => known.has(t)) ? targets : undefined;
}

/**
 * Components of Grafana Pyroscope (the grafana/pyroscope image) that no client reaches through a
 * Service, by their `-target` (review round 33, report p44; grafana/pyroscope @3fe6a457a320):
 * - ring members that the callers pick from the hash ring and dial at the address each registered:
 *   the ingester (pkg/distributor/distributor.go:1025 `d.pool.GetClientFor(ingester.Addr)`,
 *   pkg/querier/ingester_querier.go:60, :77), the store-gateway (pkg/querier/store_gateway_querier.go:137,
 *   :153), the segment-writer (pkg/segmentwriter/client/client.go:256-275: the distributor pushes to
 *   the ring instance's Addr and, on a retryable error, to the next one);
 * - the query-scheduler, which Pyroscope always discovers through its ring
 *   (pkg/pyroscope/pyroscope.go:379 `"query-scheduler.service-discovery-mode": ModeRing`;
 *   pkg/scheduler/schedulerdiscovery/ring.go:37-46 registers the instance address);
 * - workers that pull their work: the querier (from the scheduler: pkg/querier/worker/worker.go:112-116),
 *   the compaction-worker (it polls the metastore: pkg/compactionworker/worker.go:253
 *   PollCompactionJobs), and the compactor (sharded by its own ring: pkg/compactor/compactor.go:447-451);
 * - the metastore, a raft group whose clients keep one gRPC connection per server, at the address
 *   resolved from its headless Service's endpoints, and follow the leader
 *   (pkg/metastore/client/client.go:57-70, :146-160; the chart's -metastore.address=kubernetes:///…-metastore-headless);
 * - the query-backend, which the query-frontend reaches by gRPC round_robin over the headless
 *   Service's DNS, with waitForReady and up to 500 attempts on UNAVAILABLE
 *   (pkg/querybackend/client/client.go:31-43, :54-71; the chart's -query-backend.address=dns:///_grpc._tcp.…-query-backend-headless).
 * Not the distributor, query-frontend, tenant-settings, ad-hoc-profiles or admin (the chart's
 * ingress and UI reach them through their Services), nor the single binary (`all`, the default).
 *
 * Unlike PEER_ROUTED_TARGETS these do not make the workload unserved: only the endpoint-removal race
 * of prestop-missing is judged absent (traffic.ts removedPortsOf). Their peers are clients all the
 * same, and the spread, budget and rollout rules keep judging them: Pyroscope forces
 * distributor.replication-factor=1 (pyroscope.go:378) and the metastore is a raft quorum, so a node
 * that holds every ingester, segment-writer or metastore replica is the loss replicas-not-spread
 * warns about (an exemption of the whole workload silenced it: see the reverted Hazelcast one).
 */
const PEER_DIALED_TARGETS: ReadonlyArray<readonly [RegExp, ReadonlySet<string>]> = [
  [/(^|\/)pyroscope$/, new Set(['ingester', 'store-gateway', 'segment-writer', 'query-scheduler', 'querier', 'compaction-worker', 'compactor', 'metastore', 'query-backend'])],
];

/**
 * What a container runs whose Service ports no client uses although its workload stays served
 * (PEER_DIALED_TARGETS), in words (`-target ingester`); else undefined. Every listed -target must
 * be one of them.
 */
export function peerDialed(c: ContainerView): string | undefined {
  const known = PEER_DIALED_TARGETS.find(([re]) => re.test(imageRepo(c.image)))?.[1];
  if (!known) return undefined;
  const targets = dskitTargets(c)?.filter((t) => t !== '');
  return targets?.length && targets.every((t) => known.has(t)) ? `-target ${targets.join(',')}` : undefined;
}

/** Hazelcast member images: hazelcast/hazelcast and hazelcast/hazelcast-enterprise, from any registry. */
const HAZELCAST_MEMBER = /(^|\/)hazelcast\/hazelcast(-enterprise)?$/;

/**
 * What runs behind a Service port that no client reaches by its endpoints although the workload
 * stays served, in words; else undefined. The containers of peerDialed on any Service, and a
 * Hazelcast member behind a headless Service (review round 32, report p38 item 2): the Service
 * exists for discovery (the chart's hazelcast.network.join.kubernetes.service-name, and the DNS
 * name clients are given), and a client (smart routing, the default) keeps a connection to every
 * member and sends each operation to the member that owns the key's partition, switching to
 * another live member when one leaves (com.hazelcast.client.HazelcastClient javadoc, "Smart vs
 * unisocket clients", "High availability"; ClientNetworkConfig.setSmartRouting). A member that
 * gets SIGTERM leaves by the membership protocol: with the chart's
 * hazelcast.shutdownhook.policy=GRACEFUL it stays in the cluster while the master migrates its
 * replicas away (docs.hazelcast.com maintain-cluster/shutdown), so a preStop sleep only delays
 * that. A ClusterIP or load-balanced Service stays judged: a unisocket client, or the REST API,
 * behind it is routed by endpoints.
 */
export function peerDialedPort(p: ServedPort): string | undefined {
  const dialed = peerDialed(p.container);
  if (dialed) return dialed;
  return p.service.headless && HAZELCAST_MEMBER.test(imageRepo(p.container.image)) ? 'a Hazelcast member behind a headless Service' : undefined;
}

/**
 * A Flink TaskManager: the official image's `taskmanager` argument (apache/flink-docker
 * docker-entrypoint.sh), or Bitnami's FLINK_MODE=taskmanager. It registers with the JobManager's
 * ResourceManager under its own address (taskmanager.host, else the pod's), and the JobManager (RPC)
 * and the other TaskManagers (the data port) dial that address: Flink's standalone Kubernetes setup
 * gives TaskManagers no Service at all, and a Service that selects them (bitnami/flink's) carries no
 * client traffic (review round 25).
 */
function flinkTaskManager(c: ContainerView): boolean {
  if (!/(^|\/)flink$/.test(imageRepo(c.image))) return false;
  const argv = [...strings(c.raw.command), ...strings(c.raw.args)];
  if (argv[0] === 'taskmanager' || (argv.length > 1 && /(^|\/)docker-entrypoint\.sh$/.test(argv[0]) && argv[1] === 'taskmanager')) return true;
  const env = c.raw.env;
  return Array.isArray(env) && env.some((e) => isObject(e) && e.name === 'FLINK_MODE' && e.value === 'taskmanager');
}

/**
 * A Trino worker: the trinodb/trino image, whose run-trino starts the launcher with --etc-dir
 * /etc/trino, and `coordinator=false` in that directory's config.properties (read through
 * `readFile`, from the ConfigMap the container mounts there; Trino's default is true, so a worker
 * always says it, and without the file nothing is assumed). A worker announces its own HTTP URI to
 * the coordinator's discovery service, and the coordinator (and the other workers, for exchanges)
 * send it tasks and fetch results at that URI: the trinodb/charts worker Service is headless and
 * exists for the JMX exporter and extra ports (review round 17). Returns where the setting was read.
 */
function trinoWorker(c: ContainerView, readFile?: PeerRoutedReadFile): string | undefined {
  if (!readFile || !/(^|\/)trinodb\/trino$/.test(imageRepo(c.image))) return undefined;
  const f = readFile('/etc/trino/config.properties');
  if (!f) return undefined;
  let coordinator: string | undefined;
  for (const line of f.text.split(/\r?\n/)) {
    const m = /^\s*coordinator\s*[=:]\s*(\S+)\s*$/.exec(line);
    if (m) coordinator = m[1];
  }
  return coordinator !== undefined && coordinator.toLowerCase() === 'false' ? f.where : undefined;
}

/** The Druid services whose callers dial the host:port each one announced (druidPeerRole). */
const DRUID_PEER_ROLES = new Set(['historical', 'middleManager', 'indexer']);

/**
 * An Apache Druid data server: a Historical, a MiddleManager or an Indexer, named by the service
 * argument of the image's entrypoint (apache/druid: ENTRYPOINT /druid.sh, whose first argument is
 * the service it runs as `org.apache.druid.cli.Main server <service>`), of a druid.sh or
 * run-druid(.sh) script in the command (the druid-operator's [/druid.sh or bin/run-druid.sh,
 * nodeType], also inside a shell script), or of the Java main class itself. Each announces its
 * host:port (druid.host, the pod IP by the image's DRUID_SET_HOST=1 default) through Druid's
 * discovery (ZooKeeper or Kubernetes), and its callers dial that address: the Brokers query the
 * Historicals and Indexers (BrokerServerView: a DirectDruidClient for server.getHost() of each
 * announced data server), the Overlord assigns tasks to the MiddleManagers and Indexers
 * (HttpRemoteTaskRunner, workers from DruidNodeDiscovery). A Service that selects them carries no
 * client traffic (review round 30: asdf2014/druid-helm). The Broker, Router, Coordinator and
 * Overlord stay judged: clients reach them through Services. Returns the service.
 */
function druidPeerRole(c: ContainerView): string | undefined {
  const command = strings(c.raw.command);
  const argv = [...command, ...strings(c.raw.args)];
  if (command.length === 0 && /(^|\/)druid$/.test(imageRepo(c.image)) && DRUID_PEER_ROLES.has(argv[0] ?? '')) return argv[0];
  const script = /(?:^|[\s/])(?:druid\.sh|run-druid(?:\.sh)?)\s+(historical|middleManager|indexer)(?=$|[\s;&|'"])/.exec(argv.join(' '));
  if (script) return script[1];
  const main = /\borg\.apache\.druid\.cli\.Main\s+server\s+(historical|middleManager|indexer)(?=$|[\s;&|'"])/.exec(argv.join(' '));
  return main?.[1];
}

/**
 * A Thanos Receive ingestor (`thanos receive` in IngestorOnly mode, with --receive.local-endpoint
 * set): no --receive.hashrings-file or --receive.hashrings, which is how Thanos picks that mode
 * (thanos-io/thanos cmd/thanos/receive.go determineMode: a hashring configuration with a local
 * endpoint is RouterIngestor, without one RouterOnly, none IngestorOnly). The local endpoint says it
 * is a member of a hash ring that routers hold: they forward each series to the ingestor the ring
 * picks, dialling the address listed for it there (pkg/receive/handler.go peerGroup.getConnection:
 * endpoint.Address, or its CapNProtoAddress), the pod's own DNS name in the bitnami/thanos chart's
 * dual mode (review round 32, report p36). No other endpoint takes its series, so a preStop delay moves no
 * traffic. Routers (RouterOnly, the distributor) and RouterIngestors, which Prometheus writes to
 * through a Service, stay judged. Returns the local endpoint.
 */
function thanosReceiveIngestor(c: ContainerView): string | undefined {
  if (!/(^|\/)thanos$/.test(imageRepo(c.image))) return undefined;
  const argv = [...strings(c.raw.command), ...strings(c.raw.args)];
  const sub = /(^|\/)thanos$/.test(argv[0] ?? '') ? 1 : 0;
  if (argv[sub] !== 'receive') return undefined;
  const flags = new Map<string, string>();
  argv.slice(sub + 1).forEach((a, i, rest) => {
    const m = /^--([a-z0-9.-]+)(?:=(.*))?$/s.exec(a);
    if (m) flags.set(m[1], m[2] ?? (rest[i + 1] !== undefined && !rest[i + 1].startsWith('--') ? rest[i + 1] : ''));
  });
  const endpoint = flags.get('receive.local-endpoint');
  if (!endpoint || flags.get('receive.hashrings-file') || flags.get('receive.hashrings')) return undefined;
  return endpoint;
}

/** Reads a file as the container sees it (an absolute path): its text and where it comes from, or undefined when the input does not hold it. */
export type PeerRoutedReadFile = (path: string) => { text: string; where: string } | undefined;

/**
 * What a container runs that no client reaches through a Service, in words (`-target ingester`, `a
 * Flink TaskManager`); else undefined: the Loki, Mimir, Tempo and Cortex components of
 * PEER_ROUTED_TARGETS, Flink's TaskManagers, Trino's workers (their config.properties read
 * through `readFile`), Druid's Historicals, MiddleManagers and Indexers and Thanos Receive's
 * ingestors (thanosReceiveIngestor). Their Services' ports
 * carry no client traffic.
 */
export function peerRouted(c: ContainerView, readFile?: PeerRoutedReadFile): string | undefined {
  const targets = peerRoutedTargets(c);
  if (targets) return `-target ${targets.join(',')}`;
  if (flinkTaskManager(c)) return 'a Flink TaskManager';
  const trino = trinoWorker(c, readFile);
  if (trino) return `a Trino worker (coordinator=false in ${trino})`;
  const druid = druidPeerRole(c);
  if (druid) return `a Druid ${druid} (service argument "${druid}")`;
  const thanos = thanosReceiveIngestor(c);
  return thanos ? `a Thanos Receive ingestor (--receive.local-endpoint=${thanos} and no hashring configuration)` : undefined;
}

/**
 * The Prometheus server (prom/prometheus, quay.io/prometheus/prometheus, bitnami/prometheus): its one
 * listener, --web.listen-address (":9090" by default), serves the query API and the UI that Grafana and
 * users call, and its own /metrics beside them; charts name that port for the program, \`prometheus\` or
 * \`http-prometheus\` (pingcap/tidb-operator v1.5.5 charts/tidb-cluster templates/monitor-deployment.yaml and
 * monitor-service.yaml: review round 34, report p50 item 9). prometheus/prometheus
 * docs/command-line/prometheus.md (\`--web.listen-address\`: "Address to listen on for UI, API, and
 * telemetry. Can be repeated.", default \`0.0.0.0:9090\`; read in a stored copy, commit not pinned). A
 * container of that image listens on nothing else, so each port it declares is that listener. Not in
 * agent mode (\`--enable-feature=agent\` from 2.32, \`--agent\` from 3.0): an agent serves no query API.
 * Exporters are other images (prom/node-exporter, ...): their metrics ports stay scrape ports.
 */
const PROMETHEUS_SERVER_IMAGE = /(^|\/)prometheus$/;

function prometheusServer(c: ContainerView): boolean {
  if (!PROMETHEUS_SERVER_IMAGE.test(imageRepo(c.image))) return false;
  const argv = [...strings(c.raw.command), ...strings(c.raw.args)];
  return !argv.some((a) => /^--agent(=true)?$/.test(a) || /^--enable-feature=(.*,)?agent(,|$)/.test(a));
}

/**
 * Whether the container runs one of API_ON_METRICS_PORT_IMAGE as a component whose HTTP API clients
 * call (API_TARGETS), or a Prometheus server (prometheusServer), whose API is on its one listener too.
 */
export function apiOnMetricsPort(c: ContainerView): boolean {
  if (prometheusServer(c)) return true;
  if (!API_ON_METRICS_PORT_IMAGE.test(imageRepo(c.image))) return false;
  const targets = dskitTargets(c);
  // (Loki's compactor serves the delete API; Mimir's and Cortex's serve nothing clients call. Tempo's
  // distributor takes its pushes on the receivers' own ports, so of Tempo only the query-frontend.)
  const repo = imageRepo(c.image);
  const tempo = /(^|\/)(tempo|enterprise-traces)$/.test(repo);
  return (targets ?? ['all']).some(
    (t) => API_TARGETS.has(t) && (t !== 'compactor' || /(^|\/)(loki|enterprise-logs)$/.test(repo)) && (!tempo || t === 'all' || t === 'query-frontend'),
  );
}

/**
 * What a container's program says about its ports' names: a web server or proxy (its port 80 or
 * 443 serves clients whatever it is named), or a component whose metrics-named port is its API.
 */
export type PortProgram = 'web-server' | 'api-on-metrics-port' | undefined;

export function portProgram(c: ContainerView): PortProgram {
  // (Asked for every served port of every rule's traffic question: read once per container.)
  if (portPrograms.has(c)) return portPrograms.get(c);
  const k: PortProgram = webServerImage(c.image) ? 'web-server' : apiOnMetricsPort(c) ? 'api-on-metrics-port' : undefined;
  portPrograms.set(c, k);
  return k;
}
const portPrograms = new WeakMap<ContainerView, PortProgram>();

/**
 * Whether a Service port is for scrapes, operators or peers rather than clients, by its names: the
 * one that says what it is for (its own name, else its targetPort's, else the name of the container
 * port it reaches: the Pushgateway's Service port "http" reaches a container port named "metrics",
 * and clients push there) is a metrics or operator name (METRICS_PORT, OPERATOR_PORT), except on
 * port 80 or 443 of a web server (`webServer`: Loki's and Tempo's nginx gateways name their only
 * port http-metrics); or any of the names is gossip (GOSSIP_PORT: Loki's memberlist Service port
 * "tcp" to "http-memberlist"). The one reading of ServiceView.metricsOnly and of the traffic ports.
 */
export function notClientPort(sp: ServicePort, containerPortName?: string, program?: PortProgram): boolean {
  const target = typeof sp.targetPort === 'string' ? sp.targetPort : undefined;
  const purpose = sp.name ?? target ?? containerPortName;
  if (
    purpose !== undefined &&
    (METRICS_PORT.test(purpose) || OPERATOR_PORT.test(purpose)) &&
    !(program === 'web-server' && (sp.port === 80 || sp.port === 443)) &&
    !(program === 'api-on-metrics-port' && !OPERATOR_PORT.test(purpose))
  )
    return true;
  return [sp.name, target, containerPortName].some((n) => n !== undefined && GOSSIP_PORT.test(n));
}

/**
 * Port names of endpoints for operators and probes rather than clients (diagnostics, health, admin,
 * profiling, probes, stats): no evidence of traffic on their own, where no Service says which ports
 * are routed (teleport-kube-agent's `diag` port, which serves /metrics and /healthz and no Service),
 * and no client traffic on a Service port either (notClientPort: Kong's `status`, HAProxy's `stat`).
 */
export const OPERATOR_PORT = /(^|[-_])(diag|diagnostics|health|healthz|admin|debug|pprof|profiling|probe|probes|readiness|liveness|stat|stats|status)($|[-_])/i;

/**
 * A Service named for operators: `<name>-admin`, `-diag`, `-diagnostics`, `-debug`, `-pprof` or
 * `-profiling` (emissary-ingress's `emissary-admin`, its diagnostics and snapshot ports, scraped by
 * the chart's ServiceMonitor: review round 30). The words of OPERATOR_PORT that name an interface
 * for people and tools, not a check another system acts on (health, readiness, status: a load
 * balancer may probe those).
 */
export const OPERATOR_SERVICE_NAME = /(^|-)(admin|diag|diagnostics|debug|pprof|profiling)$/;

/** The declared TCP ports of a container that suggest client traffic (not metrics/operator ports). */
export function trafficEvidencePorts(c: ContainerView): ContainerPort[] {
  return c.ports.filter((p) => p.protocol === 'TCP' && !(p.name !== undefined && (METRICS_PORT.test(p.name) || OPERATOR_PORT.test(p.name))));
}

/**
 * Whether a Service port reaches a container only by attribution (no container port matches it, no
 * env or args name it) while that container declares other ports and probes none at this number.
 */
function undeclaredOnDeclaringContainer(hit: { container: ContainerView; port?: ContainerPort; pick?: ServedPort['pick'] }, sp: ServicePort, mains: readonly ContainerView[]): boolean {
  const tp = sp.targetPort;
  if (hit.port || hit.pick || typeof tp !== 'number' || hit.container.ports.length === 0) return false;
  if (namedListenPort(hit.container, tp, mains) !== undefined) return false;
  return !(['readinessProbe', 'livenessProbe', 'startupProbe'] as const).some((k) => {
    const probe = hit.container.raw[k];
    const port = get(probe, 'httpGet', 'port') ?? get(probe, 'tcpSocket', 'port') ?? get(probe, 'grpc', 'port');
    return port === tp;
  });
}

/** Mesh proxies injected next to the app: their ports are the mesh's, their lifecycle the injector's. */
const MESH_PROXY = new Set(['istio-proxy', 'linkerd-proxy']);

function resolveTargetPort(
  candidates: ContainerView[],
  mains: ContainerView[],
  sp: ServicePort,
  workloadName: string,
): { container: ContainerView; port?: ContainerPort; pick?: ServedPort['pick'] } | undefined {
  const tp = sp.targetPort;
  if (typeof tp === 'string') {
    for (const c of candidates) {
      const p = c.ports.find((x) => x.name === tp && x.protocol === sp.protocol);
      if (p) return { container: c, port: p };
    }
    return undefined;
  }
  if (typeof tp === 'number') {
    for (const c of candidates) {
      const p = c.ports.find((x) => x.containerPort === tp && x.protocol === sp.protocol);
      if (p) return { container: c, port: p };
    }
    // Ports need not be declared: a lone main container serves it.
    if (mains.length === 1) return { container: mains[0] };
    // Else the one whose own env or args name the port as one it listens on (listen-ports.ts: Flink's
    // flink-webhook, WEBHOOK_SERVER_PORT=9443, beside the operator declaring only health-port). A
    // mesh proxy only by a listen address (Linkerd's LINKERD2_PROXY_INBOUND_LISTEN_ADDR=0.0.0.0:4143):
    // its env's bare numbers are the app's ports it forwards to (LINKERD2_PROXY_INBOUND_PORTS).
    const naming = mains
      .map((c) => ({ c, evidence: namedListenPort(c, tp, mains, MESH_PROXY.has(c.name)) }))
      .filter((x): x is { c: ContainerView; evidence: string } => x.evidence !== undefined);
    if (naming.length === 1) return { container: naming[0].c, pick: { by: 'config', evidence: naming[0].evidence } };
    // Else, beside a mesh proxy, the app it forwards to when it is the only other main container.
    const apps = mains.filter((c) => !MESH_PROXY.has(c.name));
    if (!naming.length && apps.length === 1) return { container: apps[0] };
    // Else a guess, said so (ServedPort.pick): among those naming it, else among those declaring no
    // traffic port, ranked.
    const undeclared = (cs: ContainerView[]) => cs.filter((c) => trafficEvidencePorts(c).length === 0);
    return (
      (naming.length > 1 ? pickByRank(naming.map((x) => x.c), workloadName) : undefined) ??
      pickByRank(undeclared(apps.length ? apps : mains), workloadName)
    );
  }
  return undefined;
}

/**
 * A guess among containers for an undeclared numeric targetPort: one declaring an operator port
 * (Teleport's diag: a server with its own admin listener) before one declaring nothing, before one
 * declaring only metrics ports (an exporter beside the app). Among equals, the one named like the
 * workload; else no guess.
 */
function pickByRank(among: ContainerView[], workloadName: string): { container: ContainerView; pick: ServedPort['pick'] } | undefined {
  const rank = (c: ContainerView) => (c.ports.length === 0 ? 1 : c.ports.some((p) => p.name !== undefined && OPERATOR_PORT.test(p.name)) ? 0 : 2);
  const best = Math.min(...among.map(rank));
  const top = among.filter((c) => rank(c) === best);
  if (top.length === 1) return { container: top[0], pick: { by: 'guess' } };
  const named = top.filter((c) => c.name === workloadName);
  if (named.length === 1) return { container: named[0], pick: { by: 'guess' } };
  return undefined;
}

function serviceView(o: KObject): ServiceView {
  const spec = isObject(o.raw.spec) ? o.raw.spec : {};
  const ports: ServicePort[] = [];
  if (Array.isArray(spec.ports)) {
    spec.ports.forEach((p, index) => {
      if (!isObject(p)) return;
      const port = num(p.port);
      // (Absent, 0 or "": the port, as the API server defaults it: SetDefaults_Service.)
      let targetPort: number | string | undefined = port;
      if (typeof p.targetPort === 'number' && p.targetPort !== 0) targetPort = p.targetPort;
      else if (typeof p.targetPort === 'string' && p.targetPort !== '') targetPort = /^\d+$/.test(p.targetPort) ? Number(p.targetPort) : p.targetPort;
      ports.push({ name: typeof p.name === 'string' ? p.name : undefined, port, targetPort, protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP', index });
    });
  }
  // (By the Service's own names: the ports for scrapes, operators and peers; notClientPort.)
  const metricsOnly = ports.length > 0 && ports.every((p) => notClientPort(p));
  return {
    obj: o,
    selector: parseMapSelector(spec.selector),
    ports,
    type: enumOr(spec.type, 'ClusterIP').value,
    headless: spec.clusterIP === 'None',
    publishNotReadyAddresses: spec.publishNotReadyAddresses === true,
    externalTrafficPolicy: typeof spec.externalTrafficPolicy === 'string' ? spec.externalTrafficPolicy : undefined,
    annotations: stringMap(get(o.raw, 'metadata', 'annotations')),
    metricsOnly,
  };
}

function pdbView(o: KObject): PdbView {
  const spec = isObject(o.raw.spec) ? o.raw.spec : {};
  return {
    obj: o,
    selector: parseLabelSelector(spec.selector),
    selectorRaw: spec.selector,
    minAvailable: parseIntOrPercent(spec.minAvailable),
    maxUnavailable: parseIntOrPercent(spec.maxUnavailable),
    unhealthyPodEvictionPolicy: typeof spec.unhealthyPodEvictionPolicy === 'string' ? spec.unhealthyPodEvictionPolicy : undefined,
  };
}

/**
 * Whether an HPA's `scaleTargetRef.kind` names `kind` for the HPA controller: the kind itself or its
 * all-lower-case form. The controller maps the kind through kube-controller-manager's discovery
 * RESTMapper (kubernetes pkg/controller/podautoscaler/horizontal.go, reconcileAutoscaler:
 * `a.mapper.RESTMappings(targetGK)`), which registers every discovered kind twice, as
 * `strings.ToLower(resource.Kind)` and as `resource.Kind` (client-go restmapper/discovery.go,
 * NewDiscoveryRESTMapper; apimachinery's DefaultRESTMapper.RESTMappings then looks the kind up
 * exactly in kindToPluralResource). So `deployment` works and `Statefulset` fails (FailedGetScale:
 * `no matches for kind "Statefulset"`, bitnami/charts#30834).
 */
export function scaleTargetKindIs(refKind: string | undefined, kind: string): boolean {
  return refKind === kind || refKind === kind.toLowerCase();
}

function hpaView(o: KObject): HpaView {
  const spec = isObject(o.raw.spec) ? o.raw.spec : {};
  const min = num(spec.minReplicas);
  return {
    obj: o,
    targetKind: typeof get(spec, 'scaleTargetRef', 'kind') === 'string' ? (get(spec, 'scaleTargetRef', 'kind') as string) : undefined,
    targetName: typeof get(spec, 'scaleTargetRef', 'name') === 'string' ? (get(spec, 'scaleTargetRef', 'name') as string) : undefined,
    minReplicas: min ?? 1,
    minReplicasSet: min !== undefined,
    maxReplicas: num(spec.maxReplicas),
  };
}
