/**
 * terminationSchedule: when each container stops (kubelet killContainer order: preStop, then the
 * turn for native sidecars, then max(left, 2 s) to SIGKILL) and the budget verdicts lint and explain share.
 */
import { parseAllDocuments } from 'yaml';
import { ObjectGraph } from '../../lib/model/graph';
import { parseText } from '../../lib/model/parse';
import { terminationSchedule } from '../../lib/timeline/schedule';
import { coredns, corefile } from '../helpers/coredns';

function schedule(annotations: string, podSpec: string) {
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {${annotations}}
    spec:
${podSpec}`;
  expect(parseAllDocuments(text).every((d) => d.errors.length === 0)).toBe(true);
  const graph = new ObjectGraph(parseText('web.yaml', text).objects);
  return terminationSchedule(graph, graph.workloads[0]);
}

const pod = (grace: number, app: string, sidecars: string[] = []) => `      terminationGracePeriodSeconds: ${grace}
${sidecars.length ? `      initContainers:\n${sidecars.map((s) => `      - ${s}\n`).join('')}` : ''}      containers:
      - ${app}
`;
const app = (preStop?: number) => `{name: app, image: a${preStop === undefined ? '' : `, lifecycle: {preStop: {sleep: {seconds: ${preStop}}}}`}}`;
const side = (name: string, preStop?: number) => `{name: ${name}, image: s, restartPolicy: Always${preStop === undefined ? '' : `, lifecycle: {preStop: {sleep: {seconds: ${preStop}}}}`}}`;
const linkerdClassic = (wait: number) => `linkerd.io/inject: enabled, config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "${wait}", config.linkerd.io/proxy-enable-native-sidecar: "false"`;

describe('terminationSchedule', () => {
  test('sidecars stop one at a time in reverse declaration order once the app is gone', () => {
    const s = schedule('', pod(30, app(5), [side('first'), side('second')]));
    expect(s.mains[0]).toMatchObject({ name: 'app', sigterm: 5, exit: 15, counted: true });
    expect(s.sidecars.map((x) => [x.name, x.turn, x.sigterm, x.exit, x.cut])).toEqual([
      ['second', 15, 15, 20, false],
      ['first', 20, 20, 25, false],
    ]);
    expect(s.verdicts).toEqual([]);
  });

  test('a sidecar whose turn comes after the deadline: SIGTERM at the deadline, SIGKILL 2 s later', () => {
    const s = schedule('', pod(30, app(25), [side('proxy')]));
    expect(s.sidecars[0]).toMatchObject({ noTurn: true, sigterm: 30, killedAt: 32, cut: true });
    expect(s.verdicts.map((v) => [v.ruleId, v.kind, v.severity])).toEqual([['grace-period-budget', 'budget', 'warning']]);
  });

  test('a sidecar with a drain of at most 2 s survives the deadline thanks to the 2 s minimum', () => {
    const s = schedule('kubegrace.dev/sidecar-drain-seconds: "2"', pod(30, app(25), [side('proxy')]));
    expect(s.sidecars[0]).toMatchObject({ noTurn: true, cut: false, exit: 32 });
  });

  test("a sidecar's own preStop runs from deletion and holds its SIGTERM when it outlasts the turn", () => {
    const s = schedule('', pod(60, app(5), [side('shipper', 20)]));
    expect(s.sidecars[0]).toMatchObject({ turn: 15, sigterm: 20, exit: 25 });
  });

  test('a classic Linkerd proxy (annotation) is a main container: it leaves once the app is gone, at its wait at the earliest', () => {
    const s = schedule(`${linkerdClassic(30)}, kubegrace.dev/drain-seconds: "20"`, pod(40, app(10), [side('db')]));
    expect(s.mains.find((m) => m.proxy === 'linkerd')).toMatchObject({ sigterm: 30, exit: 30, counted: true });
    expect(s.sidecars[0]).toMatchObject({ turn: 30, sigterm: 30, exit: 35, cut: false });
    expect(s.verdicts).toEqual([]);
  });

  test('the same proxy waiting 38 s cuts the sidecar: a native-sidecar-grace-budget verdict', () => {
    const s = schedule(linkerdClassic(38), pod(40, app(10), [side('db')]));
    expect(s.sidecars[0]).toMatchObject({ sigterm: 38, killedAt: 40, cut: true });
    expect(s.verdicts).toEqual([expect.objectContaining({ ruleId: 'native-sidecar-grace-budget', kind: 'sidecar-turn', container: 'linkerd-proxy', sidecar: 'db', needed: 43, recommended: 48 })]);
  });

  test('a proxy whose classic mode is only the default is placed but not counted', () => {
    const s = schedule('linkerd.io/inject: enabled, config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "38"', pod(40, app(10), [side('db')]));
    expect(s.mains.find((m) => m.proxy === 'linkerd')).toMatchObject({ counted: false });
    expect(s.verdicts).toEqual([]);
  });

  test('a main container without a hook or declared drain does not count for the verdicts', () => {
    const s = schedule('', pod(12, app(), [side('a'), side('b')]));
    expect(s.mainsDoneAt).toBe(0);
    expect(s.mainsGoneAt).toBe(10);
    expect(s.verdicts).toEqual([]);
  });

  test('an exec sleep that cannot run in a shell-less image is placed as no hook: SIGTERM at 0, not judged (review round 29)', () => {
    const failing = `{name: app, image: "gcr.io/distroless/static:nonroot", lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 60"]}}}}`;
    const s = schedule('', pod(65, failing));
    expect(s.mains[0]).toMatchObject({ name: 'app', preStopSeconds: 0, sigterm: 0, exit: 10, judged: false, hookCut: false });
    expect(s.mains[0].preStop.cannotRun).toEqual({ image: 'gcr.io/distroless/static:nonroot', seconds: 60 });
    expect(s.verdicts).toEqual([]);
    // A native sidecar's own sleep that cannot run holds nothing, and is not reported as too long.
    const sidecar = `{name: proxy, image: "gcr.io/distroless/static", restartPolicy: Always, lifecycle: {preStop: {exec: {command: [sleep, "30"]}}}}`;
    const t = schedule('', pod(30, app(5), [sidecar]));
    expect(t.sidecars[0]).toMatchObject({ preStopSeconds: 0, sigterm: 15 });
    expect(t.verdicts).toEqual([]);
  });

  test('with a declared drain the failed hook is judged as none, and the verdict carries why its preStop is 0', () => {
    const failing = `{name: app, image: "gcr.io/distroless/static:nonroot", lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 60"]}}}}`;
    const s = schedule('kubegrace.dev/drain-seconds: "80"', pod(65, failing));
    expect(s.verdicts.map((v) => [v.kind, v.preStop, v.needed, v.recommended, v.preStopCannotRun?.seconds])).toEqual([['budget', 0, 80, 85, 60]]);
  });

  describe('a program that keeps serving after SIGTERM (catalog): CoreDNS lameduck from its ConfigMap', () => {
    const of = (text: string) => {
      const graph = new ObjectGraph(parseText('coredns.yaml', text).objects);
      const w = graph.workloads.find((x) => x.kind === 'Deployment')!;
      return terminationSchedule(graph, w);
    };
    test('lameduck 10s: SIGTERM at 0, serving to 10s, drain to 20s; judged, and it fits', () => {
      const s = of(coredns());
      expect(s.mains[0]).toMatchObject({ name: 'coredns', sigterm: 0, servesAfter: 10, judged: true, exit: 20 });
      expect(s.mains[0].servesAfterWords).toBe('lameduck 10s in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)');
      expect(s.verdicts).toEqual([]);
    });
    test('lameduck 25s in the default 30s: it exits only after the lameduck and its drain, a budget warning', () => {
      const s = of(coredns({ corefile: corefile('25s') }));
      expect(s.mains[0]).toMatchObject({ servesAfter: 25, killedAt: 30, exit: 30 });
      expect(s.verdicts).toEqual([expect.objectContaining({ ruleId: 'grace-period-budget', kind: 'budget', severity: 'warning', preStop: 0, servesAfter: 25, drain: 10, needed: 35, recommended: 40 })]);
    });
    test('a preStop hook runs first: SIGTERM after it, then the lameduck', () => {
      const s = of(coredns({ corefile: corefile('15s'), lifecycle: 'lifecycle: {preStop: {sleep: {seconds: 10}}}' }));
      expect(s.mains[0]).toMatchObject({ sigterm: 10, servesAfter: 15, killedAt: 30 });
      expect(s.verdicts[0]).toMatchObject({ kind: 'budget', preStop: 10, servesAfter: 15, needed: 35, recommended: 40 });
    });
    test('the Corefile not in the input, or no lameduck: nothing assumed, as before (no hook, no declared drain: not judged)', () => {
      for (const text of [coredns({ corefile: false }), coredns({ corefile: corefile() })]) {
        const s = of(text);
        expect(s.mains[0]).toMatchObject({ servesAfter: 0, judged: false, exit: 10 });
        expect(s.verdicts).toEqual([]);
      }
    });
    test("Traefik's requestAcceptGraceTimeout on every entry point counts the same way", () => {
      const s = schedule(
        '',
        pod(30, '{name: traefik, image: "docker.io/traefik:v3.1", args: ["--entryPoints.web.address=:8000", "--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=25s"]}'),
      );
      expect(s.mains[0]).toMatchObject({ servesAfter: 25, judged: true });
      expect(s.verdicts).toEqual([expect.objectContaining({ kind: 'budget', needed: 35 })]);
    });
    // traefik pkg/server/server_entrypoint_tcp.go: every entry point shuts down at once, each sleeping
    // its requestAcceptGraceTimeout and then giving its requests graceTimeOut; the process exits after the last.
    const traefik = (grace: number, args: string[], annotations = '') =>
      schedule(annotations, pod(grace, `{name: traefik, image: "docker.io/traefik:v3.5.0", args: [${['--entryPoints.traefik.address=:8080/tcp', '--entryPoints.traefik.transport.lifeCycle.graceTimeOut=300s', ...args].map((a) => `"${a}"`).join(', ')}]}`));
    const ep = (name: string, accept: string, grace?: string) => [`--entryPoints.${name}.address=:8000/tcp`, `--entryPoints.${name}.transport.lifeCycle.requestAcceptGraceTimeout=${accept}`, ...(grace ? [`--entryPoints.${name}.transport.lifeCycle.graceTimeOut=${grace}`] : [])];
    test("Traefik's graceTimeOut is its drain: 55s + 30s needs 85s, not 55s + the 10s default (the `traefik` entry point is not traffic)", () => {
      const s = traefik(60, [...ep('web', '55s', '30s'), ...ep('websecure', '55s', '30s')]);
      expect(s.mains[0]).toMatchObject({ servesAfter: 55, appDrain: 30, killedAt: 60 });
      expect(s.verdicts).toEqual([expect.objectContaining({ kind: 'budget', servesAfter: 55, drain: 30, needed: 85, recommended: 90 })]);
    });
    test('a short graceTimeOut fits where the default drain would not: 55s + 2s in 60s', () => {
      const s = traefik(60, ep('web', '55s', '2s'));
      expect(s.mains[0]).toMatchObject({ servesAfter: 55, appDrain: 2, exit: 57 });
      expect(s.verdicts).toEqual([]);
    });
    test('entry points of different times: the process ends with the last one (40 + 30 = 70, after 50 + 2), counted from the first to stop accepting', () => {
      const s = traefik(60, [...ep('web', '40s', '30s'), ...ep('websecure', '50s', '2s')]);
      expect(s.mains[0]).toMatchObject({ servesAfter: 40, appDrain: 30 });
      expect(s.verdicts).toEqual([expect.objectContaining({ servesAfter: 40, drain: 30, needed: 70 })]);
    });
    test('no graceTimeOut: its default, 10s; a declared kubegrace.dev/drain-seconds wins over the setting', () => {
      expect(traefik(60, ep('web', '55s')).verdicts).toEqual([expect.objectContaining({ drain: 10, needed: 65 })]);
      expect(traefik(60, ep('web', '55s', '30s'), '"kubegrace.dev/drain-seconds": "5"').verdicts).toEqual([]);
    });
    test('a graceTimeOut that is no duration: the default drain', () => {
      expect(traefik(60, ep('web', '55s', 'soon')).mains[0]).toMatchObject({ appDrain: 10 });
    });
  });
});

