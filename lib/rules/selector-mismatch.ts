import { Report, Rule } from '../engine/types';
import { escapeSegment } from '../model/parse';
import { isObject, Json } from '../model/types';
import { Workload } from '../model/workload';

const CHECKED_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

function labelsText(labels: Record<string, string>): string {
  const e = Object.entries(labels);
  return e.length ? `{${e.map(([k, v]) => `${k}: ${v}`).join(', ')}}` : '{}';
}

/** The first problem with the selector, as the apps/v1 validation sees it; undefined if valid and matching. */
function problem(w: Workload): Omit<Report, 'object'> | undefined {
  const spec = w.obj.raw.spec;
  const kindLower = w.kind.toLowerCase();
  const sel: Json | undefined = isObject(spec) ? spec.selector : undefined;
  const suggestion = `set spec.selector.matchLabels to the template labels that identify these pods (template labels: ${labelsText(w.templateLabels)})`;
  if (sel === undefined || sel === null) {
    return {
      pointer: isObject(spec) && 'selector' in spec ? '/spec/selector' : '/spec',
      message: `no spec.selector: apps/v1 requires one (it is no longer defaulted from the template labels), so the API rejects the object; ${suggestion}`,
    };
  }
  if (!isObject(sel)) return { pointer: '/spec/selector', message: `spec.selector is not a label selector object, so the API rejects the object; ${suggestion}` };
  const ml = sel.matchLabels;
  const me = sel.matchExpressions;
  if (ml !== undefined && ml !== null && !isObject(ml)) return { pointer: '/spec/selector/matchLabels', message: `spec.selector.matchLabels is not a map, so the API rejects the object` };
  if (me !== undefined && me !== null && !Array.isArray(me)) return { pointer: '/spec/selector/matchExpressions', message: `spec.selector.matchExpressions is not a list, so the API rejects the object` };
  const labels = isObject(ml) ? Object.entries(ml) : [];
  const exprs = Array.isArray(me) ? me : [];
  if (labels.length + exprs.length === 0) {
    return {
      pointer: '/spec/selector',
      message: `empty spec.selector is invalid for a ${kindLower} (the API rejects it; it would select every pod in the namespace); ${suggestion}`,
    };
  }
  // Validity first (metav1 ValidateLabelSelector), then matching (ValidatePodTemplateSpecForReplicaSet).
  for (const [k, v] of labels) {
    if (typeof v !== 'string') {
      return { pointer: `/spec/selector/matchLabels/${escapeSegment(k)}`, message: `spec.selector.matchLabels["${k}"] is ${JSON.stringify(v)}, not a string: the API cannot decode it; quote the value` };
    }
  }
  for (let i = 0; i < exprs.length; i++) {
    const e = exprs[i];
    const p = `/spec/selector/matchExpressions/${i}`;
    if (!isObject(e) || typeof e.key !== 'string' || typeof e.operator !== 'string') return { pointer: p, message: `spec.selector.matchExpressions[${i}] needs a key and an operator, so the API rejects the object` };
    const values = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return { pointer: p, message: `spec.selector.matchExpressions[${i}] (${e.key} ${e.operator}) has no values; the API requires at least one for In/NotIn` };
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return { pointer: `${p}/values`, message: `spec.selector.matchExpressions[${i}] (${e.key} ${e.operator}) must not list values; the API rejects it` };
        break;
      default:
        return { pointer: `${p}/operator`, message: `spec.selector.matchExpressions[${i}] has operator "${e.operator}", which is not In, NotIn, Exists or DoesNotExist; the API rejects it` };
    }
  }
  const tl = w.templateLabels;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(tl, k);
  for (const [k, v] of labels) {
    if (!has(k) || tl[k] !== v) {
      const actual = has(k) ? `the template has ${k}: ${tl[k]}` : `the template has no label ${k}`;
      return {
        pointer: `/spec/selector/matchLabels/${escapeSegment(k)}`,
        message: `spec.selector requires ${k}: ${v} but ${actual}; the API rejects a selector that does not match the template labels. Fix the template labels (spec.selector is immutable once created)`,
      };
    }
  }
  for (let i = 0; i < exprs.length; i++) {
    const e = exprs[i] as { key: string; operator: string; values?: Json };
    const values = (Array.isArray(e.values) ? e.values : []).map(String);
    const ok =
      e.operator === 'In' ? has(e.key) && values.includes(tl[e.key]) :
      e.operator === 'NotIn' ? !has(e.key) || !values.includes(tl[e.key]) :
      e.operator === 'Exists' ? has(e.key) : !has(e.key);
    if (!ok) {
      const actual = has(e.key) ? `the template has ${e.key}: ${tl[e.key]}` : `the template has no label ${e.key}`;
      const vals = values.length ? ` [${values.join(', ')}]` : '';
      return {
        pointer: `/spec/selector/matchExpressions/${i}`,
        message: `spec.selector expression "${e.key} ${e.operator}${vals}" does not match: ${actual}; the API rejects a selector that does not match the template labels. Fix the template labels (spec.selector is immutable once created)`,
      };
    }
  }
  return undefined;
}

export const selectorMismatch: Rule = {
  meta: {
    id: 'selector-mismatch',
    spec: 'apps/v1 validation',
    defaultSeverity: 'error',
    severities: ['error'],
    description: 'workload `spec.selector` does not match its own template labels (the API rejects it)',
    doc: `In \`apps/v1\`, Deployments, StatefulSets, DaemonSets and ReplicaSets must carry an explicit
\`spec.selector\` (it is no longer defaulted from the template labels). The API server rejects the object when
the selector is missing, empty (\`{}\`), malformed (an \`In\`/\`NotIn\` expression without values, \`Exists\` with
values, an unknown operator), or when it does not match the pod template's own labels
("selector does not match template labels").

Conditions (all **error**; only \`apiVersion: apps/v1\` objects are checked; Jobs, CronJobs and Pods are skipped):
- \`spec.selector\` absent or null;
- \`spec.selector: {}\`;
- an invalid selector;
- a \`matchLabels\` entry or \`matchExpressions\` requirement the template labels do not satisfy.

Fix: make the template labels satisfy the selector. \`spec.selector\` is immutable after creation, so this
is never fixed automatically, and the safe direction is to change the template labels:
\`\`\`yaml
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
\`\`\``,
    fixable: false,
    references: [
      'kubernetes/kubernetes pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec, ValidatePodTemplateSpecForReplicaSet)',
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#selector',
      'graceful-termination.md section 12 ("Never: edit spec.selector")',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (!CHECKED_KINDS.has(w.kind) || w.obj.apiVersion !== 'apps/v1') continue;
      const p = problem(w);
      if (p) ctx.report({ object: w.obj, ...p });
    }
  },
};
