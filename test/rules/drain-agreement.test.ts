/**
 * Every rule that sizes a grace period counts a container's drain as grace-period-budget does
 * (budget.ts containerDrainSeconds: the declared drain, else the program's own setting the catalog
 * reads, Traefik's graceTimeOut, else the 10s default), so that their numbers and fixes agree.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

const FIXTURES = path.resolve(__dirname, '../fixtures/traefik');
const lint = (file: string) =>
  lintSources([{ file, text: fs.readFileSync(path.join(FIXTURES, file), 'utf8') }], { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') }).findings;

test('Traefik behind an ALB, graceTimeOut 60s: the LB window fix raises the grace period to the 30s window + the 60s drain + 5s, and the deregistration delay is sized to it', () => {
  const f = lint('behind-alb.yaml');
  const lb = f.filter((x) => x.ruleId === 'lb-deregistration-delay');
  const window = lb.find((x) => x.severity === 'warning')!;
  expect(window.message).toContain('raise terminationGracePeriodSeconds to at least 95s (preStop 30s + drain 60s + margin 5s');
  expect(window.fix?.edits).toContainEqual({ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 95 });
  const dd = lb.find((x) => x.severity === 'info')!;
  expect(dd.message).toContain('deregistration_delay.timeout_seconds=95');
  // grace-period-budget's own finding for the present 20s preStop: 20 + 60 + 5.
  expect(f.find((x) => x.ruleId === 'grace-period-budget')!.message).toContain('raise terminationGracePeriodSeconds to 85s');
});

test('a preStop sleep over the grace period: prestop-sleep-action asks for the grace period grace-period-budget asks for', () => {
  const f = lint('sleep-40.yaml');
  const need = (id: string) => /(?:raise terminationGracePeriodSeconds to|at least) (\d+)s/.exec(f.find((x) => x.ruleId === id)!.message)?.[1];
  expect(need('prestop-sleep-action')).toBe('105');
  expect(need('grace-period-budget')).toBe('105');
});