describe('terminationSchedule: a preStop that signals the app before it sleeps (review round 33, report p39)', () => {
  // The Airflow chart's pgbouncer: `killall -INT pgbouncer && sleep 120`, no grace period set.
  const pgbouncer = (script: string, grace = 30) => pod(grace, `{name: pgbouncer, image: p, command: [pgbouncer, -u, nobody, /etc/pgbouncer/pgbouncer.ini], lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "${script}"]}}}}`);
  test('the stop is at 0s and the sleep is the drain window: a budget warning, not a hook that outlives the grace period', () => {
    const s = schedule('', pgbouncer('killall -INT pgbouncer && sleep 120'));
    expect(s.mains[0]).toMatchObject({ sigterm: 0, hookCut: false, appDrain: 120, exit: 30, killedAt: 30 });
    expect(s.verdicts.map((v) => [v.kind, v.severity, v.preStop, v.drain, v.needed, v.recommended, v.stopFirst])).toEqual([
      ['budget', 'warning', 0, 120, 120, 125, { stop: 'killall -INT pgbouncer', wait: 120 }],
    ]);
  });
  test('a declared drain longer than the sleep wins; a grace period that holds the sleep gives no verdict', () => {
    expect(schedule('kubegrace.dev/drain-seconds: "150"', pgbouncer('killall -INT pgbouncer && sleep 120', 200)).mains[0]).toMatchObject({ appDrain: 150 });
    expect(schedule('', pgbouncer('killall -INT pgbouncer && sleep 120', 150)).verdicts).toEqual([]);
  });
  test('a sleep before the signal keeps the hook a delay (lower bound: that sleep); HUP reloads and keeps the trailing sleep as the delay', () => {
    expect(schedule('', pgbouncer('sleep 10 && killall -INT pgbouncer && sleep 110')).mains[0]).toMatchObject({ sigterm: 10, appDrain: 10 });
    expect(schedule('', pgbouncer('kill -HUP 1; sleep 40')).verdicts.map((v) => v.kind)).toEqual(['hook-exceeds-grace']);
  });
});
