/**
 * CEL cost of the exported policies, against the API server's limits (k8s.io/apiserver/pkg/apis/cel:
 * PerCallLimit 1,000,000 per expression, RuntimeCELCostBudget 10,000,000 per policy evaluation,
 * RuntimeCELCostBudgetMatchConditions 2,500,000).
 *
 * The estimate walks each expression's AST (parsed by @bufbuild/cel) the way cel-go's runtime
 * cost tracker charges: 1 per evaluated node, string functions by the length of their operand
 * (cost 0.1 per character, as cel-go's string traversal factor), a conditional by its costlier
 * branch (as cel-go's estimator), and each comprehension multiplies
 * its body by the size of the list it iterates: n for lists derived from containers (main, init
 * and sidecar containers), h for lists split from an annotation, 1 for the one-element binding
 * idiom `[x].map(v, ...)[0]`. The figures are printed for n = 10 and n = 100 containers, strings
 * of 256 characters and h = 16 annotation entries.
 *
 * Structure: no comprehension over a container-derived list is nested in another one over a
 * container-derived list (no containers x containers or containers x ports scans), except the
 * maximum of the main containers' preStop delays, which the policy guards to at most 32 entries.
 */
import { parse } from '@bufbuild/cel';
import { exportPolicies } from '../../lib/admission/policies';
import { KubeVersion } from '../../lib/engine/version';
import { JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';

type Expr = ReturnType<typeof parse>['expr'];

const PER_CALL_LIMIT = 1_000_000;
const RUNTIME_BUDGET = 10_000_000;
const MATCH_CONDITIONS_BUDGET = 2_500_000;
const STRING_LEN = 256;
const HINT_ENTRIES = 16;
const STRING_FUNCS = new Set(['matches', 'split', 'join', 'replace', 'trim', 'contains', 'startsWith', 'endsWith', 'lowerAscii', 'substring', 'indexOf', 'size', 'double', 'duration', '_+_', '_==_', '_!=_']);
const CONTAINER_LIST = /variables\.(mains|inits|sidecars|preStops|known|rows|sidecarDrains)|\.containers|\.ownerReferences/;
const BOUNDED_NESTED = /variables\.known\.all/;

interface Cost {
  cost: number;
  /** Depth of nested container-list comprehensions. */
  nesting: number;
}

function rangeKind(range: Expr | undefined): 'bind' | 'containers' | 'hint' {
  if (range?.exprKind.case === 'listExpr' && range.exprKind.value.elements.length === 1) return 'bind';
  return CONTAINER_LIST.test(refs(range).join(' ')) ? 'containers' : 'hint';
}

/** The field paths an expression selects (`variables.mains`, `x.containers`), for classifying ranges. */
function refs(e: Expr | undefined): string[] {
  if (!e) return [];
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr': {
      const op = k.value.operand;
      const base = op?.exprKind.case === 'identExpr' ? op.exprKind.value.name : '';
      return [`${base}.${k.value.field}`, ...refs(op)];
    }
    case 'callExpr':
      return [...refs(k.value.target), ...k.value.args.flatMap(refs)];
    case 'listExpr':
      return k.value.elements.flatMap(refs);
    case 'structExpr':
      return k.value.entries.flatMap((x) => refs(x.value));
    case 'comprehensionExpr':
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].flatMap(refs);
    default:
      return [];
  }
}

function estimate(e: Expr | undefined, n: number): Cost {
  if (!e) return { cost: 0, nesting: 0 };
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
    case 'identExpr':
      return { cost: 1, nesting: 0 };
    case 'selectExpr':
      return add(1, [estimate(k.value.operand, n)]);
    case 'callExpr': {
      if (k.value.function === '_?_:_') {
        // As cel-go's estimator: the condition plus the costlier branch.
        const [c, a, b] = k.value.args.map((x) => estimate(x, n));
        const branch = a.cost >= b.cost ? a : b;
        return { cost: 1 + c.cost + branch.cost, nesting: Math.max(c.nesting, a.nesting, b.nesting) };
      }
      const parts = [estimate(k.value.target, n), ...k.value.args.map((a) => estimate(a, n))];
      return add(1 + (STRING_FUNCS.has(k.value.function) ? Math.ceil(STRING_LEN * 0.1) : 0), parts);
    }
    case 'listExpr':
      return add(1, k.value.elements.map((x) => estimate(x, n)));
    case 'structExpr':
      return add(1, k.value.entries.map((x) => estimate(x.value, n)));
    case 'comprehensionExpr': {
      const c = k.value;
      const kind = rangeKind(c.iterRange);
      const size = kind === 'bind' ? 1 : kind === 'containers' ? n : HINT_ENTRIES;
      const range = estimate(c.iterRange, n);
      const body = add(0, [estimate(c.loopCondition, n), estimate(c.loopStep, n)]);
      const nested = kind === 'containers' ? body.nesting + 1 : body.nesting;
      return { cost: range.cost + estimate(c.accuInit, n).cost + size * body.cost + estimate(c.result, n).cost, nesting: Math.max(range.nesting, nested) };
    }
    default:
      return { cost: 1, nesting: 0 };
  }
}

