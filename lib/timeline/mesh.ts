/**
 * Service-mesh sidecar configuration, read from a workload exactly as the injectors read it
 * (graceful-termination.md section 9, MESH-LINKERD-* and MESH-ISTIO-*). Pure functions: the rules,
 * the addends and the constructs share them.
 */
import { parse as parseYaml } from 'yaml';
import { Labels, stringMap } from '../model/selector';
import { isObject, Json, KObject } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { imageRepository } from '../catalog';
import { parseGoDuration } from './duration';
import { preStopDelay } from './prestop';

export type SidecarMode = 'native' | 'classic';

/** Where a setting came from: pod template / workload annotation, the Namespace, the rendered container, or the default. */
export type Origin = 'annotation' | 'namespace' | 'container' | 'default';

/** A mesh setting the injector would reject or ignore: reported by the mesh rules, never thrown. */
export interface MeshProblem {
  /** The annotation (or container env variable) holding the bad value. */
  key: string;
  value: string;
  /** Where the value is written. */
  origin: 'annotation' | 'namespace' | 'container';
  message: string;
}

export interface MeshOptions {
  /** The Namespace object of the workload, when it is in the linted set (namespace-level injection). */
  namespace?: KObject;
  /** Mode assumed when neither an annotation nor a rendered proxy says (see linkerdMesh / istioMesh). */
  nativeDefault?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Linkerd

export const LINKERD = {
  inject: 'linkerd.io/inject',
  waitBeforeExit: 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds',
  shutdownGracePeriod: 'config.linkerd.io/shutdown-grace-period',
  /** Native-sidecar switches, most authoritative first (GA, beta, alpha). */
  nativeSidecar: [
    'config.linkerd.io/proxy-enable-native-sidecar',
    'config.beta.linkerd.io/proxy-enable-native-sidecar',
    'config.alpha.linkerd.io/proxy-enable-native-sidecar',
  ],
  proxyContainer: 'linkerd-proxy',
  shutdownGraceEnv: 'LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD',
  identityAddrEnv: 'LINKERD2_PROXY_IDENTITY_SVC_ADDR',
} as const;

export const LINKERD_DEFAULTS = {
  waitBeforeExitSeconds: 0,
  /** The proxy's own default when the annotation is absent (linkerd/website graceful-shutdown). */
  shutdownGracePeriodSeconds: 120,
} as const;

export interface LinkerdMesh {
  mesh: 'linkerd';
  /** How injection is evident: inject annotation, Namespace annotation, or a rendered linkerd-proxy. */
  injectedBy: Origin;
  /** The rendered proxy container, when the manifest already carries it. */
  proxy?: ContainerView;
  mode: SidecarMode;
  modeOrigin: Origin;
  /** The annotation that set the mode, when one did. */
  modeKey?: string;
  /** proxy-wait-before-exit-seconds: the proxy's preStop sleep in classic mode. */
  waitBeforeExitSeconds: number;
  waitOrigin: Origin;
  shutdownGracePeriodSeconds: number;
  shutdownGraceOrigin: Origin;
  /**
   * The proxy bootstraps identity from a main container of its own pod (the identity controller):
   * it cannot start before the main containers, so it cannot be a native sidecar.
   */
  selfIdentity: boolean;
  problems: MeshProblem[];
}

/** An annotation from the pod template / workload, else from the Namespace (Linkerd reads both). */
function podOrNamespace(w: Workload, ns: KObject | undefined, key: string): { value: string; origin: 'annotation' | 'namespace' } | undefined {
  const v = w.annotations[key];
  if (v !== undefined) return { value: v, origin: 'annotation' };
  const nv = namespaceAnnotations(ns)[key];
  return nv === undefined ? undefined : { value: nv, origin: 'namespace' };
}

function namespaceAnnotations(ns: KObject | undefined): Labels {
  return ns ? stringMap(get(ns.raw, 'metadata', 'annotations')) : {};
}

function namespaceLabels(ns: KObject | undefined): Labels {
  return ns ? stringMap(get(ns.raw, 'metadata', 'labels')) : {};
}

function findContainer(w: Workload, name: string): ContainerView | undefined {
  return w.sidecars.find((c) => c.name === name) ?? w.containers.find((c) => c.name === name);
}

function envValue(c: ContainerView, name: string): string | undefined {
  const env = c.raw.env;
  if (!Array.isArray(env)) return undefined;
  for (const e of env) if (isObject(e) && e.name === name && typeof e.value === 'string') return e.value;
  return undefined;
}

/** Linkerd proxy configuration annotations: their presence means the pod is meant to be meshed. */
const LINKERD_CONFIG_PREFIXES = ['config.linkerd.io/', 'config.alpha.linkerd.io/', 'config.beta.linkerd.io/'];

function hasAnnotationPrefix(w: Workload, prefixes: string[]): boolean {
  return Object.keys(w.annotations).some((k) => prefixes.some((p) => k.startsWith(p)));
}

/** Injectors skip host-network pods (Linkerd and Istio both refuse to redirect the node's traffic). */
function hostNetwork(w: Workload): boolean {
  return w.podSpec.hostNetwork === true;
}

/**
 * Linkerd configuration of a workload, or undefined when Linkerd injection is not evident.
 *
 * Injection is evident from `linkerd.io/inject: enabled|ingress` on the pod template or workload,
 * the same annotation on the Namespace (when it is in the set and the pod does not say
 * `disabled`), a rendered container named `linkerd-proxy`, or proxy configuration annotations on the
 * pod template or workload (`config.linkerd.io/*`, `config.alpha.linkerd.io/*`, `config.beta.linkerd.io/*`):
 * nobody configures a proxy that is not injected, and namespace-level injection (the common setup) is
 * usually outside the linted set. `linkerd.io/inject: disabled` on the pod wins.
 *
 * Mode: a rendered proxy decides (init container with `restartPolicy: Always` = native); else the
 * native-sidecar annotation (GA, beta, alpha form, in that order; "true"/"false"); else
 * `nativeDefault` (the rules default to classic: native became Linkerd's default only in 2.20).
 */
export function linkerdMesh(w: Workload, opts: MeshOptions = {}): LinkerdMesh | undefined {
  const ns = opts.namespace;
  const proxy = findContainer(w, LINKERD.proxyContainer);
  const inject = podOrNamespace(w, ns, LINKERD.inject);
  const podSaysDisabled = w.annotations[LINKERD.inject]?.trim() === 'disabled';
  const enabled = (v: string | undefined) => v !== undefined && ['enabled', 'ingress'].includes(v.trim());
  let injectedBy: Origin | undefined;
  if (proxy) injectedBy = 'container';
  else if (!hostNetwork(w) && !podSaysDisabled && inject && enabled(inject.value)) injectedBy = inject.origin;
  else if (!hostNetwork(w) && !podSaysDisabled && !(inject && inject.value.trim() === 'disabled') && hasAnnotationPrefix(w, LINKERD_CONFIG_PREFIXES)) injectedBy = 'annotation';
  if (!injectedBy) return undefined;

  const problems: MeshProblem[] = [];

  let mode: SidecarMode = opts.nativeDefault ? 'native' : 'classic';
  let modeOrigin: Origin = 'default';
  let modeKey: string | undefined;
  if (proxy) {
    mode = proxy.role === 'sidecar' ? 'native' : 'classic';
    modeOrigin = 'container';
  } else {
    for (const key of LINKERD.nativeSidecar) {
      const a = podOrNamespace(w, ns, key);
      if (!a) continue;
      const v = a.value.trim();
      if (v === 'true' || v === 'false') {
        mode = v === 'true' ? 'native' : 'classic';
        modeOrigin = a.origin;
        modeKey = key;
        break;
      }
      problems.push({ key, value: a.value, origin: a.origin, message: `"${a.value}" is not "true" or "false"; Linkerd treats it as false (classic proxy)` });
      mode = 'classic';
      modeOrigin = a.origin;
      modeKey = key;
      break;
    }
  }

  // proxy-wait-before-exit-seconds: a rendered classic proxy carries it as its preStop sleep.
  let wait: number = LINKERD_DEFAULTS.waitBeforeExitSeconds;
  let waitOrigin: Origin = 'default';
  const waitAnn = podOrNamespace(w, ns, LINKERD.waitBeforeExit);
  if (proxy && proxy.role === 'main') {
    const pre = preStopDelay(proxy.raw);
    if (pre.seconds !== undefined) {
      wait = pre.seconds;
      waitOrigin = 'container';
    }
  } else if (waitAnn) {
    const t = waitAnn.value.trim();
    if (/^\d+$/.test(t)) {
      wait = Number(t);
      waitOrigin = waitAnn.origin;
    } else {
      problems.push({
        key: LINKERD.waitBeforeExit,
        value: waitAnn.value,
        origin: waitAnn.origin,
        message: `"${waitAnn.value}" is not a whole number of seconds; Linkerd ignores it (no wait), write e.g. "20"`,
      });
    }
  }

  // shutdown-grace-period: the rendered proxy's env, else the annotation, else 120 s.
  let sgp: number = LINKERD_DEFAULTS.shutdownGracePeriodSeconds;
  let sgpOrigin: Origin = 'default';
  const envSgp = proxy ? envValue(proxy, LINKERD.shutdownGraceEnv) : undefined;
  const sgpAnn = podOrNamespace(w, ns, LINKERD.shutdownGracePeriod);
  const sgpSource = envSgp !== undefined ? { value: envSgp, origin: 'container' as const, key: LINKERD.shutdownGraceEnv } : sgpAnn ? { ...sgpAnn, key: LINKERD.shutdownGracePeriod } : undefined;
  if (sgpSource) {
    const s = parseGoDuration(sgpSource.value);
    if (s !== undefined) {
      sgp = s;
      sgpOrigin = sgpSource.origin;
    } else {
      problems.push({
        key: sgpSource.key,
        value: sgpSource.value,
        origin: sgpSource.origin,
        message: `"${sgpSource.value}" is not a Go duration; the proxy keeps its default ${LINKERD_DEFAULTS.shutdownGracePeriodSeconds}s, write e.g. "30s"`,
      });
    }
  }

  const idAddr = proxy ? envValue(proxy, LINKERD.identityAddrEnv) : undefined;
  const selfIdentity = idAddr !== undefined && /^(localhost\.?|127\.0\.0\.1|\[::1\])(:|$)/.test(idAddr.trim());

  return {
    mesh: 'linkerd',
    injectedBy,
    proxy,
    mode,
    modeOrigin,
    modeKey,
    waitBeforeExitSeconds: wait,
    waitOrigin,
    shutdownGracePeriodSeconds: sgp,
    shutdownGraceOrigin: sgpOrigin,
    selfIdentity,
    problems,
  };
}

// ---------------------------------------------------------------------------------------------
// Istio

export const ISTIO = {
  inject: 'sidecar.istio.io/inject',
  proxyConfig: 'proxy.istio.io/config',
  nativeSidecar: 'sidecar.istio.io/nativeSidecar',
  templates: 'inject.istio.io/templates',
  proxyContainer: 'istio-proxy',
  nsInjectionLabel: 'istio-injection',
  nsRevisionLabel: 'istio.io/rev',
  proxyConfigEnv: 'PROXY_CONFIG',
} as const;

export const ISTIO_DEFAULTS = {
  terminationDrainDurationSeconds: 5,
  minimumDrainDurationSeconds: 5,
} as const;

/** The fields of ProxyConfig (istio/api mesh/v1alpha1/proxy.proto) that shape termination. */
export interface IstioProxyConfig {
  terminationDrainDurationSeconds?: number;
  holdApplicationUntilProxyStarts?: boolean;
  exitOnZeroActiveConnections?: boolean;
  minimumDrainDurationSeconds?: number;
}

export interface IstioMesh {
  mesh: 'istio';
  injectedBy: Origin;
  proxy?: ContainerView;
  /** `inject.istio.io/templates: gateway`: the proxy is the application (no sidecar ordering). */
  gateway: boolean;
  mode: SidecarMode;
  modeOrigin: Origin;
  /** Where the proxy config came from (annotation, rendered PROXY_CONFIG env, or defaults). */
  configOrigin: Origin;
  terminationDrainDurationSeconds: number;
  terminationDrainSet: boolean;
  holdApplicationUntilProxyStarts: boolean;
  exitOnZeroActiveConnections: boolean;
  minimumDrainDurationSeconds: number;
  minimumDrainSet: boolean;
  problems: MeshProblem[];
}

/** Go's strconv.ParseBool, which Istio's StringBool uses for proxyMetadata flags. */
function goBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** A ProxyConfig field by its JSON (camelCase) or proto (snake_case) name: protojson accepts both. */
function field(o: Record<string, Json>, json: string, proto: string): { name: string; value: Json } | undefined {
  if (Object.prototype.hasOwnProperty.call(o, json)) return { name: json, value: o[json] };
  if (Object.prototype.hasOwnProperty.call(o, proto)) return { name: proto, value: o[proto] };
  return undefined;
}

/**
 * Parses the `proxy.istio.io/config` annotation (YAML or JSON: JSON is YAML). Returns the
 * termination-relevant fields and the problems Istio would reject or ignore; never throws.
 */
export function parseIstioProxyConfig(text: string): { config: IstioProxyConfig; problems: string[] } {
  const config: IstioProxyConfig = {};
  const problems: string[] = [];
  if (text.trim() === '') return { config, problems };
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: false, maxAliasCount: 10, logLevel: 'error' });
  } catch (e) {
    const first = (e as Error).message.split('\n')[0];
    problems.push(`not valid YAML or JSON (${first}); Istio rejects the annotation`);
    return { config, problems };
  }
  if (doc === null || doc === undefined) return { config, problems };
  if (!isObject(doc)) {
    problems.push('is not a mapping of ProxyConfig fields (e.g. "terminationDrainDuration: 30s"); Istio rejects the annotation');
    return { config, problems };
  }
  const tdd = field(doc, 'terminationDrainDuration', 'termination_drain_duration');
  if (tdd) {
    const s = typeof tdd.value === 'string' ? parseGoDuration(tdd.value) : undefined;
    if (s === undefined) problems.push(`${tdd.name} ${JSON.stringify(tdd.value)} is not a duration string such as "30s"; Istio rejects the annotation`);
    else config.terminationDrainDurationSeconds = s;
  }
  const hold = field(doc, 'holdApplicationUntilProxyStarts', 'hold_application_until_proxy_starts');
  if (hold) {
    if (typeof hold.value === 'boolean') config.holdApplicationUntilProxyStarts = hold.value;
    else problems.push(`${hold.name} ${JSON.stringify(hold.value)} is not a boolean (true or false, unquoted); Istio rejects the annotation`);
  }
  const md = field(doc, 'proxyMetadata', 'proxy_metadata');
  if (md) {
    if (!isObject(md.value)) {
      problems.push(`${md.name} is not a mapping of strings; Istio rejects the annotation`);
    } else {
      const exit = md.value.EXIT_ON_ZERO_ACTIVE_CONNECTIONS;
      if (exit !== undefined) {
        if (typeof exit !== 'string') problems.push(`proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS must be a quoted string ("true"), not ${JSON.stringify(exit)}; Istio rejects the annotation`);
        else {
          const b = goBool(exit.trim());
          if (b === undefined) problems.push(`proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS "${exit}" is not a boolean string ("true" or "false")`);
          else config.exitOnZeroActiveConnections = b;
        }
      }
      const min = md.value.MINIMUM_DRAIN_DURATION;
      if (min !== undefined) {
        const s = typeof min === 'string' ? parseGoDuration(min) : undefined;
        if (s === undefined) problems.push(`proxyMetadata.MINIMUM_DRAIN_DURATION ${JSON.stringify(min)} is not a quoted Go duration such as "5s"; the agent keeps its default ${ISTIO_DEFAULTS.minimumDrainDurationSeconds}s`);
        else config.minimumDrainDurationSeconds = s;
      }
    }
  }
  return { config, problems };
}

