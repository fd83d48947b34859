import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { LoadBalancer } from './load-balancer';
import { ManifestOverlay } from './overlay';

/** A Service in front of a graceful workload. */
export interface GracefulServiceOptions {
  /**
   * The Service ports.
   * @default - one port per main-container port (port = targetPort = containerPort, same name)
   */
  readonly ports?: kplus.ServicePort[];
  /**
   * @default ServiceType.CLUSTER_IP (LOAD_BALANCER with LoadBalancer.awsNlbIp())
   */
  readonly type?: kplus.ServiceType;
  /**
   * An external load balancer that targets the pod IPs: sets the Service type and annotations, the
   * pod readiness gate, the default preStop delay (its propagation window) and a minimum
   * minReadySeconds of 10 (ROLL-003).
   * @default - none
   */
  readonly loadBalancer?: LoadBalancer;
  /** @default - a generated name */
  readonly name?: string;
  /** @default {} */
  readonly annotations?: Record<string, string>;
  /** @default {} */
  readonly labels?: Record<string, string>;
}

/** Fields cdk8s-plus' Service has no prop for, written through the overlay. */
export interface ServiceExtras {
  /** @default - allocated */
  readonly clusterIP?: string;
  /** @default - not written (false) */
  readonly publishNotReadyAddresses?: boolean;
  /** @default - not written (Cluster) */
  readonly internalTrafficPolicy?: 'Cluster' | 'Local';
  /** Deregistration delay for the load balancer's target group. */
  readonly deregistrationDelaySeconds: number;
}

/** The default Service ports of a workload: one per main-container port. */
export function containerServicePorts(containers: kplus.Container[], what: string): kplus.ServicePort[] {
  const ports = containers.flatMap((c) => c.ports).map((p) => ({ port: p.number, targetPort: p.number, name: p.name, protocol: p.protocol }));
  if (ports.length === 0) throw new Error(`${what}: cannot create a Service: no container declares a port; give the containers ports or pass service.ports`);
  if (ports.length > 1 && ports.some((p) => !p.name)) throw new Error(`${what}: a Service with several ports needs a name on each: name the container ports or pass service.ports`);
  return ports;
}

export function createService(scope: Construct, id: string, workload: kplus.Workload & { readonly containers: kplus.Container[] }, options: GracefulServiceOptions, extras: ServiceExtras): kplus.Service {
  const what = `Service ${scope.node.path}/${id}`;
  const lb = options.loadBalancer;
  const ports = options.ports ?? containerServicePorts(workload.containers, what);
  const svc = new kplus.Service(scope, id, {
    selector: workload,
    ports,
    type: options.type ?? lb?.serviceType ?? kplus.ServiceType.CLUSTER_IP,
    clusterIP: extras.clusterIP,
    metadata: definedOnly({
      name: options.name,
      namespace: workload.metadata.namespace,
      annotations: { ...(lb?.serviceAnnotations(extras.deregistrationDelaySeconds) ?? {}), ...(options.annotations ?? {}) },
      labels: options.labels,
    }),
  });
  if (extras.publishNotReadyAddresses !== undefined || extras.internalTrafficPolicy !== undefined) {
    ManifestOverlay.of(svc).addTransform((m) => {
      const spec = m.spec as Record<string, unknown>;
      if (extras.publishNotReadyAddresses !== undefined) spec.publishNotReadyAddresses = extras.publishNotReadyAddresses;
      if (extras.internalTrafficPolicy !== undefined) spec.internalTrafficPolicy = extras.internalTrafficPolicy;
    });
  }
  return svc;
}

/** Drops undefined values: cdk8s spreads metadata props over its defaults, so an undefined name would erase the generated one. */
export function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
