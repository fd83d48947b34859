import { activeCatalog, imageRepository, MonitoringPortFact } from '../catalog';
import { notClientPort, ObjectGraph, peerDialed, peerDialedPort, peerRouted, ServedPort, ServedState, ServiceView, trafficEvidencePorts, portProgram } from './graph';
import { mountedConfigMapFile } from './mounts';
import { isIdleContainer } from './idle';
import { matches, parseLabelSelector, Selector, stringMap } from './selector';
import { Json } from './types';
import { apiServerCalls } from './webhook-calls';
import { ContainerPort, ContainerView, get, Workload } from './workload';

/**
 * Which Service ports and containers carry user traffic, as opposed to scrapes: the refinement of
 * ObjectGraph.servedPorts that the serving rules use.
 */

/**
 * Components whose Service exists for Prometheus, whose only client scrapes it: on the Service or
 * the pods `app.kubernetes.io/component: exporter`; on the Service also `metrics` (kube-state-metrics'
 * chart, Argo CD's argocd-metrics: a Service labelled so is the component's metrics endpoint).
 */
const EXPORTER_COMPONENT = 'exporter';
const METRICS_COMPONENT = 'metrics';

/**
 * The port of the container's program's own monitoring server, when the catalog knows the program
 * (a monitoring-port entry: Fluent Bit's HTTP server, HTTP_Port of the config file the container
 * mounts from a ConfigMap of the input, else 2020), read once per container and run.
 */
export function monitoringPortOf(graph: ObjectGraph, w: Workload, c: ContainerView): MonitoringPortFact | undefined {
  return graph.memo(monitoringPortOf, c, () => activeCatalog().monitoringPort(c, (file) => mountedConfigMapFile(graph, w, c, file)));
}

/**
 * The declared ports that are evidence of client traffic where no Service says which ports are
 * routed: graph.ts trafficEvidencePorts (not named like a metrics or operator port) without the
 * port of the container's program's own monitoring server (monitoringPortOf: Falco's webserver on
 * 8765, which its chart names `web`).
 */
export function clientEvidencePorts(graph: ObjectGraph, w: Workload, c: ContainerView): ContainerPort[] {
  // The object alone (nothing else of its namespace in the input) is judged by its port names only,
  // as the exported admission policies judge it (lib/admission likelyServedAlone, which sees one
  // object and no catalog flags or config files): they agree on every such object.
  if (aloneInNamespace(graph, w)) return trafficEvidencePorts(c);
  const m = monitoringPortOf(graph, w, c);
  return trafficEvidencePorts(c).filter((p) => m?.port === undefined || p.containerPort !== m.port);
}

/** Whether the input holds no object of the workload's namespace but the workload itself (counted once per run). */
function aloneInNamespace(graph: ObjectGraph, w: Workload): boolean {
  const counts = graph.memo(aloneInNamespace, graph, () => {
    const m = new Map<string, number>();
    for (const o of graph.objects) m.set(o.namespace ?? '', (m.get(o.namespace ?? '') ?? 0) + 1);
    return m;
  });
  return (counts.get(w.obj.namespace ?? '') ?? 0) <= 1;
}

/**
 * graph.ts peerRouted for a container of the workload, with its config files read from the
 * ConfigMaps it mounts (a Trino worker's /etc/trino/config.properties), once per container and run.
 */
export function peerRoutedOf(graph: ObjectGraph, w: Workload, c: ContainerView): string | undefined {
  return graph.memo(peerRoutedOf, c, () =>
    peerRouted(c, (file) => {
      const m = mountedConfigMapFile(graph, w, c, file);
      return 'text' in m ? { text: m.text, where: m.where } : undefined;
    }),
  );
}

/** The container port number a served port reaches: the declared port's, else a numeric targetPort. */
function reachedPortNumber(p: ServedPort): number | undefined {
  return p.containerPort?.containerPort ?? (typeof p.servicePort.targetPort === 'number' ? p.servicePort.targetPort : undefined);
}