/**
 * Istio configuration of a workload, or undefined when Istio injection is not evident.
 *
 * Injection is evident from `sidecar.istio.io/inject: "true"` (pod label or annotation), a rendered
 * `istio-proxy` container, or a Namespace in the set labelled `istio-injection: enabled` or
 * `istio.io/rev`, or proxy configuration annotations on the pod template or workload
 * (`proxy.istio.io/config`, `sidecar.istio.io/*` other than `inject`: namespace-level injection is the
 * common setup and is usually outside the linted set), unless the pod opts out with
 * `sidecar.istio.io/inject: "false"`. Nothing else counts: the istiod ConfigMap holds injection templates as strings, which are not workloads.
 *
 * Mode: a rendered proxy decides; else `sidecar.istio.io/nativeSidecar` (as the injection template
 * reads it: anything but "false" is native); else `nativeDefault`.
 */
/** Istio ambient's ztunnel (istio/ztunnel): its image, or `proxy ztunnel` as its args. */
function isZtunnel(c: ContainerView): boolean {
  const args = get(c.raw, 'args');
  return /(^|\/)ztunnel$/.test(imageRepository(c.image).path) || (Array.isArray(args) && args[0] === 'proxy' && args[1] === 'ztunnel');
}

export function istioMesh(w: Workload, opts: MeshOptions = {}): IstioMesh | undefined {
  const ns = opts.namespace;
  const proxy = findContainer(w, ISTIO.proxyContainer);
  // Ambient's node proxy names its container istio-proxy too (image ztunnel, args proxy ztunnel):
  // no sidecar, no terminationDrainDuration (it drains for its own TERMINATION_GRACE_PERIOD_SECONDS).
  if (proxy && isZtunnel(proxy)) return undefined;
  const podInject = w.templateLabels[ISTIO.inject] ?? w.annotations[ISTIO.inject];
  const nsLabels = namespaceLabels(ns);
  const nsInjects = nsLabels[ISTIO.nsInjectionLabel] === 'enabled' || (nsLabels[ISTIO.nsRevisionLabel] !== undefined && nsLabels[ISTIO.nsInjectionLabel] !== 'disabled');
  let injectedBy: Origin | undefined;
  if (proxy) injectedBy = 'container';
  else if (hostNetwork(w) || podInject?.trim() === 'false') injectedBy = undefined;
  else if (podInject?.trim() === 'true') injectedBy = 'annotation';
  else if (nsInjects) injectedBy = 'namespace';
  else if (Object.keys(w.annotations).some((k) => k === 'proxy.istio.io/config' || (k.startsWith('sidecar.istio.io/') && k !== ISTIO.inject))) injectedBy = 'annotation';
  if (!injectedBy) return undefined;

  const problems: MeshProblem[] = [];
  const gateway = (w.annotations[ISTIO.templates] ?? '').split(',').map((s) => s.trim()).includes('gateway');

  let mode: SidecarMode = opts.nativeDefault ? 'native' : 'classic';
  let modeOrigin: Origin = 'default';
  const nativeAnn = w.annotations[ISTIO.nativeSidecar];
  if (proxy) {
    mode = proxy.role === 'sidecar' ? 'native' : 'classic';
    modeOrigin = 'container';
  } else if (nativeAnn !== undefined) {
    mode = nativeAnn.trim() === 'false' ? 'classic' : 'native';
    modeOrigin = 'annotation';
  }
  if (gateway && !proxy) mode = 'classic';

  let config: IstioProxyConfig = {};
  let configOrigin: Origin = 'default';
  const ann = w.annotations[ISTIO.proxyConfig];
  const env = proxy ? envValue(proxy, ISTIO.proxyConfigEnv) : undefined;
  const source = ann !== undefined ? { key: ISTIO.proxyConfig, value: ann, origin: 'annotation' as const } : env !== undefined ? { key: ISTIO.proxyConfigEnv, value: env, origin: 'container' as const } : undefined;
  if (source) {
    const parsed = parseIstioProxyConfig(source.value);
    config = parsed.config;
    configOrigin = source.origin;
    for (const message of parsed.problems) problems.push({ key: source.key, value: source.value, origin: source.origin, message });
  }

  return {
    mesh: 'istio',
    injectedBy,
    proxy,
    gateway,
    mode,
    modeOrigin,
    configOrigin,
    terminationDrainDurationSeconds: config.terminationDrainDurationSeconds ?? ISTIO_DEFAULTS.terminationDrainDurationSeconds,
    terminationDrainSet: config.terminationDrainDurationSeconds !== undefined,
    holdApplicationUntilProxyStarts: config.holdApplicationUntilProxyStarts ?? false,
    exitOnZeroActiveConnections: config.exitOnZeroActiveConnections ?? false,
    minimumDrainDurationSeconds: config.minimumDrainDurationSeconds ?? ISTIO_DEFAULTS.minimumDrainDurationSeconds,
    minimumDrainSet: config.minimumDrainDurationSeconds !== undefined,
    problems,
  };
}

/**
 * Whether Istio injects native sidecars when nothing in the manifest says: since the commit first
 * shipped in 1.28.0, istiod's `ENABLE_NATIVE_SIDECARS` defaults to `auto`, and the injection webhook
 * (`detectNativeSidecar`) turns `auto` on only when every node's kubelet is >= 1.33. The linter
 * cannot see istiod, so `assumeModernIstio` (rule param `istioNativeDefault`) stands for
 * "Istio >= 1.28 with default settings"; the target version stands for the kubelets.
 */
export function istioNativeByDefault(assumeModernIstio: boolean, kube: { atLeast(major: number, minor: number): boolean }): boolean {
  return assumeModernIstio && kube.atLeast(1, 33);
}

/** The proxy containers of the known meshes, by name. */
export const MESH_PROXY_NAMES: readonly string[] = [LINKERD.proxyContainer, ISTIO.proxyContainer];
