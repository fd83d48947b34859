/**
 * A company subclass whose container brings its own preStop program (issue 13): the declared
 * duration (customPreStopSeconds -> kubegrace.dev/prestop-seconds) drives the grace period the
 * construct writes, the linter and explain; an undeclared one is refused at synthesis, naming the prop.
 */
import { Duration, Testing, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { GracefulDeployment, GracefulDeploymentProps, GracefulStatefulSet } from '../../lib/constructs';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion, NEWEST_KNOWN } from '../../lib/engine/version';
import { explainSources } from '../../lib/explain';
import { JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { PRESTOP_SECONDS_HINT } from '../../lib/timeline/prestop';
import { byKind, container, describeFindings, lintYaml, podSpec, synth } from './helpers';

const READY = kplus.Probe.fromHttpGet('/readyz', { port: 8080 });

interface DrainingWebProps extends Omit<GracefulDeploymentProps, 'containers'> {
  readonly image: string;
  /** How long /bin/drain waits for in-flight sessions to move away. */
  readonly drainWaitSeconds: number;
}

/** The company's web service: the platform's drain program as the preStop hook. */
class DrainingWeb extends GracefulDeployment {
  constructor(scope: Construct, id: string, props: DrainingWebProps) {
    super(scope, id, {
      ...props,
      containers: [
        {
          name: 'app',
          image: props.image,
          portNumber: 8080,
          readiness: READY,
          lifecycle: { preStop: kplus.Handler.fromCommand(['/bin/drain', '--wait', String(props.drainWaitSeconds)]) },
        },
      ],
      service: {},
    });
  }
}

function explain(yaml: string, object = 'Deployment/web') {
  const r = explainSources([{ file: 'synth.yaml', text: yaml }], { rules: ALL_RULES, policy: loadPolicy('strict', ALL_RULES), version: KubeVersion.parse(NEWEST_KNOWN), object });
  expect(r.timelines).toHaveLength(1);
  return r.timelines[0];
}

describe('a custom preStop program with a declared duration', () => {
  const chart = Testing.chart();
  const d = new DrainingWeb(chart, 'web', { metadata: { name: 'web' }, image: 'example/web:1', drainWaitSeconds: 25, customPreStopSeconds: 25 });
  const all = synth(chart);
  const dep = byKind(all, 'Deployment');
  const yaml = Yaml.stringify(...all);

  test('drives the grace period: 25 (declared) + drain 10 + margin 5 = 40, with the hint written', () => {
    expect((dep.metadata as JsonObject).annotations).toMatchObject({ [PRESTOP_SECONDS_HINT]: '25' });
    expect((container(dep, 'app').lifecycle as JsonObject).preStop).toEqual({ exec: { command: ['/bin/drain', '--wait', '25'] } });
    expect(podSpec(dep).terminationGracePeriodSeconds).toBe(40);
    expect(d.budget()).toMatchObject({ preStopSeconds: 25, drainSeconds: 10, gracePeriodSeconds: 40, computed: true });
  });

  test('lints clean under the strict policy', () => {
    expect(describeFindings(lintYaml(yaml))).toEqual([]);
  });

  test('explain draws the 25 s hook and says it fits', () => {
    const t = explain(yaml);
    const app = t.lanes.find((l) => l.name === 'app')!;
    expect(app.sigterm).toBe(25);
    expect(app.detail).toContain(`preStop program 25s (${PRESTOP_SECONDS_HINT})`);
    expect(t.budget.binding).toMatchObject({ needed: 35 });
    expect(t.budget.overBy).toBe(-5);
    expect(t.violations).toEqual([]);
  });

  test('the same declared hook under a too-short explicit grace: lint and explain both report it', () => {
    const c = Testing.chart();
    new DrainingWeb(c, 'web', { metadata: { name: 'web' }, image: 'example/web:1', drainWaitSeconds: 25, customPreStopSeconds: 25, terminationGracePeriod: Duration.seconds(15) });
    const bad = Yaml.stringify(...synth(c));
    const lint = lintYaml(bad).filter((f) => f.ruleId === 'grace-period-budget');
    expect(lint.map((f) => [f.severity, f.message])).toEqual([
      ['error', `container "app": preStop delay 25s (${PRESTOP_SECONDS_HINT}) >= terminationGracePeriodSeconds (15s): the app gets only 2s after SIGTERM before SIGKILL; raise the grace period to at least 40s or shorten the delay`],
    ]);
    const t = explain(bad);
    expect(t.violations[0]).toMatchObject({ ruleId: 'grace-period-budget', severity: 'error', lane: 'app' });
  });

  test('per-container durations: { app: 40 } writes app=40 and the grace follows', () => {
    const c = Testing.chart();
    new DrainingWeb(c, 'web', { image: 'example/web:1', drainWaitSeconds: 40, customPreStopSeconds: { app: 40 } });
    const m = byKind(synth(c), 'Deployment');
    expect((m.metadata as JsonObject).annotations).toMatchObject({ [PRESTOP_SECONDS_HINT]: 'app=40' });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(55);
  });

  test('a StatefulSet with its own httpGet hook is counted the same way', () => {
    const c = Testing.chart();
    new GracefulStatefulSet(c, 'db', {
      containers: [{ name: 'db', image: 'example/db:1', portNumber: 5432, readiness: kplus.Probe.fromTcpSocket({ port: 5432 }), lifecycle: { preStop: kplus.Handler.fromHttpGet('/drain', { port: 5432 }) } }],
      customPreStopSeconds: 20,
    });
    expect(podSpec(byKind(synth(c), 'StatefulSet')).terminationGracePeriodSeconds).toBe(35);
  });
});

describe('refusals', () => {
  test('an undeclared custom hook is refused at synthesis, naming the container and the prop', () => {
    const c = Testing.chart();
    new DrainingWeb(c, 'web', { image: 'example/web:1', drainWaitSeconds: 25 });
    expect(() => synth(c)).toThrow(/container "app" has a preStop program \(\/bin\/drain --wait 25\) whose duration kubegrace cannot know.*declare how long it runs with the customPreStopSeconds prop/);
  });

  test('preStopSeconds does not describe the own hook: the issue 13 case is refused instead of silently writing grace 15', () => {
    const c = Testing.chart();
    new DrainingWeb(c, 'web', { image: 'example/web:1', drainWaitSeconds: 25, preStopSeconds: 25 });
    expect(() => synth(c)).toThrow(/customPreStopSeconds/);
    expect(() => synth(c)).toThrow(/preStopSeconds \(25\) was written on no container/);
  });

  test('an explicit terminationGracePeriod is the escape hatch: no refusal (the linter does not judge the unknown hook)', () => {
    const c = Testing.chart();
    new DrainingWeb(c, 'web', { image: 'example/web:1', drainWaitSeconds: 25, terminationGracePeriod: Duration.seconds(60) });
    expect(podSpec(byKind(synth(c), 'Deployment')).terminationGracePeriodSeconds).toBe(60);
  });

  test('a hook of known duration (a sleep, a recognised wait command) needs no declaration', () => {
    const c = Testing.chart();
    new GracefulDeployment(c, 'web', {
      containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080, readiness: READY, lifecycle: { preStop: kplus.Handler.fromCommand(['sh', '-c', 'sleep 12']) } }],
    });
    expect(podSpec(byKind(synth(c), 'Deployment')).terminationGracePeriodSeconds).toBe(27);
  });

  test('declarations that describe nothing are refused: a typo in the container name, a number without any custom hook', () => {
    const typo = Testing.chart();
    new DrainingWeb(typo, 'web', { image: 'example/web:1', drainWaitSeconds: 25, customPreStopSeconds: { ap: 25 } });
    expect(() => synth(typo)).toThrow(/customPreStopSeconds names container "ap", which has no preStop hook of unknown duration.*containers with one: "app"/);
    const none = Testing.chart();
    new GracefulDeployment(none, 'web', { containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080, readiness: READY }], customPreStopSeconds: 25 });
    expect(() => synth(none)).toThrow(/customPreStopSeconds \(25\) is set, but no container has a preStop hook of unknown duration/);
  });

  test('malformed values are refused at construction', () => {
    expect(() => new DrainingWeb(Testing.chart(), 'web', { image: 'x', drainWaitSeconds: 1, customPreStopSeconds: -1 })).toThrow(/customPreStopSeconds must be a number of seconds >= 0/);
    expect(() => new DrainingWeb(Testing.chart(), 'web', { image: 'x', drainWaitSeconds: 1, customPreStopSeconds: {} })).toThrow(/non-empty/);
    expect(() => new DrainingWeb(Testing.chart(), 'web', { image: 'x', drainWaitSeconds: 1, customPreStopSeconds: { app: Number.NaN } })).toThrow(/container "app" must be a number/);
  });
});