function add(own: number, parts: Cost[]): Cost {
  return { cost: own + parts.reduce((a, p) => a + p.cost, 0), nesting: Math.max(0, ...parts.map((p) => p.nesting)) };
}

interface PolicyCost {
  name: string;
  matchConditions: number;
  total: number;
  maxExpression: number;
  nesting: { expr: string; depth: number }[];
}

function policyCost(p: JsonObject, n: number): PolicyCost {
  const spec = p.spec as { matchConditions?: { expression: string }[]; variables?: { expression: string }[]; validations?: { expression: string; messageExpression: string }[]; mutations?: { jsonPatch: { expression: string } }[] };
  const mc = (spec.matchConditions ?? []).map((c) => estimate(parse(c.expression).expr, n).cost).reduce((a, b) => a + b, 0);
  const exprs = [
    ...(spec.variables ?? []).map((v) => v.expression),
    ...(spec.validations ?? []).flatMap((v) => [v.expression, v.messageExpression]),
    ...(spec.mutations ?? []).map((m) => m.jsonPatch.expression),
  ];
  const costs = exprs.map((x) => ({ x, c: estimate(parse(x.replace(/JSONPatch\{op:/g, "{'op':").replace(/, path:/g, ", 'path':").replace(/, value:/g, ", 'value':")).expr, n) }));
  return {
    name: String((p.metadata as JsonObject).name),
    matchConditions: mc,
    total: mc + costs.reduce((a, b) => a + b.c.cost, 0),
    maxExpression: Math.max(...costs.map((c) => c.c.cost)),
    nesting: costs.filter((c) => c.c.nesting > 1).map((c) => ({ expr: c.x, depth: c.c.nesting })),
  };
}

const policies = (() => {
  const r = exportPolicies({ rules: ALL_RULES, policy: { name: 'recommended', rules: new Map(), customRules: [] }, version: KubeVersion.parse('1.36'), mode: 'both' });
  return [...r.validations.map((v) => v.policy), ...r.mutations.map((m) => m.policy)];
})();

describe('CEL cost of the exported policies', () => {
  test('within the API server limits at 10 and 100 containers; the figures per policy', () => {
    const rows: string[] = [];
    const over: string[] = [];
    for (const p of policies) {
      const c10 = policyCost(p, 10);
      const c100 = policyCost(p, 100);
      rows.push(`${c10.name}: ${c10.total} (n=10), ${c100.total} (n=100); largest expression ${c100.maxExpression}; matchConditions ${c100.matchConditions}`);
      if (c100.maxExpression >= PER_CALL_LIMIT) over.push(`${c100.name}: an expression costs ${c100.maxExpression} >= ${PER_CALL_LIMIT}`);
      if (c100.total >= RUNTIME_BUDGET) over.push(`${c100.name}: ${c100.total} >= ${RUNTIME_BUDGET}`);
      if (c100.matchConditions >= MATCH_CONDITIONS_BUDGET) over.push(`${c100.name}: matchConditions ${c100.matchConditions} >= ${MATCH_CONDITIONS_BUDGET}`);
    }
    process.stdout.write(`estimated CEL cost per policy:\n${rows.join('\n')}\n`);
    expect(over).toEqual([]);
  });

  test('cost grows linearly with the containers (no unbounded nested scan)', () => {
    for (const p of policies) {
      const c = policyCost(p, 100);
      // The only nested container scan is the guarded maximum (size(variables.known) <= 32).
      const unguarded = c.nesting.filter((x) => !(BOUNDED_NESTED.test(x.expr) && x.expr.includes('size(variables.known) > 32')));
      expect({ policy: c.name, unguarded: unguarded.map((u) => u.expr.slice(0, 120)) }).toEqual({ policy: c.name, unguarded: [] });
      // Linear apart from that guarded term: doubling n at most doubles the cost (plus the bounded term).
      const a = policyCost(p, 200).total - policyCost(p, 100).total;
      const b = policyCost(p, 400).total - policyCost(p, 200).total;
      if (c.nesting.length === 0) expect(b).toBeLessThanOrEqual(2 * a + 1);
    }
  });
});
