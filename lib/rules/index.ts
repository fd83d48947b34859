import { Rule } from '../engine/types';
import { gracePeriodBudget } from './grace-period-budget';
import { minReadySeconds } from './min-ready-seconds';
import { MESH_SPREAD_RULES } from './group-mesh-spread';
import { ROLLOUT_PDB_RULES } from './group-rollout-pdb';
import { TERM_PROBE_RULES } from './group-term-probe';
import { STS_LB_SVC_RULES } from './group-sts-lb-svc';
import { surgeResourceDeadlock } from './surge-resource-deadlock';
import { webhookBackendAvailability } from './webhook-backend-availability';

/** The catalog order of RULES.md; rules sort by it in `kubegrace rules` and the docs. */
export const CATALOG_ORDER = [
  'grace-period-budget', 'prestop-missing', 'prestop-sleep-action', 'prestop-handler', 'zero-grace-period',
  'grace-exceeds-external-deadline', 'readiness-probe-missing', 'liveness-equals-readiness', 'startup-probe',
  'probe-port', 'selector-mismatch', 'rollout-full-outage', 'surge-volume-deadlock', 'min-ready-seconds',
  'progress-deadline', 'recreate-strategy', 'statefulset-ordered-ready', 'statefulset-partition',
  'statefulset-max-unavailable', 'pdb-missing', 'pdb-blocks-eviction', 'pdb-selector', 'pdb-unhealthy-eviction-policy',
  'hpa-replicas', 'lb-readiness-gate', 'lb-deregistration-delay', 'gke-neg-readiness', 'service-selector-ports',
  'headless-publish-not-ready', 'external-traffic-local', 'native-sidecar', 'native-sidecar-grace-budget',
  'linkerd-proxy-drain', 'istio-proxy-drain', 'daemonset-surge', 'replicas-not-spread', 'spread-blocks-surge',
  // Rules being added (RULES.md, 2026-11-23)
  'surge-resource-deadlock', 'webhook-backend-availability',
];

function order(id: string): number {
  const i = CATALOG_ORDER.indexOf(id);
  return i < 0 ? CATALOG_ORDER.length : i;
}

/** Every built-in rule, in catalog order (RULES.md). */
export const ALL_RULES: Rule[] = [gracePeriodBudget, minReadySeconds, ...TERM_PROBE_RULES, ...ROLLOUT_PDB_RULES, ...STS_LB_SVC_RULES, ...MESH_SPREAD_RULES, surgeResourceDeadlock, webhookBackendAvailability].sort((a, b) => order(a.meta.id) - order(b.meta.id));

export function ruleById(id: string): Rule | undefined {
  return ALL_RULES.find((r) => r.meta.id === id);
}
