/**
 * The timeline model: event order and times for each kind of shutdown, the budget against the
 * rules' own numbers, violations, and the rollout summary.
 */
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';
import { explainSources, explainWorkload, Lane, Timeline, TimelineEvent, timelinesText } from '../../lib/explain';
import { ObjectGraph } from '../../lib/model/graph';
import { parseText } from '../../lib/model/parse';
import * as fs from 'fs';
import * as path from 'path';
import { timelinesSvg, timelineText } from '../../lib/explain';
import { coredns } from '../helpers/coredns';
import { fluentBit } from '../helpers/fluent-bit';
import { interceptor } from '../helpers/keda';
import { activator } from '../helpers/knative';
import { citedRules, container, deployment, explainOne, explainText, policyWithout, policyWithParams, V133 } from './helpers';

function lane(t: Timeline, name: string): Lane {
  const l = t.lanes.find((x) => x.name === name);
  if (!l) throw new Error(`no lane ${name}: ${t.lanes.map((x) => x.name).join(', ')}`);
  return l;
}

/** Events of one lane as "kind@time". */
function laneEvents(t: Timeline, name: string): string[] {
  return t.events.filter((e: TimelineEvent) => e.lane === name).map((e) => `${e.kind}@${e.at}`);
}

function isSorted(t: Timeline): boolean {
  return t.events.every((e, i) => i === 0 || t.events[i - 1].at <= e.at);
}

describe('termination timeline: main containers', () => {
  test('sleep preStop: preStop from 0, SIGTERM at its end, drain, exit; deadline at grace', () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 30 }));
    expect(laneEvents(t, 'app')).toEqual(['prestop-start@0', 'prestop-end@5', 'sigterm@5', 'exit@15']);
    const app = lane(t, 'app');
    expect(app.phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['prestop', 0, 5],
      ['drain', 5, 15],
    ]);
    expect(app.sigterm).toBe(5);
    expect(app.exit).toBe(15);
    expect(app.killedAt).toBeUndefined();
    expect(t.events.find((e) => e.kind === 'deadline')!.at).toBe(30);
    expect(t.podGoneAt).toBe(15);
    expect(t.sigkillAt).toBe(30);
    expect(t.violations).toEqual([]);
    expect(isSorted(t)).toBe(true);
    // Deletion first, the endpoint removal in parallel at 0 (before SIGTERM).
    expect(t.events[0].kind).toBe('deletion');
    expect(t.events.findIndex((e) => e.kind === 'endpoints')).toBeLessThan(t.events.findIndex((e) => e.kind === 'sigterm'));
    expect(lane(t, 'endpoints').phases[0]).toMatchObject({ kind: 'propagation', start: 0, end: 5 });
  });

  test('exec sleep (sh -c) and a drain-seconds hint', () => {
    const t = explainOne(deployment({ containers: container('app', '{exec: {command: ["sh", "-c", "sleep 8"]}}'), grace: 40, annotations: { 'kubegrace.dev/drain-seconds': '20' } }));
    expect(laneEvents(t, 'app')).toEqual(['prestop-start@0', 'prestop-end@8', 'sigterm@8', 'exit@28']);
    expect(t.budget.binding).toMatchObject({ container: 'app', drain: 20, needed: 28, recommended: 33 });
    expect(t.assumptions.some((a) => /drain after SIGTERM/.test(a))).toBe(false);
  });

  test('a grace period below the kubelet minimum: no SIGKILL at its end (review round 20: submariner, grace 1s)', () => {
    const t = explainOne(deployment({ containers: container('app'), grace: 1, served: false, annotations: { 'kubegrace.dev/served': 'false' } }));
    const text = timelineText(t, { color: false });
    expect(text).toContain('grace period 1s ends: the kubelet raises it to its 2s minimum before SIGKILL');
    expect(text).not.toContain('grace deadline (1s): SIGKILL');
  });

  test('a budget that fits the grace period only without the margin says so (review round 14: ARC controller, grace 10s)', () => {
    const t = explainOne(deployment({ containers: container('app'), grace: 10, served: false, annotations: { 'kubegrace.dev/served': 'false' } }));
    expect(timelineText(t, { color: false })).toContain('app: preStop 0s + drain 10s = 10s needed, fits grace 10s, without the margin (15s with it)');
    const roomy = explainOne(deployment({ containers: container('app'), grace: 30, served: false, annotations: { 'kubegrace.dev/served': 'false' } }));
    expect(timelineText(roomy, { color: false })).toContain('app: preStop 0s + drain 10s = 10s needed, fits grace 30s (at least 15s with the margin)');
  });

  test('no preStop on a served container: SIGTERM at 0 is a violation (prestop-missing)', () => {
    const t = explainOne(deployment({ containers: container('app'), grace: 30 }));
    expect(laneEvents(t, 'app')).toEqual(['sigterm@0', 'exit@10']);
    const sig = t.events.find((e) => e.kind === 'sigterm' && e.lane === 'app')!;
    expect(sig.violation).toBe(true);
    expect(t.violations.map((v) => v.ruleId)).toEqual(['prestop-missing']);
    expect(t.findings.some((f) => f.ruleId === 'prestop-missing')).toBe(true);
    expect(t.assumptions.some((a) => /drain after SIGTERM: 10s \(default/.test(a))).toBe(true);
  });

  test('advisory marks follow the linter: a suppressed prestop-missing is not drawn; without findings the model judges alone', () => {
    const text = deployment({ containers: container('app'), grace: 30, annotations: { 'kubegrace.dev/ignore': 'prestop-missing' } });
    const t = explainOne(text);
    expect(t.violations).toEqual([]);
    expect(t.events.some((e) => e.violation)).toBe(false);
    const objects = parseText('x.yaml', text).objects;
    const graph = new ObjectGraph(objects);
    const alone = explainWorkload(graph, graph.workloads[0], V133);
    expect(alone.violations.map((v) => v.ruleId)).toEqual(['prestop-missing']);
  });

  test('no preStop, not served (hint "false"): no endpoints lane, no violation', () => {
    const t = explainOne(deployment({ containers: container('app'), served: false, annotations: { 'kubegrace.dev/served': 'false' } }));
    expect(t.lanes.map((l) => l.name)).toEqual(['app']);
    expect(t.violations).toEqual([]);
  });

  test('no preStop, served status unknown (no Service in the input) with a declared port: the same prestop-missing as lint', () => {
    const t = explainOne(deployment({ containers: container('app'), served: false }));
    expect(t.violations.map((v) => v.ruleId)).toEqual(['prestop-missing']);
  });

  test('preStop longer than grace: SIGTERM at the deadline, SIGKILL 2s later, red span; same numbers as grace-period-budget', () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 45}}'), grace: 30 }));
    expect(laneEvents(t, 'app')).toEqual(['prestop-start@0', 'sigterm@30', 'sigkill@32']);
    const app = lane(t, 'app');
    expect(app.sigterm).toBe(30);
    expect(app.killedAt).toBe(32);
    expect(t.sigkillAt).toBe(32);
    const red = app.phases.filter((p) => p.kind === 'violation');
    expect(red).toHaveLength(1);
    expect(red[0]).toMatchObject({ start: 30, end: 45, ruleId: 'grace-period-budget' });
    expect(app.phases[0]).toMatchObject({ kind: 'prestop', start: 0, end: 30 });
    expect(t.violations[0]).toMatchObject({ ruleId: 'grace-period-budget', severity: 'error', lane: 'app', at: 30 });
    // The linter's finding is attached, and its numbers agree with the budget.
    const f = t.findings.find((x) => x.ruleId === 'grace-period-budget')!;
    expect(f.severity).toBe('error');
    expect(t.budget.binding!.needed).toBe(55);
    expect(f.message).toContain(`at least ${t.budget.binding!.needed! + 5}s`);
    // The endpoint removal is covered only until SIGTERM at the deadline.
    expect(lane(t, 'endpoints').phases[0].end).toBe(30);
  });

  test('preStop + drain over grace: killed while draining (warning)', () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 15}}'), grace: 20 }));
    const app = lane(t, 'app');
    expect(laneEvents(t, 'app')).toEqual(['prestop-start@0', 'prestop-end@15', 'sigterm@15', 'sigkill@20']);
    expect(app.phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['prestop', 0, 15],
      ['drain', 15, 20],
      ['violation', 20, 25],
    ]);
    expect(t.violations[0]).toMatchObject({ severity: 'warning', ruleId: 'grace-period-budget' });
    expect(t.findings.find((f) => f.ruleId === 'grace-period-budget')?.severity).toBe('warning');
  });

  test('a hook of unknown duration (httpGet) is drawn as returning at once, and said so', () => {
    const t = explainOne(deployment({ containers: container('app', '{httpGet: {path: /drain, port: 8080}}'), grace: 30 }));
    expect(lane(t, 'app').sigterm).toBe(0);
    expect(t.assumptions.some((a) => /httpGet.*unknown/.test(a))).toBe(true);
    expect(t.budget.binding).toBeUndefined();
    // Not a missing preStop.
    expect(t.violations.some((v) => v.ruleId === 'prestop-missing')).toBe(false);
    // (Review round 12: the events and the pod's end say that SIGTERM waits for the hook, drawn at 0s.)
    expect(t.events.find((e) => e.kind === 'sigterm' && e.lane === 'app')?.label).toBe('SIGTERM → app when its preStop returns (length unknown: drawn at 0s, a lower bound)');
    expect(t.podGoneAtLeast).toBe(true);
    expect(explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 30 })).podGoneAtLeast).toBeUndefined();
  });

  test('a custom program declared by kubegrace.dev/prestop-seconds is drawn with its duration and judged like grace-period-budget', () => {
    const hook = '{exec: {command: [/bin/drain, --wait, "25"]}}';
    const t = explainOne(deployment({ containers: container('app', hook), grace: 15, annotations: { 'kubegrace.dev/prestop-seconds': '25' } }));
    const app = lane(t, 'app');
    expect(app.detail).toContain('preStop program 25s (kubegrace.dev/prestop-seconds)');
    expect(laneEvents(t, 'app')).toEqual(['prestop-start@0', 'sigterm@15', 'sigkill@17']);
    expect(t.violations[0]).toMatchObject({ ruleId: 'grace-period-budget', severity: 'error', lane: 'app' });
    expect(t.findings.find((f) => f.ruleId === 'grace-period-budget')?.message).toContain('preStop delay 25s (kubegrace.dev/prestop-seconds)');
    expect(t.assumptions.some((a) => /unknown/.test(a))).toBe(false);
    // Without the hint the same hook is not judged, and explain says how to declare it.
    const u = explainOne(deployment({ containers: container('app', hook), grace: 15 }));
    expect(u.violations).toEqual([]);
    expect(u.assumptions.some((a) => a.includes('declare it with kubegrace.dev/prestop-seconds'))).toBe(true);
  });

  test("Kong's chart hook kong quit --wait=15 keeps the proxy accepting for 15s (catalog kong-quit), then it drains; without --wait it stops at once", () => {
    const t = explainOne(deployment({ containers: container('proxy', '{exec: {command: [kong, quit, "--wait=15"]}}'), grace: 30 }));
    expect(laneEvents(t, 'proxy')).toEqual(['prestop-start@0', 'prestop-end@15', 'sigterm@15', 'exit@25']);
    expect(lane(t, 'proxy').detail).toContain('kong-quit 15s');
    expect(t.budget.binding).toMatchObject({ container: 'proxy', needed: 25 });
    expect(t.assumptions.some((a) => /unknown/.test(a))).toBe(false);
    expect(t.violations).toEqual([]);
    const z = explainOne(deployment({ containers: container('proxy', '{exec: {command: [kong, quit]}}'), grace: 30 }));
    expect(lane(z, 'proxy').sigterm).toBe(0);
    expect(z.violations.some((v) => v.ruleId === 'prestop-missing')).toBe(true);
  });

  test('grace 0: no preStop, SIGTERM at once, SIGKILL after the 2s minimum', () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 0 }));
    expect(laneEvents(t, 'app')).toEqual(['sigterm@0', 'sigkill@2']);
    expect(t.events.some((e) => e.kind === 'prestop-start')).toBe(false);
    expect(lane(t, 'app').phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['drain', 0, 2],
      ['violation', 2, 10],
    ]);
    expect(t.violations[0]).toMatchObject({ ruleId: 'zero-grace-period', severity: 'warning' });
    expect(t.findings.some((f) => f.ruleId === 'zero-grace-period')).toBe(true);
    expect(t.sigkillAt).toBe(2);
  });

  test('grace 0 with zero-grace-period off or suppressed: the kill is drawn, the rule is not listed nor said to report', () => {
    const yaml = deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 0 });
    const suppressed = yaml.replace('metadata: {name: "web"}', 'metadata: {name: "web", annotations: {kubegrace.dev/ignore: zero-grace-period, kubegrace.dev/ignore-reason: test}}');
    for (const t of [explainOne(yaml, { policy: policyWithout('zero-grace-period') }), explainOne(suppressed)]) {
      expect(t.findings.some((f) => f.ruleId === 'zero-grace-period')).toBe(false);
      expect(t.violations.filter((v) => v.ruleId === 'zero-grace-period')).toEqual([]);
      expect(lane(t, 'app').killedAt).toBe(2);
      const text = timelinesText([t], { color: false });
      expect(text).toContain('grace 0: no preStop and no drain; not judged as a budget');
      expect(text).not.toContain('zero-grace-period reports it');
    }
    expect(timelinesText([explainOne(yaml)], { color: false })).toContain('not judged as a budget (zero-grace-period reports it)');
  });
});

