import { GRACE_MARGIN_SECONDS } from '../timeline/budget';
import { ISTIO, LINKERD } from '../timeline/mesh';

/** Linkerd and Istio pod-template annotations and labels (graceful-termination.md section 9), as lib/timeline/mesh reads them. */
export const MESH_KEYS = {
  linkerdInject: LINKERD.inject,
  linkerdWaitBeforeExit: LINKERD.waitBeforeExit,
  linkerdShutdownGracePeriod: LINKERD.shutdownGracePeriod,
  linkerdNativeSidecar: LINKERD.nativeSidecar[0],
  istioInject: ISTIO.inject,
  istioNativeSidecar: ISTIO.nativeSidecar,
  istioProxyConfig: ISTIO.proxyConfig,
} as const;

export interface LinkerdOptions {
  /**
   * Run the injected proxy as a native sidecar (`config.linkerd.io/proxy-enable-native-sidecar`).
   * The proxy then outlives the app by itself, and `proxy-wait-before-exit-seconds` is ignored, so it
   * is not written. Needs Kubernetes >= 1.29.
   * @default false (classic proxy container, kept alive with proxy-wait-before-exit-seconds)
   */
  readonly nativeSidecar?: boolean;
  /**
   * Write `linkerd.io/inject: enabled` on the pod template.
   * @default true
   */
  readonly inject?: boolean;
}

export interface IstioOptions {
  /**
   * Run the injected proxy as a native sidecar (`sidecar.istio.io/nativeSidecar`); needs
   * Kubernetes >= 1.29.
   * @default false (classic proxy container, drained for terminationDrainDuration)
   */
  readonly nativeSidecar?: boolean;
  /**
   * Classic mode: `proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"`, so the proxy exits as
   * soon as its connections are gone instead of always waiting out the drain duration.
   * @default false
   */
  readonly exitOnZeroActiveConnections?: boolean;
  /**
   * Write the `sidecar.istio.io/inject: "true"` label on the pod template.
   * @default true
   */
  readonly inject?: boolean;
}

/**
 * A service mesh whose injected proxy must outlive the app's shutdown. Its annotations are derived
 * from the app's shutdown time (preStop + drain), so the proxy stays up exactly as long as the app
 * needs it and the grace period covers both.
 */
export class Mesh {
  /** Linkerd: classic mode waits `proxy-wait-before-exit-seconds` = preStop + drain (MESH-LINKERD-001). */
  static linkerd(options: LinkerdOptions = {}): Mesh {
    return new Mesh('linkerd', options.nativeSidecar ?? false, options.inject ?? true, false);
  }

  /** Istio: classic mode drains for `terminationDrainDuration` = preStop + drain (MESH-ISTIO-001). */
  static istio(options: IstioOptions = {}): Mesh {
    return new Mesh('istio', options.nativeSidecar ?? false, options.inject ?? true, options.exitOnZeroActiveConnections ?? false);
  }

  private constructor(
    readonly name: 'linkerd' | 'istio',
    readonly nativeSidecar: boolean,
    readonly inject: boolean,
    private readonly exitOnZero: boolean,
  ) {}

  /**
   * Seconds a classic proxy stays up after the pod starts terminating: the app's preStop + drain,
   * at least one second more than the preStop (Linkerd wants preStop < wait < grace).
   */
  proxyStaySeconds(appPreStopSeconds: number, appDrainSeconds: number): number {
    return Math.ceil(appPreStopSeconds + Math.max(appDrainSeconds, 1));
  }

  /** Pod-template annotations for an app that stops after preStop + drain seconds. */
  podAnnotations(appPreStopSeconds: number, appDrainSeconds: number): Record<string, string> {
    const stay = this.proxyStaySeconds(appPreStopSeconds, appDrainSeconds);
    if (this.name === 'linkerd') {
      const a: Record<string, string> = { [MESH_KEYS.linkerdNativeSidecar]: String(this.nativeSidecar) };
      if (this.inject) a[MESH_KEYS.linkerdInject] = 'enabled';
      if (!this.nativeSidecar) a[MESH_KEYS.linkerdWaitBeforeExit] = String(stay);
      return a;
    }
    const a: Record<string, string> = { [MESH_KEYS.istioNativeSidecar]: String(this.nativeSidecar) };
    if (!this.nativeSidecar) {
      const lines = [`terminationDrainDuration: ${stay}s`];
      if (this.exitOnZero) lines.push('proxyMetadata:', '  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"');
      a[MESH_KEYS.istioProxyConfig] = `${lines.join('\n')}\n`;
    }
    return a;
  }

  /**
   * Annotations that depend on the grace period. For clients with long-lived connections, Linkerd's
   * `shutdown-grace-period` (default 120 s) would outlast the grace period, so SIGKILL rather than the
   * proxy would close them (MESH-LINKERD-002): it gets what is left after the proxy's wait (classic)
   * or the app's shutdown (native) and the margin, at least 1 s.
   */
  graceAnnotations(appPreStopSeconds: number, appDrainSeconds: number, gracePeriodSeconds: number, longLivedConnections: boolean): Record<string, string> {
    if (this.name !== 'linkerd' || !longLivedConnections) return {};
    const before = this.nativeSidecar ? appPreStopSeconds + appDrainSeconds : this.proxyStaySeconds(appPreStopSeconds, appDrainSeconds);
    const left = Math.max(Math.floor(gracePeriodSeconds - before - GRACE_MARGIN_SECONDS), 1);
    return { [MESH_KEYS.linkerdShutdownGracePeriod]: `${left}s` };
  }

  /** Pod-template labels. */
  podLabels(): Record<string, string> {
    return this.name === 'istio' && this.inject ? { [MESH_KEYS.istioInject]: 'true' } : {};
  }
}
