import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { GracefulDeployment, GracefulDeploymentProps, NativeSidecarProps } from 'kubegrace/constructs';

/**
 * A program the container runs as its preStop hook, with how long it runs. kubegrace cannot know
 * how long an arbitrary program takes, so the duration is part of the declaration: it becomes the
 * `kubegrace.dev/prestop-seconds` hint that sizes the grace period and that `kubegrace lint` and
 * `kubegrace explain` read.
 */
export interface DrainHook {
  readonly command: string[];
  readonly seconds: number;
}

export interface PlatformServiceProps extends Omit<GracefulDeploymentProps, 'containers' | 'customPreStopSeconds'> {
  /** Owning team: a label on every pod, and the cost-allocation annotation. */
  readonly team: string;
  readonly image: string;
  /** The HTTP port the service listens on. @default 8080 */
  readonly port?: number;
  /** The app's own drain program as the preStop hook. @default - kubegrace's preStop delay */
  readonly drainHook?: DrainHook;
  /** Ship logs with the platform's log shipper, as a native sidecar. @default true */
  readonly logShipper?: boolean;
}

/** The platform team's log shipper: a native sidecar that outlives the app's last log line. */
export const LOG_SHIPPER: NativeSidecarProps = {
  name: 'log-shipper',
  image: 'fluent/fluent-bit:3.2.4',
  ports: [{ name: 'http-metrics', number: 2020 }],
  readinessProbe: { httpGet: { path: '/api/v1/health', port: 2020 } },
  drainSeconds: 5,
  resources: { requests: { cpu: '20m', memory: '32Mi' }, limits: { memory: '64Mi' } },
};

/**
 * The company's standard HTTP service: a kubegrace GracefulDeployment (surge-first rollouts, a
 * preStop delay, a grace period computed from the shutdown timeline, PDB, spread) plus the
 * platform's conventions: team labels, /readyz and /livez probes, resource requests, the log
 * shipper sidecar, and an optional drain program whose duration is declared.
 */
export class PlatformService extends GracefulDeployment {
  readonly team: string;

  constructor(scope: Construct, id: string, props: PlatformServiceProps) {
    const port = props.port ?? 8080;
    const hook = props.drainHook;
    super(scope, id, {
      replicas: 3,
      ...props,
      containers: [
        {
          name: 'app',
          image: props.image,
          ports: [{ name: 'http', number: port }],
          readiness: kplus.Probe.fromHttpGet('/readyz', { port, periodSeconds: Duration.seconds(5) }),
          liveness: kplus.Probe.fromHttpGet('/livez', { port, failureThreshold: 6 }),
          resources: { cpu: { request: kplus.Cpu.millis(200), limit: kplus.Cpu.millis(1000) }, memory: { request: Size.mebibytes(256), limit: Size.mebibytes(512) } },
          securityContext: { ensureNonRoot: true, user: 10001 },
          ...(hook ? { lifecycle: { preStop: kplus.Handler.fromCommand(hook.command) } } : {}),
        },
      ],
      ...(hook ? { customPreStopSeconds: hook.seconds } : {}),
      sidecars: [...(props.logShipper === false ? [] : [LOG_SHIPPER]), ...(props.sidecars ?? [])],
    });
    this.team = props.team;
    this.podMetadata.addLabel('example.com/team', props.team);
    this.metadata.addAnnotation('example.com/cost-center', props.team);
  }
}