/**
 * A port for scrapes, operators or peers rather than clients, judged per port: by its names
 * (graph.ts notClientPort), or because it reaches the monitoring server of the container's program
 * (monitoringPortOf: Fluent Bit's port 2020, named `http` by its chart).
 */
function notClientServedPort(graph: ObjectGraph, w: Workload, p: ServedPort): boolean {
  // A port an Ingress or route sends traffic to is client traffic, whatever its names say.
  if (graph.routedPort(p.service, p.servicePort)) return false;
  if (notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))) return true;
  // (A Loki, Mimir, Tempo or Cortex component that clients reach through the ring, or that pulls its
  // work; a Flink TaskManager, which the JobManager and its peers dial by its own address; a Trino
  // worker, which the coordinator dials at the URI it announced.)
  if (peerRoutedOf(graph, w, p.container)) return true;
  if (exporterPort(graph, p)) return true;
  const reached = reachedPortNumber(p);
  if (reached !== undefined && (reached === controllerRuntimeMetricsPort(p.container) || reached === healthProbePort(p.container))) return true;
  const m = monitoringPortOf(graph, w, p.container);
  return m?.port !== undefined && reached === m.port;
}

/**
 * The image of a Prometheus exporter: its repository's last part ends in `-exporter` or
 * `_exporter`, the exporters' own naming (prom/node-exporter, prom/mysqld-exporter,
 * oliver006/redis_exporter, couchbasesamples/sync-gateway-prometheus-exporter). An exporter serves
 * /metrics for Prometheus to scrape: what it answers is a scrape, not client traffic. A bare
 * `exporter` is not that naming: penpotapp/exporter is Penpot's export service (headless-browser
 * PNG/SVG/PDF rendering), which users reach through the frontend nginx's `location /api/export`
 * (penpot/penpot @042bd03b docker/images/files/nginx.conf.template; review round 35, report p55
 * item 1).
 */
const EXPORTER_IMAGE = /[-_]exporter$/;
export function exporterImage(c: ContainerView): boolean {
  const last = imageRepository(c.image).path.split('/').pop() ?? '';
  return EXPORTER_IMAGE.test(last);
}

/**
 * Exporters that also take pushed samples on an ingest port of their own, besides the one they are
 * scraped on: the program, the flags that set the ingest address and their default port.
 * prometheus/statsd_exporter @ac592b1e main.go: `statsd.listen-udp` / `statsd.listen-tcp` "The UDP
 * [TCP] address on which to receive statsd metric lines", Default(":9125") (web interface :9102);
 * prometheus/graphite_exporter @42fb7de2 cmd/graphite_exporter/main.go: `graphite.listen-address`
 * "TCP and UDP address on which to accept samples", Default(":9109") (web interface :9108).
 */
const PUSH_INGEST: readonly { image: RegExp; program: string; flags: readonly string[]; port: number }[] = [
  { image: /^statsd[-_]exporter$/, program: 'statsd_exporter', flags: ['statsd.listen-udp', 'statsd.listen-tcp'], port: 9125 },
  { image: /^graphite[-_]exporter$/, program: 'graphite_exporter', flags: ['graphite.listen-address'], port: 9109 },
];

/**
 * When the served port reaches the ingest port of a push-ingest exporter (PUSH_INGEST), what it is,
 * e.g. `the ingest port of container "statsd", statsd_exporter (--statsd.listen-udp/--statsd.listen-tcp,
 * default :9125), to which other programs push their metrics`; else undefined. Airflow's chart points
 * every component's statsd client at af-statsd port 9125 (review round 33, report p39 item 2): that is traffic, but
 * of pushed samples that no sender waits on, not of requests.
 */
