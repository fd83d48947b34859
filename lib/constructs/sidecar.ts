import { JsonObject } from '../model/types';
import { DEFAULT_SIDECAR_DRAIN_SECONDS } from '../timeline/addends';

export { DEFAULT_SIDECAR_DRAIN_SECONDS };

/** How a probe checks the container (exactly one handler). */
export interface ProbeSpec {
  /** @default - none */
  readonly httpGet?: { readonly path: string; readonly port: number | string; readonly scheme?: 'HTTP' | 'HTTPS' };
  /** @default - none */
  readonly tcpSocket?: { readonly port: number | string };
  /** @default - none */
  readonly exec?: { readonly command: string[] };
  /** @default - none */
  readonly grpc?: { readonly port: number; readonly service?: string };
  /** @default 0 (API default) */
  readonly initialDelaySeconds?: number;
  /** @default 10 (API default) */
  readonly periodSeconds?: number;
  /** @default 1 (API default) */
  readonly timeoutSeconds?: number;
  /** @default 3 (API default) */
  readonly failureThreshold?: number;
  /** @default 1 (API default) */
  readonly successThreshold?: number;
}

/** A container port of a native sidecar. */
export interface SidecarPort {
  /** @default - unnamed */
  readonly name?: string;
  readonly number: number;
  /** @default 'TCP' */
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
}

/**
 * A native sidecar (KEP-753): an init container with `restartPolicy: Always`. It starts before the
 * main containers (the next container waits for its startupProbe), keeps running beside them, and
 * is stopped only after every main container has exited, so a proxy or log shipper outlives the
 * app's drain. Needs Kubernetes >= 1.29.
 */
export interface NativeSidecarProps {
  /** Container name, unique in the pod. */
  readonly name: string;
  readonly image: string;
  /** @default - the image's entrypoint */
  readonly command?: string[];
  /** @default - the image's arguments */
  readonly args?: string[];
  /** @default {} */
  readonly env?: Record<string, string>;
  /** @default [] */
  readonly ports?: SidecarPort[];
  /**
   * Decides when the next init container and the main containers start.
   * @default - a tcpSocket check on the first port, if the sidecar has one; otherwise none
   */
  readonly startupProbe?: ProbeSpec;
  /**
   * Counts toward pod readiness. Required when a Service targets one of the sidecar's ports.
   * @default - none
   */
  readonly readinessProbe?: ProbeSpec;
  /** @default - none */
  readonly livenessProbe?: ProbeSpec;
  /**
   * Seconds the sidecar needs after its SIGTERM, which comes only after the main containers have
   * exited: added to the grace period (graceful-termination.md SIDE-002) and written as the
   * `kubegrace.dev/sidecar-drain-seconds` hint.
   * @default 5
   */
  readonly drainSeconds?: number;
  /** @default - none (the container runs without requests or limits) */
  readonly resources?: {
    /** e.g. `{ cpu: '100m', memory: '64Mi' }` @default - none */
    readonly requests?: Record<string, string>;
    /** @default - none */
    readonly limits?: Record<string, string>;
  };
  /**
   * The container's securityContext.
   * @default { allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: true, runAsNonRoot: true } (the cdk8s-plus defaults)
   */
  readonly securityContext?: Record<string, unknown>;
}


export function probeJson(p: ProbeSpec): JsonObject {
  const handlers = ['httpGet', 'tcpSocket', 'exec', 'grpc'] as const;
  const set = handlers.filter((h) => p[h] !== undefined);
  if (set.length !== 1) throw new Error(`a probe needs exactly one handler (httpGet, tcpSocket, exec or grpc), got ${set.length ? set.join(', ') : 'none'}`);
  return JSON.parse(JSON.stringify(p)) as JsonObject;
}

/** The init-container JSON of a native sidecar. */
export function nativeSidecarJson(s: NativeSidecarProps): JsonObject {
  const c: JsonObject = { name: s.name, image: s.image, restartPolicy: 'Always' };
  if (s.command) c.command = [...s.command];
  if (s.args) c.args = [...s.args];
  if (s.env && Object.keys(s.env).length) c.env = Object.entries(s.env).map(([name, value]) => ({ name, value }));
  const ports = s.ports ?? [];
  if (ports.length) {
    c.ports = ports.map((p) => {
      const o: JsonObject = { containerPort: p.number };
      if (p.name) o.name = p.name;
      if (p.protocol && p.protocol !== 'TCP') o.protocol = p.protocol;
      return o;
    });
  }
  const startup = s.startupProbe ?? (ports.length ? { tcpSocket: { port: ports[0].name ?? ports[0].number } } : undefined);
  if (startup) c.startupProbe = probeJson(startup);
  if (s.readinessProbe) c.readinessProbe = probeJson(s.readinessProbe);
  if (s.livenessProbe) c.livenessProbe = probeJson(s.livenessProbe);
  if (s.resources) c.resources = JSON.parse(JSON.stringify(s.resources)) as JsonObject;
  c.securityContext = (s.securityContext ?? { allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: true, runAsNonRoot: true }) as JsonObject;
  return c;
}
