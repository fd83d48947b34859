/**
 * The CEL cost estimate of the exported policies (see cost.test.ts for the model and the limits).
 */
import { parse } from '@bufbuild/cel';
import { JsonObject } from '../../lib/model/types';

type Expr = ReturnType<typeof parse>['expr'];

export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_BUDGET = 10_000_000;
export const MATCH_CONDITIONS_BUDGET = 2_500_000;
const STRING_LEN = 256;
const HINT_ENTRIES = 16;
const STRING_FUNCS = new Set(['matches', 'split', 'join', 'replace', 'trim', 'contains', 'startsWith', 'endsWith', 'lowerAscii', 'substring', 'indexOf', 'double', 'duration', '_+_', '_==_', '_!=_']);
const CONTAINER_LIST = /variables\.(mains|inits|sidecars|preStops|known|rows|sidecarDrains|loopbackBinds)|\.containers|\.ownerReferences/;
export const BOUNDED_NESTED = /variables\.known\.all/;

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

export function estimate(e: Expr | undefined, n: number): Cost {
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
        // As cel-go's estimator: the condition plus the costlier branch. A guard `size(L) > K ? ... : E`
        // bounds the containers E can see to K (the policies use it to cap a per-container scan).
        const guard = sizeGuard(k.value.args[0]);
        const [c, a] = k.value.args.slice(0, 2).map((x) => estimate(x, n));
        const b = estimate(k.value.args[2], guard !== undefined ? Math.min(n, guard) : n);
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

/** K of a condition `size(...) > K` (K a constant), else undefined. */
function sizeGuard(e: Expr | undefined): number | undefined {
  if (e?.exprKind.case !== 'callExpr' || e.exprKind.value.function !== '_>_') return undefined;
  const [l, r] = e.exprKind.value.args;
  if (l?.exprKind.case !== 'callExpr' || l.exprKind.value.function !== 'size') return undefined;
  if (r?.exprKind.case !== 'constExpr') return undefined;
  const v = r.exprKind.value.constantKind.value;
  return typeof v === 'bigint' ? Number(v) : undefined;
}

function add(own: number, parts: Cost[]): Cost {
  return { cost: own + parts.reduce((a, p) => a + p.cost, 0), nesting: Math.max(0, ...parts.map((p) => p.nesting)) };
}

export interface PolicyCost {
  name: string;
  matchConditions: number;
  total: number;
  maxExpression: number;
  nesting: { expr: string; depth: number }[];
}

/**
 * Parsed expressions by text: the policies share most of their variables (81 distinct of 360) and
 * each policy is estimated at several container counts, so each text is parsed once. The estimate
 * only reads the tree.
 */
const parsed = new Map<string, Expr | undefined>();
function parseOnce(text: string): Expr | undefined {
  if (!parsed.has(text)) parsed.set(text, parse(text).expr);
  return parsed.get(text);
}

export function policyCost(p: JsonObject, n: number): PolicyCost {
  const spec = p.spec as { matchConditions?: { expression: string }[]; variables?: { expression: string }[]; validations?: { expression: string; messageExpression: string }[]; mutations?: { jsonPatch: { expression: string } }[] };
  const mc = (spec.matchConditions ?? []).map((c) => estimate(parseOnce(c.expression), n).cost).reduce((a, b) => a + b, 0);
  const exprs = [
    ...(spec.variables ?? []).map((v) => v.expression),
    ...(spec.validations ?? []).flatMap((v) => [v.expression, v.messageExpression]),
    ...(spec.mutations ?? []).map((m) => m.jsonPatch.expression),
  ];
  const costs = exprs.map((x) => ({ x, c: estimate(parseOnce(x.replace(/JSONPatch\{op:/g, "{'op':").replace(/, path:/g, ", 'path':").replace(/, value:/g, ", 'value':")), n) }));
  return {
    name: String((p.metadata as JsonObject).name),
    matchConditions: mc,
    total: mc + costs.reduce((a, b) => a + b.c.cost, 0),
    maxExpression: Math.max(...costs.map((c) => c.c.cost)),
    nesting: costs.filter((c) => c.c.nesting > 1).map((c) => ({ expr: c.x, depth: c.c.nesting })),
  };
}