export function pushIngestPort(p: ServedPort): string | undefined {
  if (p.pick?.by === 'guess') return undefined;
  const last = imageRepository(p.container.image).path.split('/').pop() ?? '';
  const e = PUSH_INGEST.find((x) => x.image.test(last));
  const reached = reachedPortNumber(p);
  if (!e || reached === undefined) return undefined;
  const args = (Array.isArray(p.container.raw.args) ? p.container.raw.args : []).filter((a): a is string => typeof a === 'string');
  const ports = e.flags.map((f) => {
    const a = [...args].reverse().find((x) => x.startsWith(`--${f}=`) || x.startsWith(`-${f}=`));
    if (a === undefined) return e.port;
    const m = /:([0-9]{1,5})$/.exec(a);
    return m ? Number(m[1]) : undefined;
  });
  if (!ports.includes(reached)) return undefined;
  return `the ingest port of container "${p.container.name}", ${e.program} (${e.flags.map((f) => `--${f}`).join('/')}, default :${e.port}), to which other programs push their metrics`;
}

/**
 * A Service port that reaches a Prometheus exporter's container (exporterImage), the container it
 * declares or names (not resolveTargetPort's guess), and that the API server does not call:
 * Couchbase's sync-gateway-prometheus-exporter sidecar behind the chart's `sync-gateway-exporter`
 * Service, ports named `http` (review round 30). The program that answers decides, whatever the
 * chart calls the Service or the port. (The caller checks routes first: an Ingress or route to the
 * port is client traffic.)
 */
function exporterPort(graph: ObjectGraph, p: ServedPort): boolean {
  if (p.pick?.by === 'guess' || !exporterImage(p.container)) return false;
  return !apiServerCalls(graph, p.service).some((c) => c.port === p.servicePort.port);
}

/**
 * A health probe listen flag of the container's own args: controller-runtime's
 * --health-probe-bind-address=[host]:N (its health probe server serves /healthz and /readyz only),
 * a --<name>-probe-port=N (trust-manager's --readiness-probe-port) or --health-port=N. A Service port
 * that reaches it carries probes and checks, not client traffic (grafana's alloy-operator chart
 * exposes 8081 on its Service; review round 16). The first such arg.
 */
const HEALTH_BIND = /^--?(?:health-probe-(?:bind-address|addr)=.*:|(?:[a-z0-9]+-)*probe-port=|health-port=)([0-9]{1,5})$/;
export function healthProbePort(c: ContainerView): number | undefined {
  return firstArgPort(c, HEALTH_BIND);
}

/** The port (capture group 1) of the first of the container's args that `flag` matches; undefined for none, or 0. */
function firstArgPort(c: ContainerView, flag: RegExp): number | undefined {
  const args = Array.isArray(c.raw.args) ? c.raw.args : [];
  for (const a of args) {
    const m = typeof a === 'string' ? flag.exec(a) : null;
    if (m) return Number(m[1]) || undefined;
  }
  return undefined;
}

/** controller-runtime's metrics listen address flags: kubebuilder v3 and later, and v2's. */
const METRICS_BIND = /^--?(?:metrics-bind-address|metrics-addr)=(?:.*:)?([0-9]{1,5})$/;

/**
 * The port of a controller-runtime manager's metrics server, `--metrics-bind-address=[host]:N`
 * (`--metrics-addr` in kubebuilder v2) in the container's args: its metrics Service is scraped,
 * whatever its port is named (kubebuilder's controller-manager-metrics-service, port https 8443;
 * rabbitmq/cluster-operator's metrics Service, port http to container port metrics 8080). "0"
 * turns the server off.
 */
export function controllerRuntimeMetricsPort(c: ContainerView): number | undefined {
  return firstArgPort(c, METRICS_BIND);
}

/**
 * A Service named for metrics: `metrics`, `*-metrics` (argocd-metrics, kube-state-metrics) or
 * `*-metrics-service` (kubebuilder's controller-manager-metrics-service, rabbitmq/cluster-operator's
 * rabbitmq-cluster-operator-metrics-service, whose port "http" reaches container port "metrics").
 * Not metrics-server or custom-metrics-apiserver, which serve the metrics APIs to the API server.
 */