describe('termination timeline: a program that keeps serving after SIGTERM (CoreDNS lameduck)', () => {
  const fixture = (name: string) => fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');
  const coreOf = (text: string) => explainOne(text, { object: 'Deployment/coredns' });

  test('lameduck 10s from the mounted Corefile: SIGTERM at 0, serving to 10s, then the drain; no prestop-missing mark', () => {
    const t = coreOf(fixture('coredns-lameduck.yaml'));
    expect(lane(t, 'coredns').phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['serving', 0, 10],
      ['drain', 10, 20],
    ]);
    expect(laneEvents(t, 'coredns')).toEqual(['sigterm@0', 'exit@20']);
    expect(t.events.find((e) => e.kind === 'sigterm')!.violation).toBe(false);
    expect(t.violations).toEqual([]);
    expect(t.findings).toEqual([]);
    // Routing catches up while CoreDNS still answers.
    expect(lane(t, 'endpoints').phases[0]).toMatchObject({ kind: 'propagation', start: 0, end: 10, label: 'propagating; still served to 10s' });
    expect(t.budget.binding).toMatchObject({ container: 'coredns', servesAfter: 10, drain: 10, needed: 20, recommended: 25, judged: true });
    expect(t.assumptions).toContain('"coredns": CoreDNS health plugin lame duck mode (catalog coredns-lameduck): keeps accepting 10s after SIGTERM (lameduck 10s in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)), then drains; see docs/catalog.md');
    const text = timelineText(t, { color: false });
    expect(text).toContain('▞ still serving after SIGTERM');
    expect(text).toContain('coredns: preStop 0s + serving after SIGTERM 10s + drain 10s = 20s needed, fits grace 30s (at least 25s with the margin)');
    expect(timelinesSvg([t])).toContain('>still serving after SIGTERM (the program itself)</text>');
  });

  test('lameduck 40s beyond the default 30s: SIGKILL while still serving, the grace-period-budget violation and finding agree', () => {
    const t = coreOf(fixture('coredns-lameduck-beyond-grace.yaml'));
    const l = lane(t, 'coredns');
    expect(l.phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['serving', 0, 30],
      ['violation', 30, 50],
    ]);
    expect([l.killedAt, l.exit]).toEqual([30, 30]);
    expect(t.violations.map((v) => [v.ruleId, v.severity, v.at])).toEqual([['grace-period-budget', 'warning', 30]]);
    expect(t.violations[0].message).toBe('"coredns": serving after SIGTERM 40s (lameduck 40s in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)) + drain 10s (assumed) = 50s > grace 30s: SIGKILL at the deadline cuts the shutdown');
    expect(t.findings.map((f) => f.ruleId)).toEqual(['grace-period-budget']);
    expect(t.budget).toMatchObject({ overBy: 20, binding: { needed: 50, recommended: 55 } });
  });

  test('the ConfigMap not in the input: nothing assumed, SIGTERM at 0 is the prestop-missing mark, and the assumptions say why', () => {
    const t = coreOf(coredns({ corefile: false }));
    expect(lane(t, 'coredns').phases.map((p) => p.kind)).toEqual(['drain']);
    expect(t.violations.map((v) => v.ruleId)).toEqual(['prestop-missing']);
    expect(t.assumptions).toContain('"coredns": CoreDNS health plugin lame duck mode (catalog coredns-lameduck): /etc/coredns/Corefile cannot be read (ConfigMap kube-system/coredns is not in the input: lint it with the workload to have the file read); drawn as accepting nothing after SIGTERM');
  });
});

describe('termination timeline: a program that keeps serving for a time fixed in its code (Knative activator)', () => {
  test('45s serving after SIGTERM, then the drain, within the grace period of 600s; the assumption names the catalog entry', () => {
    const t = explainOne(activator(), { object: 'Deployment/activator' });
    expect(lane(t, 'activator').phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['serving', 0, 45],
      ['drain', 45, 55],
    ]);
    expect(laneEvents(t, 'activator')).toEqual(['sigterm@0', 'exit@55']);
    expect(t.violations).toEqual([]);
    expect(t.findings).toEqual([]);
    expect(t.budget.binding).toMatchObject({ container: 'activator', servesAfter: 45, drain: 10, needed: 55, judged: true });
    expect(t.assumptions).toContain('"activator": Knative Serving activator (sleeps network.DefaultDrainTimeout after SIGTERM) (catalog knative-activator): keeps accepting 45s after SIGTERM (fixed in the program), then drains; see docs/catalog.md');
    expect(timelineText(t, { color: false })).toContain('activator: preStop 0s + serving after SIGTERM 45s + drain 10s = 55s needed, fits grace 600s');
  });
});

