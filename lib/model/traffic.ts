import { METRICS_PORT, ObjectGraph, ServedPort, ServiceView } from './graph';
import { matches, parseLabelSelector, stringMap } from './selector';
import { ContainerView, get, Workload } from './workload';

/**
 * Which Service ports and containers carry user traffic, as opposed to scrapes: the refinement of
 * ObjectGraph.servedPorts that the serving rules use.
 */

/**
 * Metrics port names (METRICS_PORT, the pattern graph.ts uses for metrics-only Services) applied
 * per port, so a metrics port of a mixed Service does not make its container "served".
 */
/** `app.kubernetes.io/component: exporter`: the Service exists for Prometheus, whose only client scrapes it. */
const EXPORTER_COMPONENT = 'exporter';

function isMetricsPort(p: ServedPort): boolean {
  const names = [p.servicePort.name, typeof p.servicePort.targetPort === 'string' ? p.servicePort.targetPort : undefined, p.containerPort?.name];
  return names.some((n) => n !== undefined && METRICS_PORT.test(n));
}

function isExporterService(s: ServiceView, w: Workload): boolean {
  const labels = stringMap(get(s.obj.raw, 'metadata', 'labels'));
  return labels['app.kubernetes.io/component'] === EXPORTER_COMPONENT || w.templateLabels['app.kubernetes.io/component'] === EXPORTER_COMPONENT;
}

/** Whether a ServiceMonitor in the set scrapes this Service port (by port name or targetPort). */
function scrapedByServiceMonitor(graph: ObjectGraph, p: ServedPort): boolean {
  const svc = p.service.obj;
  const labels = stringMap(get(svc.raw, 'metadata', 'labels'));
  return graph.ofKind('ServiceMonitor').some((o) => {
    const anyNs = get(o.raw, 'spec', 'namespaceSelector', 'any') === true;
    const names = get(o.raw, 'spec', 'namespaceSelector', 'matchNames');
    const nsOk = anyNs || (Array.isArray(names) ? names.includes(svc.namespace ?? '') : (o.namespace ?? '') === (svc.namespace ?? ''));
    if (!nsOk || !matches(parseLabelSelector(get(o.raw, 'spec', 'selector')), labels)) return false;
    const eps = get(o.raw, 'spec', 'endpoints');
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
 * kube-rbac-proxy in front of a port a ServiceMonitor scrapes: the metrics-auth pattern of
 * kube-prometheus and operator-sdk projects (ports named "https", so the name rule misses them).
 */
function isRbacProxiedMetrics(graph: ObjectGraph, p: ServedPort): boolean {
  return /(^|\/)kube-rbac-proxy(:|@|$)/.test(p.container.image) && scrapedByServiceMonitor(graph, p);
}

/**
 * Served ports that carry user traffic: graph.servedPorts without metrics-named ports of mixed
 * Services, without Services of exporters (`app.kubernetes.io/component: exporter`) and without
 * kube-rbac-proxy ports that a ServiceMonitor scrapes. Prometheus scrapes those through the endpoints,
 * not through kube-proxy, and a missed scrape is not lost traffic.
 */
export function trafficPorts(graph: ObjectGraph, w: Workload): ServedPort[] {
  return graph.servedPorts(w).filter((p) => !isMetricsPort(p) && !isExporterService(p.service, w) && !isRbacProxiedMetrics(graph, p));
}

/**
 * Containers that receive user traffic: those behind trafficPorts. With only the served hint and
 * no traffic Service in the set, graph.servedContainers' guess (containers declaring ports).
 */
export function trafficContainers(graph: ObjectGraph, w: Workload): ContainerView[] {
  if (!graph.served(w)) return [];
  if (graph.trafficServices(w).length === 0) return graph.servedContainers(w);
  const hit = new Set(trafficPorts(graph, w).map((p) => p.container));
  return [...w.containers, ...w.sidecars].filter((c) => hit.has(c));
}