const METRICS_SERVICE_NAME = /(^|-)metrics(-service)?$/;

/**
 * A Service of an exporter or metrics component, whose endpoints are scraped, not called: by its
 * labels or name. Never one the API server calls, for an APIService or an admission webhook: the
 * prometheus-community prometheus-adapter chart labels the Service of the custom metrics API
 * `app.kubernetes.io/component: metrics` (review round 13).
 */
function isExporterService(graph: ObjectGraph, s: ServiceView, w: Workload): boolean {
  const component = stringMap(get(s.obj.raw, 'metadata', 'labels'))['app.kubernetes.io/component'];
  if (apiServerCalls(graph, s).length) return false;
  return (
    component === EXPORTER_COMPONENT ||
    component === METRICS_COMPONENT ||
    w.templateLabels['app.kubernetes.io/component'] === EXPORTER_COMPONENT ||
    METRICS_SERVICE_NAME.test(s.obj.name)
  );
}

interface MonitorView {
  selector: Selector;
  endpoints: Json | undefined;
}

/**
 * The ServiceMonitors of the set by the namespaces they watch: `any`, each listed name, or their
 * own namespace (as scrapedByServiceMonitor reads spec.namespaceSelector), with selectors parsed once.
 */
interface MonitorIndex {
  any: MonitorView[];
  byNamespace: Map<string, MonitorView[]>;
}

function monitorIndex(graph: ObjectGraph): MonitorIndex {
  return graph.memo(monitorIndex, graph, () => {
    const idx: MonitorIndex = { any: [], byNamespace: new Map() };
    const add = (ns: string, m: MonitorView) => {
      let l = idx.byNamespace.get(ns);
      if (!l) idx.byNamespace.set(ns, (l = []));
      if (l[l.length - 1] !== m) l.push(m);
    };
    for (const o of graph.ofKind('ServiceMonitor')) {
      const m: MonitorView = { selector: parseLabelSelector(get(o.raw, 'spec', 'selector')), endpoints: get(o.raw, 'spec', 'endpoints') };
      if (get(o.raw, 'spec', 'namespaceSelector', 'any') === true) idx.any.push(m);
      else {
        const names = get(o.raw, 'spec', 'namespaceSelector', 'matchNames');
        if (Array.isArray(names)) {
          for (const n of names) if (typeof n === 'string') add(n, m);
        } else add(o.namespace ?? '', m);
      }
    }
    return idx;
  });
}

/** Whether a ServiceMonitor in the set scrapes this Service port (by port name or targetPort). */
function scrapedByServiceMonitor(graph: ObjectGraph, p: ServedPort): boolean {
  const svc = p.service.obj;
  const idx = monitorIndex(graph);
  const candidates = [...idx.any, ...(idx.byNamespace.get(svc.namespace ?? '') ?? [])];
  if (!candidates.length) return false;
  const labels = stringMap(get(svc.raw, 'metadata', 'labels'));
  return candidates.some((m) => {
    if (!matches(m.selector, labels)) return false;
    const eps = m.endpoints;
    return (
      Array.isArray(eps) &&
      eps.some((e) => {
        const port = get(e, 'port');
        const target = get(e, 'targetPort');
        return (typeof port === 'string' && port === p.servicePort.name) || (target !== undefined && target === p.servicePort.targetPort);
      })
    );
  });
}

/**
 * kube-rbac-proxy in front of metrics: the metrics-auth pattern of kube-prometheus and operator-sdk
 * projects (ports named "https", so the name rule misses them), when a ServiceMonitor scrapes the
 * port, or when its --upstream is a loopback address on the port of a controller-runtime metrics
 * server of the pod (kubebuilder's scaffold: --metrics-bind-address=127.0.0.1:8080 beside
 * --upstream=http://127.0.0.1:8080/; KServe's controller, whose Service for it has no metrics name:
 * review round 14).
 */