describe('termination timeline: a program that reads its delay and drain from env (KEDA HTTP interceptor)', () => {
  test('config/default: 5s serving after SIGTERM, then the 30s drain, within its grace period of 45s; no prestop-missing', () => {
    const t = explainOne(interceptor(), { object: 'Deployment/keda-add-ons-http-interceptor' });
    expect(lane(t, 'interceptor').phases.map((p) => [p.kind, p.start, p.end])).toEqual([
      ['serving', 0, 5],
      ['drain', 5, 35],
    ]);
    expect(laneEvents(t, 'interceptor')).toEqual(['sigterm@0', 'exit@35']);
    expect(t.violations).toEqual([]);
    expect(t.findings).toEqual([]);
    expect(t.budget.binding).toMatchObject({ container: 'interceptor', servesAfter: 5, drain: 30, needed: 35, judged: true });
    expect(t.assumptions).toContain('"interceptor": KEDA HTTP add-on interceptor (catalog keda-http-interceptor): keeps accepting 5s after SIGTERM (KEDA_HTTP_SHUTDOWN_DELAY unset, default 5s), then drains; see docs/catalog.md');
    expect(t.assumptions).toContain('"interceptor": KEDA HTTP add-on interceptor (catalog keda-http-interceptor): drains 30s after it stops accepting, from its own settings (KEDA_HTTP_DRAIN_TIMEOUT unset, default 30s); see docs/catalog.md');
    expect(t.assumptions.some((a) => a.startsWith('app drain after SIGTERM'))).toBe(false);
    expect(timelineText(t, { color: false })).toContain('interceptor: preStop 0s + serving after SIGTERM 5s + drain 30s = 35s needed, fits grace 45s (at least 40s with the margin)');
  });
  test('KEDA_HTTP_DRAIN_TIMEOUT 0 (no limit): the drain is not read, the default is drawn and said', () => {
    const t = explainOne(interceptor({ env: ['{name: KEDA_HTTP_DRAIN_TIMEOUT, value: "0"}'] }), { object: 'Deployment/keda-add-ons-http-interceptor' });
    expect(t.budget.binding).toMatchObject({ servesAfter: 5, drain: 10 });
    expect(t.assumptions).toContain('"interceptor": KEDA HTTP add-on interceptor (catalog keda-http-interceptor): its drain cannot be read (KEDA_HTTP_DRAIN_TIMEOUT=0: no limit); drawn as 10s');
  });
});

describe('termination timeline: sidecars and meshes', () => {
  const sidecar = (name: string, extra = '') => `      - name: ${name}\n        image: example/${name}:1\n        restartPolicy: Always${extra}`;

  test('native sidecars: SIGTERM after the main containers, one by one in reverse order', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 5}}'),
        initContainers: `${sidecar('first')}\n${sidecar('second')}`,
        grace: 60,
        annotations: { 'kubegrace.dev/sidecar-drain-seconds': 'first=3,second=4' },
      }),
    );
    // app: preStop 5 + drain 10 -> exits at 15; then "second" (declared last) 15..19, then "first" 19..22.
    expect(laneEvents(t, 'second')).toEqual(['sigterm@15', 'exit@19']);
    expect(laneEvents(t, 'first')).toEqual(['sigterm@19', 'exit@22']);
    expect(t.lanes.map((l) => l.name)).toEqual(['endpoints', 'app', 'first', 'second']);
    expect(lane(t, 'first').phases[0]).toMatchObject({ kind: 'waiting', start: 0, end: 19 });
    expect(t.podGoneAt).toBe(22);
    // The budget counts the sidecar drains, as grace-period-budget does.
    expect(t.budget.addends.map((a) => a.seconds)).toEqual([3, 4]);
    expect(t.budget.binding!.needed).toBe(22);
    expect(t.violations).toEqual([]);
  });

  test('native sidecar whose turn comes after the deadline: SIGTERM at the deadline, SIGKILL 2s later', () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 25}}'), initContainers: sidecar('proxy'), grace: 30 }));
    // app exits at 30 (killed); the sidecar gets its SIGTERM only at the deadline.
    const p = lane(t, 'proxy');
    expect(p.sigterm).toBe(30);
    expect(p.killedAt).toBe(32);
    expect(p.phases.some((x) => x.kind === 'violation' && x.start === 30)).toBe(true);
    // One violation per lint finding: grace-period-budget's 25 + 10 + 5 > 30 on the app (the sidecar cut
    // is its consequence, drawn on the sidecar's lane).
    expect(t.violations.map((v) => [v.lane, v.ruleId, v.severity])).toEqual([['app', 'grace-period-budget', 'warning']]);
    expect(t.findings.filter((f) => f.ruleId.includes('grace')).map((f) => [f.ruleId, f.severity])).toEqual([['grace-period-budget', 'warning']]);
  });

  test("a native sidecar's own preStop runs at the start", () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), initContainers: sidecar('shipper', '\n        lifecycle: {preStop: {sleep: {seconds: 3}}}'), grace: 60 }));
    expect(lane(t, 'shipper').phases.find((p) => p.kind === 'prestop')).toMatchObject({ start: 0, end: 3 });
    expect(lane(t, 'shipper').sigterm).toBe(15);
  });

  test('Linkerd classic (annotation): injected proxy lane with wait-before-exit; a proxy that stops before the app is flagged', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 10}}'),
        grace: 60,
        annotations: { 'linkerd.io/inject': 'enabled', 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '5' },
      }),
    );
    const p = lane(t, 'linkerd-proxy');
    expect(p).toMatchObject({ role: 'proxy-classic', injected: true, sigterm: 5 });
    expect(p.phases.map((x) => x.kind)).toEqual(['prestop', 'mesh-drain']);
    const red = lane(t, 'app').phases.find((x) => x.kind === 'violation')!;
    expect(red).toMatchObject({ start: 5, ruleId: 'linkerd-proxy-drain', overlay: true });
    expect(t.findings.some((f) => f.ruleId === 'linkerd-proxy-drain')).toBe(true);
  });

  test('Linkerd classic with no wait before exit and an app preStop: the proxy refuses connections from 0s, flagged as the linter does', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 10}}'),
        grace: 60,
        annotations: { 'linkerd.io/inject': 'enabled' },
      }),
    );
    expect(lane(t, 'linkerd-proxy')).toMatchObject({ role: 'proxy-classic', injected: true, sigterm: 0 });
    const red = lane(t, 'app').phases.find((x) => x.kind === 'violation')!;
    expect(red).toMatchObject({ start: 0, end: 20, ruleId: 'linkerd-proxy-drain', overlay: true, label: 'linkerd-proxy refusing connections' });
    expect(t.violations.map((v) => [v.ruleId, v.at])).toEqual([['linkerd-proxy-drain', 0]]);
    expect(t.findings.filter((f) => f.ruleId === 'linkerd-proxy-drain').map((f) => f.severity)).toEqual(['warning']);
  });

  test('Linkerd classic with no wait and no app preStop: nothing (prestop-missing speaks for the app)', () => {
    const t = explainOne(deployment({ containers: container('app'), grace: 60, annotations: { 'linkerd.io/inject': 'enabled' } }));
    expect(t.violations.filter((v) => v.ruleId === 'linkerd-proxy-drain')).toEqual([]);
  });

  test('Linkerd classic with the proxy waiting longer than the app: no violation', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 5}}'),
        grace: 60,
        annotations: { 'linkerd.io/inject': 'enabled', 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '20' },
      }),
    );
    expect(lane(t, 'linkerd-proxy').sigterm).toBe(20);
    expect(t.violations).toEqual([]);
  });

  test('Linkerd native (annotation): injected native sidecar stopped after the app, counted in the budget', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 5}}'),
        grace: 60,
        annotations: { 'linkerd.io/inject': 'enabled', 'config.linkerd.io/proxy-enable-native-sidecar': 'true' },
      }),
    );
    const p = lane(t, 'linkerd-proxy');
    expect(p).toMatchObject({ role: 'proxy-native', injected: true, sigterm: 15, exit: 20 });
    expect(t.budget.addends).toEqual([{ seconds: 5, source: 'native sidecar "linkerd-proxy" drain (injected)' }]);
  });

  test('Istio classic: Envoy drains terminationDrainDuration from t=0; the app outliving it is flagged', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 10}}'),
        grace: 60,
        annotations: { 'sidecar.istio.io/inject': 'true', 'sidecar.istio.io/nativeSidecar': 'false', 'proxy.istio.io/config': 'terminationDrainDuration: 12s' },
      }),
    );
    const p = lane(t, 'istio-proxy');
    expect(p).toMatchObject({ role: 'proxy-classic', sigterm: 0, exit: 12 });
    expect(p.phases).toEqual([expect.objectContaining({ kind: 'mesh-drain', start: 0, end: 12 })]);
    expect(lane(t, 'app').phases.find((x) => x.kind === 'violation')).toMatchObject({ start: 12, end: 20, ruleId: 'istio-proxy-drain' });
    expect(t.findings.some((f) => f.ruleId === 'istio-proxy-drain')).toBe(true);
  });

  test('Istio classic with a long enough drain: no violation', () => {
    const t = explainOne(
      deployment({
        containers: container('app', '{sleep: {seconds: 10}}'),
        grace: 60,
        annotations: { 'sidecar.istio.io/inject': 'true', 'sidecar.istio.io/nativeSidecar': 'false', 'proxy.istio.io/config': 'terminationDrainDuration: 30s' },
      }),
    );
    expect(lane(t, 'istio-proxy').exit).toBe(30);
    expect(t.violations).toEqual([]);
  });

  test('Istio native by default on 1.33: the proxy quits at once after the app (not in the budget)', () => {
    const t = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 60, annotations: { 'sidecar.istio.io/inject': 'true' } }), { version: KubeVersion.parse('1.33') });
    const p = lane(t, 'istio-proxy');
    expect(p).toMatchObject({ role: 'proxy-native', sigterm: 15, exit: 15 });
    expect(t.budget.addends).toEqual([]);
    // Below 1.33 the same manifest is classic.
    const old = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 60, annotations: { 'sidecar.istio.io/inject': 'true' } }), { version: KubeVersion.parse('1.31') });
    expect(lane(old, 'istio-proxy').role).toBe('proxy-classic');
  });
});

