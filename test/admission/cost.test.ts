/**
 * CEL cost of the exported policies (the estimator: ./cel-cost.ts), against the API server's limits (k8s.io/apiserver/pkg/apis/cel:
 * PerCallLimit 1,000,000 per expression, RuntimeCELCostBudget 10,000,000 per policy evaluation,
 * RuntimeCELCostBudgetMatchConditions 2,500,000).
 *
 * The estimate walks each expression's AST (parsed by @bufbuild/cel) the way cel-go's runtime
 * cost tracker charges: 1 per evaluated node, string functions by the length of their operand
 * (cost 0.1 per character, as cel-go's string traversal factor; `size` is constant, 1), a
 * conditional by its costlier branch (as cel-go's estimator; a guard `size(L) > K ? ... : E`
 * lets E see at most K containers, the bound grace-period-budget puts on its per-container
 * preStop reading), and each comprehension multiplies
 * its body by the size of the list it iterates: n for lists derived from containers (main, init
 * and sidecar containers), h for lists split from an annotation, 1 for the one-element binding
 * idiom `[x].map(v, ...)[0]`. The figures are printed for n = 10 and n = 100 containers, strings
 * of 256 characters and h = 16 annotation entries.
 *
 * Structure: no comprehension over a container-derived list is nested in another one over a
 * container-derived list (no containers x containers or containers x ports scans), except the
 * maximum of the main containers' preStop delays, which the policy guards to at most 32 entries.
 */
import { exportPolicies } from '../../lib/admission/policies';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';
import { BOUNDED_NESTED, MATCH_CONDITIONS_BUDGET, PER_CALL_LIMIT, policyCost, RUNTIME_BUDGET } from './cel-cost';

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
