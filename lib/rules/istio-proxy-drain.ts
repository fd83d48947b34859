import { parseDocument } from 'yaml';
import { Fix, FixEdit, Rule } from '../engine/types';
import { pointerSegments } from '../model/parse';
import { isObject, Json } from '../model/types';
import { Workload } from '../model/workload';
import { GRACE_MARGIN_SECONDS } from '../timeline/budget';
import { ISTIO, IstioMesh, istioMesh, istioNativeByDefault } from '../timeline/mesh';
import { graceEdit } from './lb-util';
import { annotationPointer, annotationSetPointers, appShutdowns, envIndex, longestShutdown, namespaceOf, problemTarget, secs } from './mesh-util';
import { graceMessageRef, gracePointer } from './util';

/**
 * The ProxyConfig text with terminationDrainDuration set, everything else kept: JSON stays JSON
 * (compact, as the injector writes PROXY_CONFIG), YAML is edited as a document, so its other fields
 * and comments stay. The field keeps the spelling it has (camelCase or snake_case). Undefined when
 * the text does not parse as a mapping (the rule reports that as a problem; no fix on top of it).
 */
export function withTerminationDrain(text: string | undefined, seconds: number): string | undefined {
  const value = `${seconds}s`;
  if (text === undefined || text.trim() === '') return `terminationDrainDuration: ${value}`;
  const key = (o: Record<string, unknown>) => (Object.prototype.hasOwnProperty.call(o, 'termination_drain_duration') && !Object.prototype.hasOwnProperty.call(o, 'terminationDrainDuration') ? 'termination_drain_duration' : 'terminationDrainDuration');
  if (text.trim().startsWith('{')) {
    try {
      const j = JSON.parse(text) as Json;
      if (isObject(j)) return JSON.stringify({ ...j, [key(j)]: value });
    } catch {
      // not JSON: a YAML flow mapping, edited below
    }
  }
  const doc = parseDocument(text);
  if (doc.errors.length) return undefined;
  const js: unknown = doc.toJS();
  if (!isObject(js)) return undefined;
  doc.set(key(js), value);
  const out = doc.toString();
  return text.endsWith('\n') ? out : out.replace(/\n$/, '');
}

function valueAt(raw: Json, pointer: string): Json | undefined {
  let cur: Json | undefined = raw;
  for (const seg of pointerSegments(pointer)) cur = isObject(cur) ? cur[seg] : undefined;
  return cur;
}

/**
 * terminationDrainDuration raised to the app's preStop + drain, and the grace period above it
 * (never lowered). A rendered proxy reads its config from PROXY_CONFIG, which is edited (or added);
 * the annotation is edited wherever written, else added to the pod template. A proposal: mesh
 * configuration (section 12).
 */
function drainFix(w: Workload, is: IstioMesh, need: number): Fix | undefined {
  const edits: FixEdit[] = [];
  const ann = w.annotations[ISTIO.proxyConfig];
  if (is.proxy) {
    const i = envIndex(is.proxy, ISTIO.proxyConfigEnv);
    const env = i === undefined ? undefined : (is.proxy.raw.env as Json[])[i];
    const current = isObject(env) && typeof env.value === 'string' ? env.value : undefined;
    const next = withTerminationDrain(current, need);
    if (next === undefined) return undefined;
    if (i === undefined) edits.push({ op: 'append', pointer: `${is.proxy.pointer}/env`, value: { name: ISTIO.proxyConfigEnv, value: next } });
    else edits.push({ op: 'set', pointer: `${is.proxy.pointer}/env/${i}/value`, value: next });
  }
  if (!is.proxy || ann !== undefined) {
    // Each copy of the annotation (pod template, workload metadata) is edited from its own text.
    for (const pointer of annotationSetPointers(w, ISTIO.proxyConfig)) {
      const here = valueAt(w.obj.raw, pointer);
      const next = withTerminationDrain(typeof here === 'string' ? here : undefined, need);
      if (next === undefined) return undefined;
      edits.push({ op: 'set', pointer, value: next });
    }
  }
  const grace = Math.max(w.grace, need + GRACE_MARGIN_SECONDS);
  if (grace > w.grace) edits.push(graceEdit(w, grace));
  return {
    description: `set terminationDrainDuration to ${need}s in ${is.proxy ? `${ISTIO.proxyConfigEnv} of istio-proxy` : ISTIO.proxyConfig}${grace > w.grace ? ` and terminationGracePeriodSeconds to ${grace}` : ''}`,
    safety: 'proposal',
    edits,
  };
}