describe("Contour's shutdown-manager: Envoy's preStop waits for it", () => {
  // projectcontour examples/render/contour.yaml, the envoy DaemonSet, reduced; a release before
  // 1.22.0, whose --check-delay defaults to 60s (0s from 1.22.0).
  const contour = (grace: number, tag = 'v1.21.3') => `apiVersion: v1
kind: Service
metadata: {name: envoy, namespace: projectcontour}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: envoy}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: envoy, namespace: projectcontour}
spec:
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 10%}}
  selector: {matchLabels: {app: envoy}}
  template:
    metadata: {labels: {app: envoy}}
    spec:
      terminationGracePeriodSeconds: ${grace}
      containers:
      - name: shutdown-manager
        image: ghcr.io/projectcontour/contour:${tag}
        command: [/bin/contour]
        args: [envoy, shutdown-manager]
        lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}
      - name: envoy
        image: docker.io/envoyproxy/envoy:distroless-v1.31.0
        ports: [{name: http, containerPort: 8080, hostPort: 80}, {name: metrics, containerPort: 8002}]
        readinessProbe: {httpGet: {path: /ready, port: 8002}}
        lifecycle: {preStop: {httpGet: {path: /shutdown, port: 8090}}}
`;

  test('Envoy keeps serving through the drain: SIGTERM when the shutdown-manager hook ends, not at 0s; it stops last', () => {
    const t = explainOne(contour(300));
    expect(laneEvents(t, 'envoy')).toEqual(['prestop-start@0', 'prestop-end@60', 'sigterm@60', 'exit@70']);
    expect(laneEvents(t, 'shutdown-manager')).toEqual(['prestop-start@0', 'prestop-end@60', 'sigterm@60', 'exit@70']);
    expect(lane(t, 'envoy').exit!).toBeGreaterThanOrEqual(lane(t, 'shutdown-manager').exit!);
    expect(lane(t, 'envoy').detail).toBe('main, preStop httpGet, waits for shutdown-manager (>= 60s)');
    expect(t.budget.containers.find((c) => c.container === 'envoy')).toMatchObject({ needed: 70, judged: true });
    expect(t.violations).toEqual([]);
  });

  test('the assumptions say who keeps serving: not the shutdown-manager', () => {
    const a = explainOne(contour(300)).assumptions.join('\n');
    expect(a).not.toMatch(/shutdown-manager.*keeps accepting/);
    expect(a).toContain('"shutdown-manager": its preStop runs contour-envoy-shutdown-before-1-22 (catalog), which lasts at least 60s; "envoy" waits for it in its own preStop and keeps serving until it ends');
    expect(a).toContain('"envoy": its preStop httpGet returns when "shutdown-manager"\'s hook (contour-envoy-shutdown-before-1-22, catalog) does: at least 60s');
    expect(a).not.toContain('"envoy": the preStop httpGet hook\'s duration is unknown');
  });

  test('a grace period shorter than the drain cuts Envoy too: grace-period-budget reports both containers, and explain lists what lint reports', () => {
    const t = explainOne(contour(65));
    const budget = t.findings.filter((f) => f.ruleId === 'grace-period-budget').map((f) => /container "([^"]+)"/.exec(f.message)?.[1]).sort();
    expect(budget).toEqual(['envoy', 'shutdown-manager']);
    expect(t.violations.filter((v) => v.ruleId === 'grace-period-budget').map((v) => v.lane).sort()).toEqual(['envoy', 'shutdown-manager']);
    expect(lane(t, 'envoy').killedAt).toBe(65);
  });

  test('from Contour 1.22.0 (--check-delay 0s by default) the hook has no minimum: SIGTERM at 0s, and the LB window is reported with the program\'s --drain-delay as advice', () => {
    const t = explainOne(contour(300, 'v1.33.0'));
    expect(laneEvents(t, 'envoy')).toEqual(['prestop-start@0', 'sigterm@0', 'exit@10']);
    expect(lane(t, 'envoy').detail).toBe('main, preStop httpGet, waits for shutdown-manager (>= 0s)');
    expect(explainOne(contour(300, 'v1.33.0')).assumptions.join('\n')).toContain('"shutdown-manager": its preStop runs contour-envoy-shutdown (catalog), which lasts at least 0s');
    const etp = t.findings.filter((f) => f.ruleId === 'external-traffic-local');
    expect(etp).toHaveLength(1);
    expect(etp[0].message).toContain('container "envoy": preStop delay 0s behind Service/envoy');
    expect(etp[0].message).toContain('set --drain-delay=35s in the preStop command of container "shutdown-manager", whose hook this one waits for');
    expect(t.findings.filter((f) => f.ruleId === 'grace-period-budget')).toEqual([]);
  });
});

describe('rollout summary', () => {
  test('Deployment RollingUpdate: resolved surge/unavailable, steps, duration from the readiness probe and minReadySeconds', () => {
    const text = deployment({
      containers: `      - name: app\n        image: a\n        ports: [{containerPort: 8080}]\n        readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 4, periodSeconds: 3, successThreshold: 2}`,
      replicas: 4,
    }).replace('  replicas: 4\n', '  replicas: 4\n  minReadySeconds: 10\n  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n');
    const r = explainOne(text).rollout;
    expect(r).toMatchObject({ strategy: 'RollingUpdate', replicas: 4, podsPerStep: 1, steps: 4, minReadySeconds: 10, startupSeconds: 7, stepSeconds: 17, durationSeconds: 68 });
    expect(r.parameters).toContain('maxSurge 1 → 1, maxUnavailable 0 → 0');
  });

  test('startup and readiness delays overlap (the kubelet counts both from the container start): Ready at the larger, not the sum (keycloakx, review round 30)', () => {
    const text = deployment({
      containers: `      - name: app\n        image: a\n        ports: [{containerPort: 8080}]\n        startupProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 15, periodSeconds: 5, failureThreshold: 60}\n        readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 10, periodSeconds: 3, successThreshold: 2}`,
      replicas: 2,
    });
    const r = explainOne(text).rollout;
    expect(r.startupSeconds).toBe(18);
    expect(r.startupBasis).toBe('"app": max(startupProbe initialDelaySeconds 15, readinessProbe initialDelaySeconds 10; the kubelet counts both from the container\'s start) + (successThreshold 2 - 1) x periodSeconds 3 (probes pass at the first try; image pull and process start not counted)');
  });

  test('Deployment defaults (25%/25%) with 8 replicas: 2 + 2 per step', () => {
    const r = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 8 })).rollout;
    expect(r).toMatchObject({ podsPerStep: 4, steps: 2 });
    expect(r.parameters).toContain('(default)');
  });

  test('a step creates at most replicas new pods: 1 replica with maxSurge 1 / maxUnavailable 1 is one new pod, not 2 (opencost chart, review p30)', () => {
    const text = deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 1 }).replace('  replicas: 1\n', '  replicas: 1\n  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}\n');
    const r = explainOne(text).rollout;
    expect(r).toMatchObject({ replicas: 1, podsPerStep: 1, steps: 1 });
    expect(timelinesText(explainText(text), { color: false })).toMatch(/steps: 1 x 1 new pod\n/);
  });

  test('StatefulSet maxUnavailable above the updated pods: a step is at most the updated pods', () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  updateStrategy: {rollingUpdate: {maxUnavailable: 5}}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, lifecycle: {preStop: {sleep: {seconds: 2}}}}]