function isRbacProxiedMetrics(graph: ObjectGraph, w: Workload, p: ServedPort): boolean {
  if (!/(^|\/)kube-rbac-proxy(:|@|$)/.test(p.container.image)) return false;
  return scrapedByServiceMonitor(graph, p) || proxiesMetricsServer(w, p.container);
}

const LOOPBACK_UPSTREAM = /^--upstream=https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})(?:\/.*)?$/;

/** Whether the container's --upstream is a loopback address on a controller-runtime metrics port of the pod. */
function proxiesMetricsServer(w: Workload, c: ContainerView): boolean {
  const args = [get(c.raw, 'command'), get(c.raw, 'args')].flatMap((a) => (Array.isArray(a) ? a : []));
  const up = args.map((a) => (typeof a === 'string' ? LOOPBACK_UPSTREAM.exec(a.trim()) : null)).find((m) => m !== null);
  if (!up) return false;
  const port = Number(up[1]);
  return w.containers.some((o) => o !== c && controllerRuntimeMetricsPort(o) === port);
}

/**
 * Served ports that carry user traffic: graph.servedPorts without the ports for scrapes, operators
 * and peers (graph.ts notClientPort: metrics- and operator-named ports except on port 80 or 443 of
 * a web server and on the API port of a Loki, Mimir, Tempo or Cortex component clients call, gossip ports), without Services of exporters and metrics components, and without kube-rbac-proxy
 * ports in front of metrics (isRbacProxiedMetrics). Prometheus scrapes through the endpoints, not through
 * kube-proxy, and a missed scrape is not lost traffic. Nor ports of idle containers (idle.ts: the
 * pause image, a sleep forever), where nothing listens.
 */
export function trafficPorts(graph: ObjectGraph, w: Workload): ServedPort[] {
  return trafficPortsOf(graph, w).slice();
}

/** trafficPorts, computed once per workload and run (not to be mutated). */
export function trafficPortsOf(graph: ObjectGraph, w: Workload): readonly ServedPort[] {
  return graph.memo(trafficPortsOf, w, () => graph.servedPortsOf(w).filter((p) => clientPort(graph, w, p)));
}

/** Whether a served port carries user traffic (trafficPorts' reading of one port). */
function clientPort(graph: ObjectGraph, w: Workload, p: ServedPort): boolean {
  return !notClientServedPort(graph, w, p) && !isExporterService(graph, p.service, w) && !isRbacProxiedMetrics(graph, w, p) && !isIdleContainer(p.container.raw);
}

/**
 * When the served ports `of` reach the container only by resolveTargetPort's guess (ServedPort.pick
 * `guess`: a numeric targetPort that no container of the pod declares or names in its env or args,
 * and several main containers could serve it), why it is a guess, e.g. `no container declares port
 * 9443 or names it in its env or args`; else undefined (a declared port, a lone main container, or
 * the container's own configuration names the port). Findings on such a container say "probably",
 * and their repairs are proposals: `--fix` must not edit a container that may be the wrong one.
 */
export function containerGuess(c: ContainerView, of: readonly ServedPort[]): string | undefined {
  const mine = of.filter((p) => p.container === c);
  if (!mine.length || !mine.every((p) => p.pick?.by === 'guess')) return undefined;
  const nums = [...new Set(mine.map((p) => String(p.servicePort.targetPort)))];
  return `no container declares ${nums.length > 1 ? 'ports' : 'port'} ${nums.join(', ')} or names ${nums.length > 1 ? 'them' : 'it'} in its env or args`;
}

/**
 * Served, unserved or unknown for the advice rules and explain: graph.servedState, except that a
 * workload served only through Services none of whose ports carries user traffic to it is
 * `unserved`: each port of each of them reaches a container port of the pods that trafficPorts
 * leaves out (a monitoring server, a scraped kube-rbac-proxy, an exporter's Service; graph.ts
 * already leaves out Services whose every port is named for metrics). A port that reaches no known
 * container port counts as traffic; the served hint always wins.
 */
