/**
 * The lint run memoizes derived facts (per graph, and preStop delays per container object while the
 * rules run): nothing may carry over from one run to the next. The same parsed objects linted under
 * policies with different catalogs, and a container object changed between calls outside a run,
 * must each give what a fresh computation gives.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { ruleGraphs, runRules } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { parseText } from '../../lib/model/parse';
import { ALL_RULES } from '../../lib/rules';
import { preStopDelay } from '../../lib/timeline/prestop';

const ACME_POLICY = `apiVersion: kubegrace.dev/v1
kind: Policy
metadata: {name: acme}
spec:
  extends: [recommended]
  catalog:
    add:
      - id: acme-drain
        kind: prestop-program
        title: ACME drain
        match: {images: ["*/acme/api"]}
        preStop:
          command: '^/acme/drain$'
          delay: {seconds: 20}
        why: our drain program keeps serving 20 s, then drains
        source: [acme runbook RB-7]
`;

const API = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: 15
      containers:
      - name: api
        image: registry.example.com/acme/api:3
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {exec: {command: [/acme/drain]}}}
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 8080}]
`;

describe('no memo leaks between lint runs', () => {
  test('the same objects under policies with different catalogs: each run judges with its own catalog', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-memo-'));
    fs.writeFileSync(path.join(dir, 'acme.yaml'), ACME_POLICY);
    const recommended = loadPolicy('recommended', ALL_RULES);
    const acme = loadPolicy(path.join(dir, 'acme.yaml'), ALL_RULES);
    const { objects } = parseText('api.yaml', API);
    const version = KubeVersion.parse('1.31');
    const budget = (policy: typeof acme) =>
      runRules(objects, { rules: ALL_RULES, policy, version })
        .filter((f) => f.ruleId === 'grace-period-budget')
        .map((f) => f.severity);
    // The program's 20 s delay exceeds the 15 s grace period only when the catalog knows the program.
    expect(budget(recommended)).toEqual([]);
    expect(budget(acme)).toEqual(['error']);
    expect(budget(recommended)).toEqual([]);
    expect(budget(acme)).toEqual(['error']);
  });

  test('two runs on shared graphs (the last lint of --fix, in two parts) give exactly the findings of one run each; graphs of other objects or another catalog are refused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-memo-'));
    fs.writeFileSync(path.join(dir, 'acme.yaml'), ACME_POLICY);
    const acme = loadPolicy(path.join(dir, 'acme.yaml'), ALL_RULES);
    const recommended = loadPolicy('recommended', ALL_RULES);
    const version = KubeVersion.parse('1.31');
    // The corpus's largest stream (many workloads, Services, budgets, webhooks) and the catalog test input.
    const corpus = path.resolve(__dirname, '../../../shared/corpus/rendered/kube-prometheus.yaml');
    for (const [file, text, policy] of [
      ['api.yaml', API, acme],
      ['kube-prometheus.yaml', fs.readFileSync(corpus, 'utf8'), recommended],
    ] as const) {
      const { objects } = parseText(file, text);
      const fixable = ALL_RULES.filter((r) => r.meta.fixable);
      const others = ALL_RULES.filter((r) => !r.meta.fixable);
      const alone = [...runRules(objects, { rules: fixable, policy, version }), ...runRules(objects, { rules: others, policy, version })];
      const graphs = ruleGraphs(objects, policy, version);
      const shared = [...runRules(objects, { rules: fixable, policy, version }, graphs), ...runRules(objects, { rules: others, policy, version }, graphs)];
      expect(alone.length).toBeGreaterThan(0);
      expect(shared).toEqual(alone);
      expect(() => runRules(objects.slice(), { rules: others, policy, version }, graphs)).toThrow(/other objects, another catalog or another version/);
    }
    const { objects } = parseText('api.yaml', API);
    expect(() => runRules(objects, { rules: ALL_RULES, policy: recommended, version }, ruleGraphs(objects, acme, version))).toThrow(/other objects, another catalog or another version/);
  });

  test('outside a lint run, preStopDelay reads the container as it is now (constructs change theirs)', () => {
    const c = { name: 'app', lifecycle: { preStop: { sleep: { seconds: 5 } } } };
    expect(preStopDelay(c)).toEqual({ kind: 'sleep', seconds: 5 });
    c.lifecycle.preStop.sleep.seconds = 12;
    expect(preStopDelay(c)).toEqual({ kind: 'sleep', seconds: 12 });
  });
});