`;
    const r = explainOne(sts, { version: KubeVersion.parse('1.35.2') }).rollout;
    expect(r).toMatchObject({ podsPerStep: 3, steps: 1 });
  });

  test('Recreate: one step including the shutdown, and a downtime note', () => {
    const text = deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 3 }).replace('  replicas: 3\n', '  replicas: 3\n  strategy: {type: Recreate}\n');
    const r = explainOne(text).rollout;
    expect(r).toMatchObject({ strategy: 'Recreate', steps: 1, stepSeconds: 15 });
    expect(r.notes.join('\n')).toMatch(/downtime/);
  });

  test('strategy.type "" (review round 31): the API default RollingUpdate, not a Recreate outage', () => {
    const text = deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 3 }).replace('  replicas: 3\n', '  replicas: 3\n  strategy: {type: ""}\n');
    const r = explainOne(text).rollout;
    expect(r).toMatchObject({ strategy: 'RollingUpdate', podsPerStep: 1, steps: 3 });
    expect(r.notes.join('\n')).not.toMatch(/downtime|outage/);
    const ds = text.replace('kind: Deployment', 'kind: DaemonSet').replace('  strategy: {type: ""}\n', '  updateStrategy: {type: ""}\n');
    expect(explainOne(ds).rollout.strategy).toBe('RollingUpdate');
  });

  test('StatefulSet: one at a time, each step waits for the old pod to be gone; partition', () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 5
  serviceName: db
  minReadySeconds: 3
  updateStrategy: {rollingUpdate: {partition: 2}}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 30
      containers: [{name: db, image: postgres, lifecycle: {preStop: {sleep: {seconds: 2}}}}]
`;
    const r = explainOne(sts).rollout;
    expect(r).toMatchObject({ strategy: 'RollingUpdate', podsPerStep: 1, steps: 3, stepSeconds: 12 + 0 + 3, durationSeconds: 45 });
    expect(r.notes.join('\n')).toMatch(/partition 2: only ordinals >= 2 \(3 of 5\)/);
  });

  test('DaemonSet: per node; without surge the node has no pod during the step', () => {
    const ds = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: agent}]
`;
    const r = explainOne(ds).rollout;
    expect(r).toMatchObject({ strategy: 'RollingUpdate', podsPerStep: 1, stepSeconds: 10 });
    expect(r.steps).toBeUndefined();
    expect(r.notes.join('\n')).toMatch(/without its pod/);
    const surge = explainOne(ds.replace('spec:\n  selector', 'spec:\n  updateStrategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n  selector')).rollout;
    expect(surge.stepSeconds).toBe(0);
    expect(surge.notes.join('\n')).not.toMatch(/without its pod/);
  });

  test('PDB, spreading and fan-in notes', () => {
    const pdb = `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`;
    const r = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 3, annotations: { 'kubegrace.dev/connection-pattern': 'fan-in' }, extra: pdb })).rollout;
    const notes = r.notes.join('\n');
    expect(notes).toMatch(/PodDisruptionBudget\/web \(minAvailable 2\) allows 1 eviction at a time with 3 pods/);
    expect(notes).toMatch(/not spread/);
    expect(notes).toMatch(/fan-in clients .*3 replicas, P=0.7.*up to 19.5s.*set 20/);
  });

  test('a bare Pod and a Job have no rollout', () => {
    const ts = explainText(`apiVersion: v1