export function servedStateOf(graph: ObjectGraph, w: Workload): ServedState {
  return graph.memo(servedStateOf, w, () => {
    const state = graph.servedState(w);
    if (state !== 'served' || graph.servedHint(w) !== undefined) return state;
    const served = graph.servedPortsOf(w);
    const sideOnly = graph.trafficServices(w).every(
      (s) =>
        s.ports.length > 0 &&
        s.ports.every((sp) => {
          const hits = served.filter((p) => p.service === s && p.servicePort === sp);
          return hits.length > 0 && hits.every((p) => !clientPort(graph, w, p));
        }),
    );
    return sideOnly ? 'unserved' : 'served';
  });
}

/**
 * Why servedStateOf says `unserved` where Services select the pods (for explain): each port they
 * route and what it reaches, e.g. `Service fb-fluent-bit port 2020 reaches the monitoring server of
 * container "fluent-bit" (HTTP_Port 2020 in ...; catalog entry fluent-bit-http-server)`; undefined
 * when the state is not that.
 */
export function sideOnlyReason(graph: ObjectGraph, w: Workload): string | undefined {
  if (servedStateOf(graph, w) !== 'unserved' || graph.servedState(w) !== 'served') return undefined;
  const parts = graph.servedPortsOf(w).map((p) => {
    const m = monitoringPortOf(graph, w, p.container);
    const what =
      m?.port !== undefined && reachedPortNumber(p) === m.port && !notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))
        ? `the monitoring server of container "${p.container.name}" (${m.derivation}; catalog entry ${m.entry.id})`
        : reachedPortNumber(p) !== undefined && reachedPortNumber(p) === controllerRuntimeMetricsPort(p.container) && !notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))
          ? `the controller-runtime metrics server of container "${p.container.name}" (--metrics-bind-address)`
          : reachedPortNumber(p) !== undefined && reachedPortNumber(p) === healthProbePort(p.container) && !notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))
          ? `the health probe server of container "${p.container.name}" (its health probe listen flag)`
          : peerRoutedOf(graph, w, p.container) && !notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))
          ? `container "${p.container.name}", which runs ${peerRoutedOf(graph, w, p.container)!}, which no client reaches through a Service (its peers dial the pods by the addresses they know from the hash ring or from its registration, or it pulls its work)`
          : pushIngestPort(p)
          ? pushIngestPort(p)!
          : isExporterService(graph, p.service, w)
          ? "an exporter's or metrics component's endpoint"
          : exporterPort(graph, p) && !notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))
          ? `container "${p.container.name}", a Prometheus exporter (image ${p.container.image})`
          : isRbacProxiedMetrics(graph, w, p)
            ? 'a kube-rbac-proxy in front of metrics (a ServiceMonitor scrapes it, or its --upstream is the pod\'s controller-runtime metrics server)'
          : isIdleContainer(p.container.raw) && !notClientPort(p.servicePort, p.containerPort?.name, portProgram(p.container))
            ? `only the idle container "${p.container.name}" (image ${p.container.image}), which serves nothing`
            : 'a port named for metrics, operators or peers';
    return `Service ${p.service.obj.name} port ${p.servicePort.port ?? p.servicePort.name} reaches ${what}`;
  });
  // An idle container (a pause placeholder) may stand for a proxy injected at admission, which the
  // manifest does not show: say that the finding is about the manifest (review report p29 item 4).
  const idle = graph.servedPortsOf(w).some((p) => isIdleContainer(p.container.raw));
  // Pushed metrics are traffic, but no sender waits on an answer: say that, not "no client traffic".
  const pushed = sideOnlyPushed(graph, w);
  return `${[...new Set(parts)].join('; ')}: ${pushed ? 'no client requests, only metrics pushed to the ingest port: the samples sent while the endpoint removal propagates are lost (seconds of metrics, no failed request)' : 'no client traffic'}${idle ? ' to any program of the manifest (a container injected at admission is not in it)' : ''}`;
}