export const istioProxyDrain: Rule = {
  meta: {
    id: 'istio-proxy-drain',
    spec: 'MESH-ISTIO-001',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'terminationDrainDuration >= grace, or shorter than the app\'s preStop + drain in classic mode',
    doc: `In classic mode (istio-proxy is a regular container) the Istio agent reacts to the pod's SIGTERM by starting
Envoy's drain, sleeping \`terminationDrainDuration\` (default 5 s, from the \`proxy.istio.io/config\` annotation), and
then killing Envoy. From then on the app's inbound and outbound calls fail, whether or not it has finished draining.
With \`proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"\` the agent instead sleeps \`MINIMUM_DRAIN_DURATION\`
(default 5 s) and then exits once Envoy has no active connection (\`terminationDrainDuration\` no longer applies).
In native mode the injector adds a preStop that starts the drain, and the proxy gets SIGTERM only after the apps
have exited: only the grace period against the app matters there, which \`grace-period-budget\` judges.

Applies only where Istio injection is evident: \`sidecar.istio.io/inject: "true"\` (label or annotation), a
rendered \`istio-proxy\` container, or a Namespace in the set labelled \`istio-injection: enabled\` / \`istio.io/rev\`
(host-network pods and \`sidecar.istio.io/inject: "false"\` are never injected). Istio's own control plane
(istiod, whose ConfigMap holds injection templates as text) is not a meshed workload. Gateways
(\`inject.istio.io/templates: gateway\`) run Envoy as the application: only the drain-vs-grace check applies.

Mode: a rendered \`istio-proxy\` decides (init container with \`restartPolicy: Always\` = native); else the
\`sidecar.istio.io/nativeSidecar\` annotation (anything but \`"false"\` is native, as the injection template reads
it); else the default. Since 1.28 istiod's \`ENABLE_NATIVE_SIDECARS\` defaults to \`auto\`, which the webhook turns on
only when every node's kubelet is >= 1.33. The linter cannot see istiod, so with param \`istioNativeDefault: true\`
(default) it assumes native sidecars on targets >= 1.33 and classic below; set it to \`false\` for Istio < 1.28, a
compatibility profile, or \`ENABLE_NATIVE_SIDECARS=false\`.

**Conditions (classic mode, warning):**

- the drain window (\`terminationDrainDuration\`, or \`MINIMUM_DRAIN_DURATION\` with EXIT_ON_ZERO_ACTIVE_CONNECTIONS)
  is \`>= G\`: SIGKILL cuts the drain;
- without EXIT_ON_ZERO_ACTIVE_CONNECTIONS, an app container's preStop + drain (\`kubegrace.dev/drain-seconds\`,
  default 10; a container without a hook counts only when the hint is declared) exceeds
  \`terminationDrainDuration\`: Envoy stops first, so the app's last calls fail;
- a \`proxy.istio.io/config\` that Istio rejects or ignores (bad YAML/JSON, a duration that is not a string such as
  \`"30s"\`, an unquoted proxyMetadata value).

**Fix:**
\`\`\`yaml
metadata:
  annotations:
    proxy.istio.io/config: |
      terminationDrainDuration: 30s
      proxyMetadata:
        EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"
spec:
  terminationGracePeriodSeconds: 45
\`\`\`

**\`--fix\`**: a drain window >= grace raises \`terminationGracePeriodSeconds\` (safe); a drain shorter than the app's preStop + drain sets \`terminationDrainDuration\` in the proxy-config annotation or the rendered \`PROXY_CONFIG\` env, keeping its other fields, with grace raised if needed (proposal). Configurations Istio would reject get no fix.`,
    fixable: true,
    versionGate: 'Istio native sidecars by default (ENABLE_NATIVE_SIDECARS=auto, Istio >= 1.28) only on Kubernetes >= 1.33 (every kubelet); SidecarContainers beta (on) 1.29',
    paramsSchema: {
      type: 'object',
      properties: { istioNativeDefault: { type: 'boolean' } },
      additionalProperties: false,
    },
    defaults: { istioNativeDefault: true },
    references: [
      'istio/api mesh/v1alpha1/proxy.proto (termination_drain_duration, hold_application_until_proxy_starts)',
      'istio/istio pkg/envoy/agent.go (terminate, exitOnZeroActiveConnections)',
      'istio/istio pilot/cmd/pilot-agent/options/options.go (MINIMUM_DRAIN_DURATION, EXIT_ON_ZERO_ACTIVE_CONNECTIONS)',
      'istio/istio pilot/pkg/features/pilot.go (ENABLE_NATIVE_SIDECARS), pkg/kube/inject/webhook.go (detectNativeSidecar)',
      'istio/istio manifests/charts/istio-control/istio-discovery/files/injection-template.yaml',
      'istio/istio releasenotes/notes/native-sidecar-default.yaml',
    ],
  },
  check(ctx) {
    const nativeDefault = istioNativeByDefault(ctx.params.istioNativeDefault as boolean, ctx.version);
    for (const w of ctx.graph.workloads) {
      if (w.isBatch) continue;
      const is = istioMesh(w, { namespace: namespaceOf(ctx.graph, w), nativeDefault });
      if (!is) continue;
      for (const p of is.problems) {
        const t = problemTarget(ctx.graph, w, p, is.proxy);
        ctx.report({ ...t, message: `${p.key}: ${p.message}` });
      }
      if (w.grace === 0 || is.mode === 'native') continue;
      checkClassic(w, is);
    }

    function configPointer(w: Workload): string {
      return annotationPointer(w, ISTIO.proxyConfig);
    }

    function modeNote(w: Workload, is: IstioMesh): string {
      if (is.gateway) return 'gateway';
      if (is.modeOrigin === 'container') return 'classic: istio-proxy is a regular container';
      if (is.modeOrigin === 'annotation') return `classic: ${ISTIO.nativeSidecar}: "${w.annotations[ISTIO.nativeSidecar]}"`;
      return ctx.version.atLeast(1, 33)
        ? 'classic assumed: rule param istioNativeDefault is false'
        : `classic assumed: istiod's default ENABLE_NATIVE_SIDECARS=auto enables native sidecars only when every kubelet is >= 1.33, and the target is ${ctx.version.toString()}; set ${ISTIO.nativeSidecar} to state it`;
    }

    function checkClassic(w: Workload, is: IstioMesh): void {
      const g = w.grace;
      const window = is.exitOnZeroActiveConnections ? is.minimumDrainDurationSeconds : is.terminationDrainDurationSeconds;
      const windowName = is.exitOnZeroActiveConnections ? 'MINIMUM_DRAIN_DURATION' : 'terminationDrainDuration';
      const dflt = (is.exitOnZeroActiveConnections ? !is.minimumDrainSet : !is.terminationDrainSet) ? ' (default)' : '';
      if (window >= g) {
        const target = Math.max(g - GRACE_MARGIN_SECONDS, 1);
        ctx.report({
          object: w.obj,
          pointer: is.configOrigin === 'annotation' ? configPointer(w) : gracePointer(w),
          message: `istio-proxy ${windowName} ${secs(window)}${dflt} >= ${graceMessageRef(w)} (${modeNote(w, is)}): SIGKILL ends the drain and cuts the remaining connections without a graceful close; raise terminationGracePeriodSeconds to ${Math.ceil(window + GRACE_MARGIN_SECONDS)}s or lower ${windowName} to ${secs(target)}`,
          // Raising the grace period is section 12's safe repair for MESH-*; the drain window is what the user configured.
          fix: { description: `set terminationGracePeriodSeconds to ${Math.ceil(window + GRACE_MARGIN_SECONDS)}`, safety: 'safe', edits: [graceEdit(w, Math.ceil(window + GRACE_MARGIN_SECONDS))] },
        });
        return;
      }
      if (is.gateway || is.exitOnZeroActiveConnections) return;
      const app = longestShutdown(appShutdowns(w));
      if (!app || app.total <= is.terminationDrainDurationSeconds) return;
      const need = Math.ceil(app.total);
      ctx.report({
        object: w.obj,
        pointer: is.configOrigin === 'annotation' ? configPointer(w) : annotationPointer(w, ISTIO.proxyConfig),
        message: `container "${app.container.name}" needs preStop ${secs(app.preStopSeconds)} + drain ${secs(app.drain)} = ${secs(app.total)}, but istio-proxy stops after terminationDrainDuration ${secs(is.terminationDrainDurationSeconds)}${dflt} (${modeNote(w, is)}): the app's inbound and outbound calls after that fail; set ${ISTIO.proxyConfig} to "terminationDrainDuration: ${need}s" (keeping terminationGracePeriodSeconds >= ${need + GRACE_MARGIN_SECONDS}s) or enable proxyMetadata.EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"`,
        fix: drainFix(w, is, need),
      });
    }
  },
};