kind: Pod
metadata: {name: one}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}
`);
    expect(ts.map((t) => t.rollout.strategy)).toEqual(['none', 'none']);
    expect(ts[0].rollout.notes[0]).toMatch(/bare Pod/);
  });
});

describe('rollout notes name a rule only when that rule reports the condition (daemonset-surge)', () => {
  const ds = (opts: { name?: string; strategy?: string; ports?: string; service?: string } = {}) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${opts.name ?? 'envoy'}}
spec:
${opts.strategy ? `  updateStrategy: ${opts.strategy}\n` : ''}  selector: {matchLabels: {app: px}}
  template:
    metadata: {labels: {app: px}}
    spec:
      containers: [{name: ${opts.name ?? 'envoy'}, image: example/${opts.name ?? 'envoy'}:1${opts.ports ? `, ports: ${opts.ports}` : ''}}]
${opts.service ?? ''}`;
  const notes = (t: Timeline) => t.rollout.notes.join('\n');
  const lintIds = (t: Timeline) => t.findings.map((f) => f.ruleId);

  test('a node-level proxy rolling with maxSurge 0: the rule reports it, and the note names it', () => {
    const t = explainOne(ds());
    expect(lintIds(t)).toContain('daemonset-surge');
    expect(notes(t)).toContain('node-local traffic through it is dropped (daemonset-surge)');
  });

  test('the same proxy with a hostPort: surge is impossible, the rule is silent, and so is the note', () => {
    const t = explainOne(ds({ ports: '[{containerPort: 8080, hostPort: 80}]' }));
    expect(lintIds(t)).not.toContain('daemonset-surge');
    expect(citedRules(t)).not.toContain('daemonset-surge');
    expect(notes(t)).toContain('the pod binds node ports (envoy:80), so it cannot surge');
    expect(notes(t)).toMatch(/node-local traffic to a node is dropped while its pod is replaced, unless/);
  });

  test('surge-only on a hostPort: the rule reports the stall (error), and the note says the rollout never progresses, with no step or duration estimate', () => {
    const t = explainOne(ds({ ports: '[{containerPort: 8080, hostPort: 80}]', strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }));
    expect(lintIds(t)).toContain('daemonset-surge');
    expect(notes(t)).toContain('so the rollout never progresses (daemonset-surge)');
    expect(notes(t)).not.toMatch(/without its pod|steps, about|node count/);
    expect(t.rollout.podsPerStep).toBeUndefined();
  });

  test('a DaemonSet that is no node proxy and gets no Local traffic: no claim about node-local traffic', () => {
    const t = explainOne(ds({ name: 'node-exporter', ports: '[{containerPort: 9100, hostPort: 9100}]' }));
    expect(lintIds(t)).not.toContain('daemonset-surge');
    expect(notes(t)).toMatch(/each node is without its pod for about \d+s/);
    expect(notes(t)).not.toContain('node-local');
    expect(citedRules(t)).toEqual([]);
  });

  test('below 1.22 maxSurge is unavailable: dropped traffic said, no rule named', () => {
    const t = explainOne(ds(), { version: KubeVersion.parse('1.21') });
    expect(lintIds(t)).not.toContain('daemonset-surge');
    expect(notes(t)).toContain('node-local traffic through it is dropped; surging first (maxSurge) needs Kubernetes >= 1.22');
    expect(citedRules(t)).toEqual([]);
  });

  test('the rule reports what the API rejects or ignores, and the note says so', () => {
    const both = explainOne(ds({ strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}' }));
    expect(lintIds(both)).toContain('daemonset-surge');
    expect(notes(both)).toMatch(/the API rejects this update strategy.*\(daemonset-surge\)/);
    const ignored = explainOne(ds({ strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}' }), { version: KubeVersion.parse('1.21') });
    expect(lintIds(ignored)).toContain('daemonset-surge');
    expect(notes(ignored)).toMatch(/maxSurge 1 is ignored on 1\.21.*\(daemonset-surge\)/);
    expect(ignored.rollout.durationBasis).toContain('during which the node has no pod');
  });

  test('a rule the policy turns off is not named', () => {
    const off = explainOne(ds(), { policy: policyWithout('daemonset-surge') });
    expect(lintIds(off)).not.toContain('daemonset-surge');
    expect(notes(off)).toContain('node-local traffic through it is dropped');
    expect(citedRules(off)).toEqual([]);
  });

  test("the policy's params decide as they do for the rule (nodeProxyPatterns without envoy)", () => {
    const t = explainOne(ds(), { policy: policyWithParams('daemonset-surge', { nodeProxyPatterns: ['ztunnel'] }) });
    expect(lintIds(t)).not.toContain('daemonset-surge');
    expect(notes(t)).not.toContain('node-local');
    expect(citedRules(t)).toEqual([]);
  });
});

describe('rollout notes name a rule only when that rule reports the condition (statefulset-ordered-ready)', () => {
  const sts = (replicas: number, policy = '') => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: ${replicas}
  serviceName: db
${policy}  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
`;
  const notes = (t: Timeline) => t.rollout.notes.join('\n');
  const lintIds = (t: Timeline) => t.findings.map((f) => f.ruleId);

  test('OrderedReady with 3 replicas: reported, and named', () => {
    const t = explainOne(sts(3));
    expect(lintIds(t)).toContain('statefulset-ordered-ready');
    expect(notes(t)).toContain('stops the rollout until it is repaired by hand (statefulset-ordered-ready)');
  });

  test('OrderedReady with 1 replica: below minReplicas the rule is silent; the stall is still said, unnamed', () => {
    const t = explainOne(sts(1));
    expect(lintIds(t)).not.toContain('statefulset-ordered-ready');
    expect(notes(t)).toContain('stops the rollout until it is repaired by hand');
    expect(citedRules(t)).not.toContain('statefulset-ordered-ready');
    const included = explainOne(sts(1), { policy: policyWithParams('statefulset-ordered-ready', { minReplicas: 1 }) });
    expect(lintIds(included)).toContain('statefulset-ordered-ready');
    expect(citedRules(included)).toContain('statefulset-ordered-ready');
  });

  test('Parallel: not OrderedReady, so no hand repair is claimed and no rule named', () => {
    const t = explainOne(sts(3, '  podManagementPolicy: Parallel\n'));
    expect(lintIds(t)).not.toContain('statefulset-ordered-ready');
    expect(notes(t)).toContain('a new pod that never becomes Ready stops the rollout');
    expect(notes(t)).not.toContain('by hand');
    expect(citedRules(t)).not.toContain('statefulset-ordered-ready');
  });
});

describe('rollout notes name a rule only when that rule reports the condition (replicas-not-spread)', () => {
  const podSpecExtra = (yaml: string, extra: string) => yaml.replace('    spec:\n', `    spec:\n${extra}`);
  const notes = (t: Timeline) => t.rollout.notes.join('\n');
  const lintIds = (t: Timeline) => t.findings.map((f) => f.ruleId);
  const web = (opts: { served?: boolean } = {}) => deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 3, served: opts.served });

  test('served, 3 replicas, nothing spreads them: reported, and named', () => {
    const t = explainOne(web());
    expect(lintIds(t)).toContain('replicas-not-spread');
    expect(notes(t)).toContain('one node can hold all of them (replicas-not-spread)');
  });

  test('not served (no Service, kubegrace.dev/served false): the rule is silent; the fact is said, unnamed', () => {
    const t = explainOne(web({ served: false }).replace('  template:\n    metadata:\n', '  template:\n    metadata:\n      annotations: {kubegrace.dev/served: "false"}\n'));
    expect(lintIds(t)).not.toContain('replicas-not-spread');
    expect(notes(t)).toContain('one node can hold all of them');
    expect(citedRules(t)).not.toContain('replicas-not-spread');
  });

  test('anti-affinity on the zone counts as spreading for the rule, and so for the note', () => {
    const t = explainOne(podSpecExtra(web(), '      affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}}}]}}\n'));
    expect(lintIds(t)).not.toContain('replicas-not-spread');
    expect(notes(t)).toContain('spread by pod anti-affinity on topology.kubernetes.io/zone');
    expect(notes(t)).not.toContain('not spread');
  });

  test('pinned to a node: the rule does not judge it, and the note says what holds the pods there', () => {
    const t = explainOne(podSpecExtra(web(), '      nodeName: node-1\n'));
    expect(lintIds(t)).not.toContain('replicas-not-spread');
    expect(notes(t)).toContain('placement pinned by nodeName node-1');
    expect(citedRules(t)).not.toContain('replicas-not-spread');
  });

  test('replicas sharing a ReadWriteOnce claim: neither spreading nor a budget is advised; the note says why and names surge-volume-deadlock', () => {
    const pvc = '---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n';
    const t = explainOne(podSpecExtra(web(), '      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n') + pvc);
    expect(lintIds(t)).toContain('surge-volume-deadlock');
    expect(lintIds(t)).not.toContain('replicas-not-spread');
    expect(lintIds(t)).not.toContain('pdb-missing');
    expect(notes(t)).toContain('every replica mounts PVC "data" (ReadWriteOnce): the replicas all run only on the node that has the volume attached, so spreading them across nodes makes the others fail (Multi-Attach) (surge-volume-deadlock)');
    expect(notes(t)).not.toContain('no PodDisruptionBudget');
  });
});

describe('rollout notes say what pdb-missing decides, and name it when it reports', () => {
  const notes = (t: Timeline) => t.rollout.notes.join('\n');
  const lintIds = (t: Timeline) => t.findings.map((f) => f.ruleId);
  const unserved = deployment({ containers: container('worker'), replicas: 3, served: false, annotations: { 'kubegrace.dev/served': 'false' } });

  test('no PodDisruptionBudget for 3 replicas the rule judges whether served or not: reported, said and named', () => {
    for (const yaml of [deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 3 }), unserved]) {
      const t = explainOne(yaml);
      expect(t.servedState).toBe(yaml === unserved ? 'unserved' : 'served');
      expect(lintIds(t)).toContain('pdb-missing');
      expect(notes(t)).toContain('no PodDisruptionBudget: a node drain may evict every replica at once (pdb-missing)');
    }
  });

  test('one replica per node (required hostname anti-affinity): the note says what the rule says', () => {
    const t = explainOne(unserved.replace('    spec:\n', '    spec:\n      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n'));
    expect(lintIds(t)).toContain('pdb-missing');
    expect(notes(t)).toContain('no PodDisruptionBudget: required pod anti-affinity on kubernetes.io/hostname keeps one replica per node, so a single drain takes only one, but concurrent drains may evict every replica together (pdb-missing)');
  });

  test('1 replica: not reported, no note', () => {
    const one = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 1 }));
    expect(lintIds(one)).not.toContain('pdb-missing');
    expect(notes(one)).not.toContain('no PodDisruptionBudget');
  });
});

describe('PDB notes count what pdb-blocks-eviction counts, and name it only when it reports', () => {
  const two = (pdbSpec: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: app, image: a, ports: [{containerPort: 8080}], lifecycle: {preStop: {sleep: {seconds: 5}}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-canary}
spec:
  replicas: 1
  selector: {matchLabels: {app: web-canary}}
  template:
    metadata: {labels: {app: web-canary, tier: front}}
    spec: {containers: [{name: app, image: a, ports: [{containerPort: 8080}], lifecycle: {preStop: {sleep: {seconds: 5}}}}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: front}
spec:
  ${pdbSpec}
  selector: {matchLabels: {tier: front}}
---
apiVersion: v1
kind: Service
metadata: {name: front}
spec:
  selector: {tier: front}
  ports: [{port: 80, targetPort: 8080}]
`;
  const pdbFindings = (yaml: string) => {
    const policy = loadPolicy('recommended', ALL_RULES);
    return explainSources([{ file: 'test.yaml', text: yaml }], { rules: ALL_RULES, policy, version: V133 }).lint.findings.filter((f) => f.ruleId === 'pdb-blocks-eviction');
  };

  test('minAvailable 2 over 3 pods of two workloads allows 1 eviction: not reported, and not said to block', () => {
    const yaml = two('minAvailable: 2');
    expect(pdbFindings(yaml)).toEqual([]);
    const t = explainOne(yaml, { object: 'Deployment/web' });
    const notes = t.rollout.notes.join('\n');
    expect(notes).toContain('PodDisruptionBudget/front (minAvailable 2) allows 1 eviction at a time with 3 pods (of 2 workloads)');
    expect(notes).not.toContain('block');
    expect(citedRules(t)).not.toContain('pdb-blocks-eviction');
  });

  test('minAvailable 3 over the same 3 pods: reported on the PDB, said and named', () => {
    const yaml = two('minAvailable: 3');
    expect(pdbFindings(yaml)).toHaveLength(1);
    const notes = explainOne(yaml, { object: 'Deployment/web' }).rollout.notes.join('\n');
    expect(notes).toContain('PodDisruptionBudget/front (minAvailable 3) allows 0 evictions with 3 pods (of 2 workloads): node drains block (pdb-blocks-eviction)');
  });
});

describe('the full-outage note names rollout-full-outage only when it reports', () => {
  const oneReplica = (extra: { annotations?: Record<string, string>; volumes?: boolean } = {}) => {
    const y = deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 1, annotations: extra.annotations }).replace('  replicas: 1\n', '  replicas: 1\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n');
    return extra.volumes
      ? y.replace('    spec:\n', '    spec:\n      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n') + '---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n'
      : y;
  };
  const notes = (t: Timeline) => t.rollout.notes.join('\n');
  const lintIds = (t: Timeline) => t.findings.map((f) => f.ruleId);

  test('served, 1 replica, maxUnavailable 1: reported and named', () => {
    const t = explainOne(oneReplica());
    expect(lintIds(t)).toContain('rollout-full-outage');
    expect(notes(t)).toContain('a full outage for the startup time (rollout-full-outage)');
  });

  test('a ReadWriteOnce claim (the pods cannot overlap anyway) or an unserved workload: said, unnamed', () => {
    for (const t of [explainOne(oneReplica({ volumes: true })), explainOne(oneReplica({ annotations: { 'kubegrace.dev/served': 'false' } }))]) {
      expect(lintIds(t)).not.toContain('rollout-full-outage');
      expect(notes(t)).toContain('maxUnavailable 1 >= replicas 1: every pod can be down at once');
      expect(citedRules(t)).not.toContain('rollout-full-outage');
    }
  });
});