/** Whether a Service port that makes the workload not served (sideOnlyReason) reaches a push-ingest port (pushIngestPort). */
export function sideOnlyPushed(graph: ObjectGraph, w: Workload): boolean {
  return graph.servedPortsOf(w).some((p) => pushIngestPort(p) !== undefined);
}

/**
 * Containers that receive user traffic: those behind trafficPorts. Without a traffic Service in the
 * set, graph.servedContainers' evidence: on `served` (hint) the containers that declare ports (or a
 * lone main container); on `unknown` only containers that declare a non-metrics TCP port.
 */
export function trafficContainers(graph: ObjectGraph, w: Workload): ContainerView[] {
  return trafficContainersOf(graph, w).slice();
}

/** trafficContainers, computed once per workload and run (not to be mutated). */
export function trafficContainersOf(graph: ObjectGraph, w: Workload): readonly ContainerView[] {
  return graph.memo(trafficContainersOf, w, () => {
    if (servedStateOf(graph, w) === 'unserved') return [];
    if (graph.trafficServices(w).length === 0) {
      const unknown = graph.servedState(w) === 'unknown';
      // On `unknown`, a container counts by a declared port that suggests clients: not its program's
      // own monitoring port (a catalog monitoring-port entry: Falco's webserver, 8765, named web).
      return graph.servedContainers(w).filter((c) => !isIdleContainer(c.raw) && (!unknown || clientEvidencePorts(graph, w, c).length > 0));
    }
    const hit = new Set(trafficPortsOf(graph, w).map((p) => p.container));
    return [...w.containers, ...w.sidecars].filter((c) => hit.has(c));
  });
}

/**
 * The traffic ports whose endpoint goes away when the pod starts terminating: trafficPorts without
 * those of Services with `publishNotReadyAddresses: true`. For those the EndpointSlice controller
 * keeps a terminating pod as a ready endpoint until the pod object is deleted (endpointslice
 * utils podToEndpoint: `ready := service.Spec.PublishNotReadyAddresses || (serving && !terminating)`),
 * so kube-proxy and CoreDNS route to it through the whole termination whatever a preStop hook does:
 * there is no removal for a delay to wait for (prestop-missing). Nor the ports of a container whose
 * peers dial its pods by address (graph.ts peerDialedPort: Pyroscope's ingester, segment-writer, ...,
 * and a Hazelcast member behind a headless Service),
 * unless an Ingress or route sends to them: no client goes through the endpoint whose removal a
 * delay would wait for, though the workload stays served for the other rules.
 */
export function removedPortsOf(graph: ObjectGraph, w: Workload): readonly ServedPort[] {
  return graph.memo(removedPortsOf, w, () =>
    trafficPortsOf(graph, w).filter((p) => !p.service.publishNotReadyAddresses && (graph.routedPort(p.service, p.servicePort) || !peerDialedPort(p))),
  );
}

/**
 * The traffic containers whose endpoints are removed when termination starts: those behind
 * removedPortsOf when a traffic Service in the set routes to the workload, else trafficContainers'
 * evidence (the hint, declared ports) without the containers peers dial by address (peerDialed).
 */
export function removedContainersOf(graph: ObjectGraph, w: Workload): readonly ContainerView[] {
  return graph.memo(removedContainersOf, w, () => {
    if (servedStateOf(graph, w) === 'unserved' || graph.trafficServices(w).length === 0) return trafficContainersOf(graph, w).filter((c) => !peerDialed(c));
    const hit = new Set(removedPortsOf(graph, w).map((p) => p.container));
    return trafficContainersOf(graph, w).filter((c) => hit.has(c));
  });
}

/**
 * How the advice rules (prestop-missing, readiness-probe-missing, rollout-full-outage, recreate-strategy,
 * replicas-not-spread, ...) decide served status: `served` counts; `unserved` does not; `unknown` counts
 * when a container declares a non-metrics TCP port (a port is declared to be reached; an app repository
 * with one file per object keeps its Service elsewhere), and the finding says it assumed so.
 */
