import { Rule } from '../engine/types';
import { ContainerView, Workload } from '../model/workload';
import { ISTIO, istioMesh, LINKERD, linkerdMesh } from '../timeline/mesh';
import { namespaceOf } from './mesh-util';

/** Helpers needed while the app shuts down (graceful-termination.md SIDE-001). */
export const DEFAULT_SIDECAR_NAMES = ['istio-proxy', 'linkerd-proxy', 'envoy', 'cloud-sql-proxy', 'fluent-bit'];

/** How each mesh is told to inject its proxy as a native sidecar. */
function meshSwitch(c: ContainerView): string {
  if (c.name === ISTIO.proxyContainer) return ` (Istio: annotation ${ISTIO.nativeSidecar}: "true", or istiod ENABLE_NATIVE_SIDECARS)`;
  if (c.name === LINKERD.proxyContainer) return ` (Linkerd: annotation ${LINKERD.nativeSidecar[0]}: "true", or the chart value proxy.nativeSidecar)`;
  return '';
}

export const nativeSidecar: Rule = {
  meta: {
    id: 'native-sidecar',
    spec: 'SIDE-001',
    defaultSeverity: 'info',
    severities: ['error', 'warning', 'info'],
    description:
      'shutdown-critical helper (proxy, log shipper) as a classic container (info; warning in a Job); `restartPolicy: Always` init container on a version without native sidecars (error)',
    doc: `Classic containers all receive SIGTERM at the same moment, in no defined order. A proxy or log shipper
that runs as a classic container can therefore exit before the application has drained, and every call the
app makes while shutting down (or every log line it writes) is lost. A native sidecar (an init container
with \`restartPolicy: Always\`, Kubernetes >= 1.29) starts before the main containers and gets SIGTERM only
after all of them have exited; its readiness counts toward the pod's.

**Conditions:**

- **info:** a main container (\`containers[]\`) whose name is a shutdown-critical helper (param
  \`sidecarNames\`, default \`istio-proxy\`, \`linkerd-proxy\`, \`envoy\`, \`cloud-sql-proxy\`, \`fluent-bit\`) runs
  next to at least one other main container, and the target is >= 1.29. A helper that is the pod's only
  main container is the application itself (an Istio gateway, a fluent-bit DaemonSet) and is not reported.
- **warning:** the same in a Job or CronJob: a Job never completes while a classic sidecar keeps running
  after the main container has finished.
- **error:** an init container with \`restartPolicy: Always\` on a target < 1.29. \`SidecarContainers\` is alpha
  and off in 1.28 (the field is dropped) and absent before (the field is unknown): the container runs as a
  classic init container that never exits, and the pod never starts.

Not reported (deliberate classic proxies): a \`linkerd-proxy\` whose identity service is \`localhost\` (the
Linkerd identity controller's own proxy bootstraps its certificate from the controller in the same pod, so
it cannot start first); and, outside Jobs, a proxy whose mesh annotation explicitly turns native mode off
(\`${LINKERD.nativeSidecar[0]}: "false"\` and its beta/alpha forms, \`${ISTIO.nativeSidecar}: "false"\`).

**Fix** (meshes: let the injector do it, e.g. \`${ISTIO.nativeSidecar}: "true"\`):
\`\`\`yaml
initContainers:
- name: proxy
  image: example/proxy
  restartPolicy: Always        # makes it a native sidecar
  startupProbe: {httpGet: {path: /ready, port: 15021}}
containers:
- name: app
\`\`\``,
    fixable: true,
    versionGate: 'SidecarContainers: alpha 1.28 (off), beta 1.29 (on), GA 1.33',
    paramsSchema: {
      type: 'object',
      properties: { sidecarNames: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
    defaults: { sidecarNames: DEFAULT_SIDECAR_NAMES },
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/pods/sidecar-containers.md',
      'kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md (Pod shutdown and sidecar containers)',
      'kubernetes/enhancements keps/sig-node/753-sidecar-containers/README.md',
      'kubernetes/website feature-gates SidecarContainers.md',
    ],
  },
  check(ctx) {
    const names = new Set(ctx.params.sidecarNames as string[]);
    const nativeOn = ctx.version.atLeast(1, 29);
    const v = ctx.version.toString();
    for (const w of ctx.graph.workloads) {
      if (!nativeOn) {
        for (const c of w.sidecars) {
          const why = ctx.version.atLeast(1, 28)
            ? `SidecarContainers is alpha and off by default on ${v}: the API server drops the field`
            : `native sidecars do not exist on ${v}: the field is unknown (rejected under strict field validation, dropped otherwise)`;
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/restartPolicy`,
            severity: 'error',
            message: `init container "${c.name}" has restartPolicy: Always, but ${why}, and the container then runs as a classic init container that never exits, so the pod never starts; target Kubernetes >= 1.29, or run "${c.name}" as a regular container`,
          });
        }
        continue;
      }
      if (w.containers.length < 2) continue;
      for (const c of w.containers) {
        if (!names.has(c.name) || deliberateClassic(w, c)) continue;
        const others = w.containers.filter((x) => x !== c).map((x) => `"${x.name}"`).join(', ');
        if (w.isBatch) {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'warning',
            message: `"${c.name}" runs as a classic container next to ${others}: it keeps running after the job's work is done, so the pod never completes and the Job never finishes; make it a native sidecar (move it to initContainers with restartPolicy: Always${meshSwitch(c)})`,
          });
        } else {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'info',
            message: `"${c.name}" runs as a classic container: it gets SIGTERM together with ${others}, in no defined order, and can exit before they finish draining, so their shutdown-time calls fail; on ${v} make it a native sidecar (move it to initContainers with restartPolicy: Always${meshSwitch(c)}), which is stopped only after the main containers exit`,
          });
        }
      }
    }

    /** Classic on purpose: Linkerd's identity controller proxy, or an explicit mesh opt-out (not for Jobs). */
    function deliberateClassic(w: Workload, c: ContainerView): boolean {
      const ns = namespaceOf(ctx.graph, w);
      if (c.name === LINKERD.proxyContainer) {
        const lk = linkerdMesh(w, { namespace: ns });
        if (lk?.selfIdentity) return true;
        if (!w.isBatch && LINKERD.nativeSidecar.some((k) => w.annotations[k]?.trim() === 'false')) return true;
      }
      if (c.name === ISTIO.proxyContainer && !w.isBatch) {
        const is = istioMesh(w, { namespace: ns });
        if (w.annotations[ISTIO.nativeSidecar]?.trim() === 'false' || is?.gateway) return true;
      }
      return false;
    }
  },
};