describe('the progress-deadline note is the rule decision, named only when it reports', () => {
  const web = (spec: string, readinessDelay?: number) =>
    deployment({
      containers: `      - name: app\n        image: a\n        ports: [{containerPort: 8080}]\n        lifecycle: {preStop: {sleep: {seconds: 5}}}${readinessDelay !== undefined ? `\n        readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: ${readinessDelay}}` : ''}`,
      replicas: 2,
    }).replace('  replicas: 2\n', `  replicas: 2\n${spec}`);
  const notes = (t: Timeline) => t.rollout.notes.join('\n');
  const lintIds = (t: Timeline) => t.findings.map((f) => f.ruleId);

  test('a deadline below the realistic step (image pull included): reported, said with its parts, named', () => {
    const t = explainOne(web('  progressDeadlineSeconds: 30\n'));
    expect(lintIds(t)).toContain('progress-deadline');
    expect(notes(t)).toContain('a realistic step takes about 60s (minReadySeconds 0 + image pull 60s), above progressDeadlineSeconds 30s: a healthy rollout can be reported failed (progress-deadline)');
  });

  test('progressDeadlineSeconds <= minReadySeconds: the API rejects it, named', () => {
    const t = explainOne(web('  minReadySeconds: 20\n  progressDeadlineSeconds: 20\n'));
    expect(lintIds(t)).toContain('progress-deadline');
    expect(notes(t)).toContain('progressDeadlineSeconds 20 <= minReadySeconds 20: the API rejects the Deployment (progress-deadline)');
  });

  test('a readiness delay past the deadline, which the rule does not count: said, unnamed', () => {
    const t = explainOne(web('', 700));
    expect(lintIds(t)).not.toContain('progress-deadline');
    expect(notes(t)).toContain('a step takes about 700s, not below progressDeadlineSeconds 600s: the rollout is reported failed');
    expect(citedRules(t)).not.toContain('progress-deadline');
  });
});

describe('determinism and selection', () => {
  test('same input, same model', () => {
    const text = deployment({ containers: container('app', '{sleep: {seconds: 45}}'), grace: 30 });
    expect(JSON.stringify(explainOne(text))).toBe(JSON.stringify(explainOne(text)));
  });
  test('--object selects by kind (case-insensitive, short names) and name', () => {
    const two = deployment({ containers: container('app'), name: 'a' }) + '---\n' + deployment({ containers: container('app'), name: 'b' });
    expect(explainText(two).map((t) => t.object.name)).toEqual(['a', 'b']);
    expect(explainText(two, { object: 'deploy/b' }).map((t) => t.object.name)).toEqual(['b']);
    expect(explainText(two, { object: 'Deployment/default/a' }).map((t) => t.object.name)).toEqual(['a']);
    expect(explainText(two, { object: 'StatefulSet/a' })).toEqual([]);
  });
});

describe('a metrics-only Service is named in the assumptions, not "no Service"', () => {
  // Review round 13: the aws-efs-csi-driver controller with enableMetrics: Service efs-csi-controller on "metrics" 3301.
  test('not served: the Service and its ports are said', () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: efs, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {app: efs}}
  template:
    metadata: {labels: {app: efs}}
    spec:
      containers: [{name: efs-plugin, image: "public.ecr.aws/efs-csi-driver/amazon/aws-efs-csi-driver:v3.4.1", ports: [{name: metrics, containerPort: 3301}]}]
---
apiVersion: v1
kind: Service
metadata: {name: efs-csi-controller, namespace: kube-system}
spec:
  selector: {app: efs}
  ports: [{name: metrics, port: 3301, targetPort: 3301}]
`;
    const t = explainOne(text);
    expect(t.servedState).toBe('unserved');
    expect(t.assumptions.filter((a) => a.startsWith('not served'))).toEqual([
      'not served: Service efs-csi-controller routes to these pods only ports named for metrics, operators or peers (metrics), so there is no client traffic whose endpoint removal to wait for',
    ]);
  });
});

describe("a Service that reaches only a program's monitoring server does not serve the pods", () => {
  test('Fluent Bit: not served, and the header says which port reaches what', () => {
    const t = explainOne(fluentBit());
    expect([t.served, t.servedState]).toEqual([false, 'unserved']);
    expect(t.servedReason).toBe(
      'Service fb-fluent-bit port 2020 reaches the monitoring server of container "fluent-bit" (HTTP_Port 2020 in /fluent-bit/etc/conf/fluent-bit.conf (ConfigMap logging/fb-fluent-bit, key fluent-bit.conf); catalog entry fluent-bit-http-server): no client traffic',
    );
    expect(t.findings.map((f) => f.ruleId)).not.toContain('prestop-missing');
    expect(t.violations).toEqual([]);
    expect(timelineText(t, { color: false })).toContain('; not served (Service fb-fluent-bit port 2020 reaches the monitoring server');
    // The assumptions say the same, not that no Service routes to the pods.
    expect(t.assumptions.filter((a) => a.startsWith('not served'))).toEqual([expect.stringMatching(/^not served: Service fb-fluent-bit port 2020 reaches the monitoring server .*, so there is no client traffic whose endpoint removal to wait for$/)]);
  });
  test('with a forward input on the Service it is served, with no reason to give', () => {
    const t = explainOne(fluentBit({ extraPorts: [{ name: 'forward', port: 24224 }] }));
    expect([t.served, t.servedState, t.servedReason]).toEqual([true, 'served', undefined]);
    expect(t.findings.map((f) => f.ruleId)).toContain('prestop-missing');
  });
});

test('a Service that reaches only an idle placeholder container: the reason names it, not a port named for metrics (review report p29 item 4b: Kuma zone ingress)', () => {
  const t = explainOne(`apiVersion: v1
kind: Service
metadata: {name: kuma-default-ingress, namespace: kuma-system}
spec:
  type: LoadBalancer
  ports: [{port: 10001, protocol: TCP, targetPort: 10001}]
  selector: {app: kuma-default-ingress}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kuma-default-ingress, namespace: kuma-system}
spec:
  replicas: 2
  selector: {matchLabels: {app: kuma-default-ingress}}
  template:
    metadata:
      labels: {app: kuma-default-ingress, kuma.io/sidecar-injection: enabled}
    spec:
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.10
`);
  expect(t.servedState).toBe('unserved');
  expect(t.servedReason).toBe(
    'Service kuma-default-ingress port 10001 reaches only the idle container "pause" (image registry.k8s.io/pause:3.10), which serves nothing: no client traffic to any program of the manifest (a container injected at admission is not in it)',
  );
});

describe("statsd_exporter's ingest port takes pushed metrics: not served, and not called free of client traffic (review round 33, report p39 item 2: Airflow's af-statsd)", () => {
  const statsd = (args = '') => `apiVersion: v1
kind: Service
metadata: {name: af-statsd, namespace: airflow}
spec:
  selector: {app: statsd}
  ports:
    - {name: statsd-ingest, protocol: UDP, port: 9125, targetPort: 9125}
    - {name: statsd-scrape, protocol: TCP, port: 9102, targetPort: 9102}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: af-statsd, namespace: airflow}
spec:
  replicas: 1
  selector: {matchLabels: {app: statsd}}
  template:
    metadata: {labels: {app: statsd}}
    spec:
      containers:
        - name: statsd
          image: quay.io/prometheus/statsd-exporter:v0.30.0
          args: ["--statsd.mapping-config=/etc/statsd-exporter/mappings.yml"${args}]
          ports:
            - {name: statsd-ingest, protocol: UDP, containerPort: 9125}
            - {name: statsd-scrape, containerPort: 9102}