export function likelyServed(graph: ObjectGraph, w: Workload): boolean {
  const state = servedStateOf(graph, w);
  if (state !== 'unknown') return state === 'served';
  return trafficContainersOf(graph, w).length > 0;
}

/**
 * The clause an advice finding adds when it assumed traffic on an `unknown` workload, else ''.
 * E.g. ` (no Service in the input selects it, but it declares port http/8080: assumed served;
 * annotate kubegrace.dev/served: "false" if nothing routes to it)`.
 */
export function assumedServedNote(graph: ObjectGraph, w: Workload): string {
  if (graph.servedState(w) !== 'unknown') return '';
  const ports = trafficContainers(graph, w)
    .flatMap((c) => clientEvidencePorts(graph, w, c))
    .map((p) => (p.name ? `${p.name}/${p.containerPort}` : String(p.containerPort)));
  const list = [...new Set(ports)].slice(0, 3).join(', ');
  return ` (served status unknown: no Service in the input selects it, but it declares ${ports.length > 1 ? 'ports' : 'port'} ${list}, so it is assumed served; annotate kubegrace.dev/served: "false" if nothing routes to it)`;
}

/** The served-status decision of the advice rules, for their docs (one text, so the docs agree). */
export const SERVED_STATUS_DOC = `**Served status** (graceful-termination.md section 0): *served* when a Service in the input selects the
pod template and one of its ports carries user traffic to it (Services whose every port is for metrics, operators or
peers do not count: named so, an exporter's (by its labels or name, or the exporter image its port reaches), or the monitoring server of a program the catalog knows, such as Fluent
Bit's port 2020) or the pods carry \`kubegrace.dev/served: "true"\`; *unserved*
when the hint says \`"false"\`, or the input holds Services in the workload's namespace and none of them routes
to it (a whole chart or app was linted): skipped. *Unknown* when the input holds no Service in that namespace
(the one-file-per-object layout of an app repository): reported only when a container declares a TCP port
not named like a metrics or operator port (\`metrics\`, \`diag\`, \`health\`, \`admin\`, \`debug\`, ...) nor, when
the input holds other objects of its namespace, the monitoring server of a program the catalog knows (Falco's
webserver, 8765; an object alone is judged by its port names, as the admission policies judge it), since a port is declared to be reached, and the message says that it assumed the pods are served and how to say
otherwise.`;

/** Which container serves a numeric targetPort that no container declares, for the serving rules' docs (one text, so the docs agree). */
export const UNDECLARED_PORT_DOC = `**Undeclared ports:** a numeric \`targetPort\` that no container declares is served by the lone main
container of the pod. With several main containers, by the one whose own configuration names the port as one it
listens on: an \`env\` value equal to the number or a listen address \`[host]:N\`, or an arg \`--*port*=N\`,
\`--*=[host]:N\`, \`[host]:N\` or \`--*port* N\` (Flink's operator pod: \`flink-webhook\` with \`WEBHOOK_SERVER_PORT: '9443'\`,
beside the operator container that declares only \`health-port\`); loopback addresses, host names and names of a
port the container calls (\`upstream\`, \`backend\`, \`target\`, \`app\`, another container's name, ...) do not count. A
mesh proxy (\`istio-proxy\`, \`linkerd-proxy\`) counts only by a listen address of its own: the other port numbers in its
env are the app's, which it forwards to; beside it, a lone other main container serves the port. When no container
names the port, the container is a guess (one declaring an operator port, else one declaring no port, else the one
named like the workload), and the finding says so: \`probably container "x" (no container declares port 9443 or names
it in its env or args)\`; any repair on such a container is a proposal, not a safe fix. A headless Service maps no
ports, so on one neither a guess nor a port that falls to a lone main container which declares other ports, names this
one nowhere in its env or args and probes it not, is counted: nothing says the container listens there (the vector
chart's headless Service lists the Aggregator's ports for the Agent too).`;
