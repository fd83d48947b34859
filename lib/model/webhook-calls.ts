import { notClientPort, ObjectGraph, ServiceView } from './graph';
import { isObject, Json, JsonObject } from './types';
import { get } from './workload';

/**
 * A call the API server makes to a Service: an admission webhook, an aggregated API (APIService), or
 * the conversion webhook of a CustomResourceDefinition (crdConversionWebhook).
 */
export interface ApiServerCall {
  kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration' | 'APIService' | 'CustomResourceDefinition';
  /** The configuration (APIService, CustomResourceDefinition) name. */
  config: string;
  /** The webhook's name (the APIService's or the CustomResourceDefinition's name for those). */
  name: string;
  /**
   * The failurePolicy in effect (v1 defaults to Fail; the removed v1beta1 defaulted to Ignore); `Fail`
   * for an APIService and a conversion webhook, which have none and always fail closed.
   */
  failurePolicy: string;
  /** The Service port called (clientConfig.service.port or spec.service.port; 443 when unset). */
  port: number;
  /** The webhook entry (not for an APIService). */
  hook?: JsonObject;
}

const portOf = (ref: JsonObject): number => (typeof ref.port === 'number' ? ref.port : 443);

/** `https://NAME.NAMESPACE.svc[.cluster.local][:PORT][/PATH]`: a webhook URL that names an in-cluster Service. */
const SERVICE_URL = /^https:\/\/([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\.([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\.svc(?:\.cluster\.local)?\.?(?::([0-9]{1,5}))?(\/[^?#]*)?$/;

/**
 * The Service a webhook calls: clientConfig.service, or the Service its clientConfig.url names by
 * its cluster DNS name (`https://karmada-webhook.karmada-system.svc:443/...`, karmada's 19
 * webhooks; review round 26), which the API server reaches through the Service's cluster IP as it
 * reaches a service reference. `url` tells which field it came from; undefined for another URL.
 */
export function webhookServiceRef(hook: Json | undefined): (JsonObject & { url?: true }) | undefined {
  const svc = get(hook, 'clientConfig', 'service');
  if (isObject(svc)) return svc;
  const url = get(hook, 'clientConfig', 'url');
  const m = typeof url === 'string' ? SERVICE_URL.exec(url.trim()) : null;
  if (!m) return undefined;
  const ref: JsonObject & { url?: true } = { name: m[1], namespace: m[2], port: m[3] === undefined ? 443 : Number(m[3]) };
  if (m[4] !== undefined) ref.path = m[4];
  ref.url = true;
  return ref;
}

/**
 * The conversion webhook of a CustomResourceDefinition: with spec.conversion.strategy Webhook and
 * more than one version (with one, nothing is ever converted), the API server calls it to convert
 * every object it reads or writes in a version other than the one it is stored in (requests in
 * another served version; objects still stored in an older version after the storage version
 * changed), reads and watches included, and fails the request when the call fails: a conversion
 * webhook has no failure policy (kubernetes/website custom-resource-definition-versioning.md,
 * "Writing, reading, and updating versioned CustomResourceDefinition objects"). Its clientConfig
 * (spec.conversion.webhook.clientConfig; spec.conversion.webhookClientConfig in the removed
 * apiextensions.k8s.io/v1beta1), as an admission webhook's.
 */
export function crdConversionWebhook(crd: Json | undefined): { clientConfig: JsonObject; pointer: string } | undefined {
  const conversion = get(crd, 'spec', 'conversion');
  if (!isObject(conversion) || conversion.strategy !== 'Webhook') return undefined;
  const versions = get(crd, 'spec', 'versions');
  if (!Array.isArray(versions) || versions.filter(isObject).length < 2) return undefined;
  const v1 = get(conversion, 'webhook', 'clientConfig');
  if (isObject(v1)) return { clientConfig: v1, pointer: '/spec/conversion/webhook/clientConfig' };
  const beta = conversion.webhookClientConfig;
  return isObject(beta) ? { clientConfig: beta, pointer: '/spec/conversion/webhookClientConfig' } : undefined;
}

/** A failurePolicy that a Job of the input writes into a webhook configuration after it is applied. */
export interface PatchedPolicy {
  policy: string;
  /** `Job/NAME` and its arg, for messages. */
  by: string;
}

/**
 * The failurePolicy that kube-webhook-certgen's `patch` writes into the webhook configurations named
 * by --webhook-name (every webhook of the validating and the mutating configuration of that name,
 * unless --patch-validating=false or --patch-mutating=false) when --patch-failure-policy is given:
 * the ingress-nginx and kubevela charts render their webhooks with Ignore and let a post-install
 * hook Job patch them to Fail (review round 16). By `Kind/name` of the configuration.
 */
function patchedPolicies(graph: ObjectGraph): Map<string, PatchedPolicy> {
  const out = new Map<string, PatchedPolicy>();
  for (const w of graph.workloads) {
    if (w.kind !== 'Job' && w.kind !== 'CronJob') continue;
    for (const c of w.containers) {
      const words = [c.raw.command, c.raw.args].flatMap((a) => (Array.isArray(a) ? a : [])).filter((x): x is string => typeof x === 'string').flatMap((x) => x.trim().split(/\s+/));
      if (!words.includes('patch')) continue;
      const flag = (name: string): string | undefined => {
        for (let i = 0; i < words.length; i++) {
          if (words[i].startsWith(`--${name}=`)) return words[i].slice(name.length + 3);
          if (words[i] === `--${name}` && words[i + 1] !== undefined && !words[i + 1].startsWith('-')) return words[i + 1];
        }
        return undefined;
      };
      const webhook = flag('webhook-name');
      const policy = flag('patch-failure-policy');
      if (webhook === undefined || (policy !== 'Fail' && policy !== 'Ignore')) continue;
      const by = `${w.kind}/${w.obj.name} (kube-webhook-certgen patch --patch-failure-policy=${policy})`;
      if (flag('patch-validating') !== 'false') out.set(`ValidatingWebhookConfiguration/${webhook}`, { policy, by });
      if (flag('patch-mutating') !== 'false') out.set(`MutatingWebhookConfiguration/${webhook}`, { policy, by });
    }
  }
  return out;
}

/** The failurePolicy a Job of the input patches into this webhook configuration, if any (patchedPolicies). */
export function patchedFailurePolicy(graph: ObjectGraph, kind: string, config: string): PatchedPolicy | undefined {
  return graph.memo(patchedPolicies, graph, patchedPolicies).get(`${kind}/${config}`);
}

/** By `namespace/name` of the Service called: every call of the graph's webhook configurations, APIServices and CRD conversion webhooks. */
function callsByService(graph: ObjectGraph): Map<string, ApiServerCall[]> {
  const out = new Map<string, ApiServerCall[]>();
  const push = (key: string, call: ApiServerCall) => {
    const l = out.get(key);
    if (l) l.push(call);
    else out.set(key, [call]);
  };
  // (Also by name alone, for a Service written without a namespace: a chart rendered without one.)
  const add = (ns: unknown, name: unknown, call: ApiServerCall) => {
    if (typeof ns !== 'string' || typeof name !== 'string') return;
    push(`${ns}/${name}`, call);
    push(`*/${name}`, call);
  };
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const) {
    for (const o of graph.ofKind(kind)) {
      const hooks = o.raw.webhooks;
      if (!Array.isArray(hooks)) continue;
      const defaultPolicy = o.apiVersion === 'admissionregistration.k8s.io/v1beta1' ? 'Ignore' : 'Fail';
      const patched = patchedFailurePolicy(graph, kind, o.name)?.policy;
      hooks.forEach((h, i) => {
        if (!isObject(h)) return;
        const svc = webhookServiceRef(h);
        if (!svc) return;
        add(svc.namespace, svc.name, { kind, config: o.name, name: typeof h.name === 'string' ? h.name : `#${i}`, failurePolicy: patched ?? (typeof h.failurePolicy === 'string' ? h.failurePolicy : defaultPolicy), port: portOf(svc), hook: h });
      });
    }
  }
  for (const o of graph.ofKind('APIService')) {
    const svc = get(o.raw, 'spec', 'service');
    if (isObject(svc)) add(svc.namespace, svc.name, { kind: 'APIService', config: o.name, name: o.name, failurePolicy: 'Fail', port: portOf(svc) });
  }
  for (const o of graph.ofKind('CustomResourceDefinition')) {
    const conv = crdConversionWebhook(o.raw);
    const svc = conv && webhookServiceRef({ clientConfig: conv.clientConfig });
    if (svc) add(svc.namespace, svc.name, { kind: 'CustomResourceDefinition', config: o.name, name: o.name, failurePolicy: 'Fail', port: portOf(svc) });
  }
  return out;
}

/** The calls the API server makes to this Service, from the webhook configurations, APIServices and CRD conversion webhooks in the input. */
export function apiServerCalls(graph: ObjectGraph, svc: ServiceView): readonly ApiServerCall[] {
  const all = graph.memo(callsByService, graph, callsByService);
  const ns = get(svc.obj.raw, 'metadata', 'namespace');
  return all.get(typeof ns === 'string' && ns !== '' ? `${ns}/${svc.obj.name}` : `*/${svc.obj.name}`) ?? [];
}

/**
 * The API groups with a dot that kube-apiserver serves itself (kubernetes pkg/controlplane: the
 * groups of `kubectl api-resources` on a bare cluster, 1.22-1.35), the metrics APIs every cluster's
 * HPAs read through the aggregator, and the CRD groups of shared cluster infrastructure that count
 * as built-in here: Gateway API, volume snapshots and AdminNetworkPolicy are written by many
 * controllers and users, not by one operator. The dotless groups (core, apps, batch, autoscaling,
 * policy) are built in too. Any other group is a custom resource's, a *.k8s.io one included: such
 * names are only reserved for API-reviewed projects (sparkoperator.k8s.io, autoscaling.k8s.io of the
 * VPA), which are still one program's CRDs (review p38 item 3: the Spark operator's webhook).
 */
const BUILT_IN_GROUPS = new Set([
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
  'metrics.k8s.io',
  'custom.metrics.k8s.io',
  'external.metrics.k8s.io',
  'gateway.networking.k8s.io',
  'snapshot.storage.k8s.io',
  'policy.networking.k8s.io',
]);

/** Whether an API group is built into Kubernetes, or shared cluster infrastructure (BUILT_IN_GROUPS). */
export function isBuiltInGroup(group: string): boolean {
  return !group.includes('.') || BUILT_IN_GROUPS.has(group);
}

/**
 * The API groups, when every rule of the webhooks names only groups of no built-in API
 * (isBuiltInGroup: Gateway API's gateway.networking.k8s.io counts as built-in, the Spark operator's
 * sparkoperator.k8s.io does not) and no `*` group, whatever resources of those groups (cert-manager's
 * webhook names all of cert-manager.io); else undefined. webhook-backend-availability lowers its
 * finding to info on them, and prestop-missing too (review round 30).
 */
export function customResourcesOnly(hooks: JsonObject[]): string | undefined {
  const groups = new Set<string>();
  for (const h of hooks) {
    const rules = Array.isArray(h.rules) ? h.rules : [];
    if (!rules.length) return undefined;
    for (const r of rules) {
      if (!isObject(r) || !Array.isArray(r.apiGroups) || !r.apiGroups.length) return undefined;
      for (const g of r.apiGroups) {
        if (typeof g !== 'string' || g === '*' || isBuiltInGroup(g)) return undefined;
        groups.add(g);
      }
    }
  }
  return [...groups].join(', ');
}

/**
 * When the API server is the only caller of every traffic Service (admission webhooks, aggregated
 * APIServices, CRD conversion webhooks) on every client port: who calls, and what fails while a call is refused.
 */
export function apiServerCallsOnly(graph: ObjectGraph, traffic: readonly ServiceView[]): { names: string; effect: string; custom?: string; conversion?: boolean } | undefined {
  if (!traffic.length) return undefined;
  const calls: ApiServerCall[] = [];
  for (const s of traffic) {
    const cs = apiServerCalls(graph, s);
    // (An Ingress or a route to one of its ports has other clients: review round 27, opa-kube-mgmt.)
    if (!cs.length || s.ports.some((p) => graph.routedPort(s, p))) return undefined;
    const called = new Set(cs.map((c) => c.port));
    if (s.ports.some((p) => !notClientPort(p) && (p.port === undefined || !called.has(p.port)))) return undefined;
    calls.push(...cs);
  }
  const shown = [...new Set(calls.map((c) => (c.kind === 'APIService' ? `APIService ${c.name}` : c.kind === 'CustomResourceDefinition' ? `the conversion webhook of CustomResourceDefinition ${c.name}` : c.name)))];
  const names = shown.length > 3 ? `${shown.slice(0, 2).join(', ')} and ${shown.length - 2} more` : shown.join(', ');
  const effects: string[] = [];
  if (calls.some((c) => (c.kind === 'ValidatingWebhookConfiguration' || c.kind === 'MutatingWebhookConfiguration') && c.failurePolicy === 'Fail')) effects.push('the requests its webhooks with failurePolicy: Fail intercept are rejected');
  if (calls.some((c) => c.kind === 'MutatingWebhookConfiguration' && c.failurePolicy !== 'Fail')) effects.push('objects its mutating webhooks with failurePolicy: Ignore intercept are admitted unmutated');
  if (calls.some((c) => c.kind === 'ValidatingWebhookConfiguration' && c.failurePolicy !== 'Fail')) effects.push('objects its validating webhooks with failurePolicy: Ignore intercept are admitted unchecked');
  if (calls.some((c) => c.kind === 'APIService')) effects.push('requests to its aggregated API fail (503)');
  // (A conversion webhook has no failure policy: the request that needed the conversion fails.)
  if (calls.some((c) => c.kind === 'CustomResourceDefinition')) effects.push('reads and writes of its custom resources that need a conversion (in a version other than the one the object is stored in) fail');
  // Webhooks that match only custom resources, none of them a mutating one that fails open (an object
  // admitted unmutated stays so), and CRD conversion webhooks (they convert only their custom
  // resource): only requests for those fail, and their clients retry them, as
  // webhook-backend-availability rates the longer outage of the same calls (review round 30: the
  // couchbase-operator chart's admission controller, couchbase.com only; kserve's llmisvc conversion).
  const hooks = calls.filter((c) => c.kind !== 'CustomResourceDefinition');
  const conversions = calls.filter((c) => c.kind === 'CustomResourceDefinition').map((c) => c.config.slice(c.config.indexOf('.') + 1));
  const hookGroups =
    hooks.every((c) => c.hook !== undefined && !(c.kind === 'MutatingWebhookConfiguration' && c.failurePolicy !== 'Fail')) && calls.some((c) => c.failurePolicy === 'Fail')
      ? hooks.length
        ? customResourcesOnly(hooks.map((c) => c.hook!))
        : ''
      : undefined;
  const custom = hookGroups === undefined ? undefined : [...new Set([...(hookGroups ? hookGroups.split(', ') : []), ...conversions])].join(', ') || undefined;
  return { names, effect: effects.join('; '), custom, conversion: conversions.length > 0 };
}