`;
  test('the ingest port is named as such, and what is lost is samples, not requests', () => {
    const t = explainOne(statsd());
    expect(t.servedState).toBe('unserved');
    expect(t.servedReason).toBe(
      'Service af-statsd port 9125 reaches the ingest port of container "statsd", statsd_exporter (--statsd.listen-udp/--statsd.listen-tcp, default :9125), to which other programs push their metrics; Service af-statsd port 9102 reaches container "statsd", a Prometheus exporter (image quay.io/prometheus/statsd-exporter:v0.30.0): no client requests, only metrics pushed to the ingest port: the samples sent while the endpoint removal propagates are lost (seconds of metrics, no failed request)',
    );
    expect(t.assumptions.filter((a) => a.startsWith('not served'))).toEqual([expect.stringMatching(/, so there is no request whose endpoint removal to wait for$/)]);
    expect(t.findings.map((f) => f.ruleId)).not.toContain('prestop-missing');
  });
  test('an ingest address moved by its flag is followed; the old default port is then the exporter\'s other port', () => {
    const moved = statsd(', "--statsd.listen-udp=:8125", "--statsd.listen-tcp=:8125"').replace(/9125/g, '8125');
    expect(explainOne(moved).servedReason).toMatch(/^Service af-statsd port 8125 reaches the ingest port of container "statsd"/);
    const stale = statsd(', "--statsd.listen-udp=:8125", "--statsd.listen-tcp="');
    expect(explainOne(stale).servedReason).toMatch(/^Service af-statsd port 9125 reaches container "statsd", a Prometheus exporter .*: no client traffic$/);
  });
});

test("a Recreate rollout of Kibana (catalog single-version) says why Recreate is required, and its downtime", () => {
  const t = explainOne(deployment({ containers: container('kibana').replace('example/kibana:1', 'docker.elastic.co/kibana/kibana:8.5.1'), replicas: 2 }).replace('  selector:', '  strategy: {type: Recreate}\n  selector:'));
  expect(t.rollout.strategy).toBe('Recreate');
  expect(t.rollout.notes).toContain('Recreate is required: container "kibana" runs Kibana (does not support rolling upgrades), whose old and new versions must not run side by side (catalog entry kibana)');
  expect(t.findings.filter((f) => f.ruleId === 'recreate-strategy').map((f) => f.severity)).toEqual(['info']);
});

test('a Recreate rollout of standalone SonarQube (catalog single-version, overlap: instances) says two instances must not run at once', () => {
  const t = explainOne(deployment({ containers: container('app').replace('example/app:1', 'sonarqube:26.7.0.124771-community'), replicas: 1 }).replace('  selector:', '  strategy: {type: Recreate}\n  selector:'));
  expect(t.rollout.notes).toContain('Recreate is required: container "app" runs SonarQube Server or Community Build, standalone (one server per database), of which two instances must not run at once, whatever their versions (catalog entry sonarqube-standalone)');
});

describe('termination timeline: a PID 1 that never receives SIGTERM', () => {
  // Review round 20 (Sonatype nxrm-ha): a log sidecar `sh -c 'tail -F …'` on busybox.
  const text = deployment({
    containers: `${container('app', '{sleep: {seconds: 10}}')}
      - name: request-log
        image: busybox:1.33.1
        args: [/bin/sh, -c, 'tail -n+1 -F /data/log/request.log']`,
    grace: 120,
  });
  test('drawn running until SIGKILL at the deadline, the pod gone then, and said as an assumption', () => {
    const t = explainOne(text);
    const l = lane(t, 'request-log');
    expect(l.exit).toBe(120);
    expect(l.phases.map((p) => [p.kind, p.start, p.end, p.label])).toEqual([['drain', 0, 120, 'ignores SIGTERM: runs until SIGKILL']]);
    expect(t.podGoneAt).toBe(120);
    expect(t.violations).toEqual([]);
    expect(t.assumptions).toContainEqual('"request-log": runs sh -c as PID 1 with only tail under it and no TERM trap, which never receives SIGTERM: drawn running until SIGKILL at 120s (grace-period-budget)');
    // The app beside it is unchanged.
    expect(lane(t, 'app').exit).toBe(20);
  });
});

describe('rollout estimate with a preStop hook of unknown length', () => {
  // Review round 21 (the official Concourse chart's worker retire hook): the shutdown drawn is a lower bound.
  test('the expected duration says "at least", as the shutdown in it', () => {
    const text = deployment({ containers: container('app', '{exec: {command: [/bin/bash, /pre-stop-hook.sh]}}'), grace: 60 }).replace('kind: Deployment', 'kind: StatefulSet').replace('spec:\n  replicas', 'spec:\n  serviceName: web\n  replicas');
    const t = explainOne(text);
    expect(t.rollout.durationAtLeast).toBe(true);
    expect(t.rollout.durationBasis).toContain('old pod shutdown at least ');
    expect(timelineText(t, { color: false })).toMatch(/expected duration: at least \d+s = /);
    // A known hook: about.
    const known = explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 60 }).replace('kind: Deployment', 'kind: StatefulSet').replace('spec:\n  replicas', 'spec:\n  serviceName: web\n  replicas'));
    expect(known.rollout.durationAtLeast).toBeUndefined();
  });
});

describe('Helm test hooks in explain (review round 24, LiveKit test-connection)', () => {
  // Two replicas of "web", a PDB over them, and the chart's test Pod carrying the same labels.
  const yaml = `${deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 2 })}---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-test-connection
  labels: {app: web}
  annotations: {helm.sh/hook: test}
spec:
  restartPolicy: Never
  containers: [{name: wget, image: busybox, command: [wget, 'web:80']}]
`;
  test('the PDB counts the Deployment\'s pods only, and says the test hook is left out', () => {
    const notes = explainOne(yaml, { object: 'Deployment/web' }).rollout.notes.join('\n');
    expect(notes).toContain('PodDisruptionBudget/web (maxUnavailable 1) allows 1 eviction at a time with 2 pods (Helm test hook Pod/web-test-connection left out: it exists only while `helm test` runs)');
    expect(notes).not.toContain('of 2 workloads');
  });
  test('no timeline for the test hook unless --object names it, and then it is labelled', () => {
    expect(explainText(yaml).map((t) => `${t.object.kind}/${t.object.name}`)).toEqual(['Deployment/web']);
    const hook = explainOne(yaml, { object: 'Pod/web-test-connection' });
    expect(hook.helmTestHook).toBe(true);
    expect(timelineText(hook, { color: false })).toContain('Helm test hook (helm.sh/hook: test): this pod exists only while `helm test` runs');
  });
  test('without the hook annotation the Pod still counts (near miss)', () => {
    const notes = explainOne(yaml.replace('  annotations: {helm.sh/hook: test}\n', ''), { object: 'Deployment/web' }).rollout.notes.join('\n');
    expect(notes).toContain('with 3 pods (of 2 workloads)');
  });
});

describe('explain: a one-pod-per-node rollout waits for old pods (review round 24, LiveKit)', () => {
  const lk = (grace: number) =>
    deployment({ containers: container('app', '{sleep: {seconds: 5}}'), replicas: 2, grace })
      .replace('  replicas: 2\n', '  replicas: 2\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n')
      .replace(/(\n {4}spec:\n)/, '$1      hostNetwork: true\n');
  test('grace 18000: the note says each step waits for an old pod and names progress-deadline', () => {
    const t = explainOne(lk(18000), { object: 'Deployment/web' });
    expect(t.rollout.notes.join('\n')).toMatch(/without a spare node each step waits for an old pod's termination \(up to its grace period, 18000s\), not in parallel.*raise it to at least 18060s \(progress-deadline\)/);
    expect(citedRules(t)).toContain('progress-deadline');
  });
  test('grace 60: no such note', () => {
    expect(explainOne(lk(60), { object: 'Deployment/web' }).rollout.notes.join('\n')).not.toContain('not in parallel');
  });
});

describe('termination timeline: an exec sleep that cannot run in a shell-less image (review round 29)', () => {
  // The oauth2-proxy chart's commented block (grace 65, sh -c "sleep 60") with its distroless default image.
  const text = (image: string) =>
    deployment({
      grace: 65,
      containers: `      - name: app
        image: ${image}
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 60"]}}}`,
    });
  test('drawn as no delay, as grace-period-budget budgets it: SIGTERM at 0, the budget fits, and an assumption says why', () => {
    const t = explainOne(text('quay.io/oauth2-proxy/oauth2-proxy:v7.15.3'), { version: KubeVersion.parse('1.31') });
    expect(laneEvents(t, 'app')).toEqual(['sigterm@0', 'exit@10']);
    expect(lane(t, 'app').detail).toBe('main, preStop exec sleep 60s that cannot run (shell-less image)');
    expect(t.budget.containers[0]).toMatchObject({ needed: 10, judged: false });
    expect(t.violations).toEqual([]);
    // (Besides the unrelated pdb, spread and readiness findings of this bare Deployment.)
    expect(t.findings.filter((f) => /prestop|grace/.test(f.ruleId)).map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['prestop-sleep-action warning']);
    expect(t.assumptions).toContain('"app": its preStop exec sleep 60s cannot run in the shell-less image "quay.io/oauth2-proxy/oauth2-proxy:v7.15.3": the hook fails (FailedPreStopHook) and SIGTERM comes at once; drawn with no delay (prestop-sleep-action)');
    expect(timelineText(t, { color: false })).toContain('app: preStop 0s (its exec sleep 60s cannot run in the shell-less image) + drain 10s = 10s needed, fits grace 65s');
  });
  test("the image with a shell sleeps 60s; the policy's shellLessImagePatterns are honoured", () => {
    const alpine = explainOne(text('quay.io/oauth2-proxy/oauth2-proxy:v7.15.3-alpine'), { version: KubeVersion.parse('1.31') });
    expect(laneEvents(alpine, 'app')).toEqual(['prestop-start@0', 'prestop-end@60', 'sigterm@60', 'sigkill@65']);
    const custom = explainOne(text('reg.example.com/minimal/proxy:1'), { version: KubeVersion.parse('1.31'), policy: policyWithParams('prestop-sleep-action', { shellLessImagePatterns: ['/minimal/'] }) });
    expect(laneEvents(custom, 'app')).toEqual(['sigterm@0', 'exit@10']);
    expect(custom.findings.filter((f) => /prestop|grace/.test(f.ruleId)).map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['prestop-sleep-action warning']);
  });
});
