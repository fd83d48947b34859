import { parseGoDuration, parseSeconds, parseSleepArg } from '../../lib/timeline/duration';
import { classifyPreStop, hookRuns, parsePreStopHint, podPreStopDelay, PRESTOP_SECONDS_HINT, runningPreStopDelay } from '../../lib/timeline/prestop';
import { DEFAULT_SHELL_LESS_IMAGE_PATTERNS } from '../../lib/timeline/shell-less';
import { drainSeconds, recommendedGrace } from '../../lib/timeline/budget';
import { JsonObject } from '../../lib/model/types';

describe('preStop classification', () => {
  test.each([
    [{ sleep: { seconds: 10 } }, 'sleep', 10],
    [{ exec: { command: ['sleep', '15'] } }, 'exec-sleep', 15],
    [{ exec: { command: ['/bin/sleep', '5'] } }, 'exec-sleep', 5],
    [{ exec: { command: ['/usr/bin/sleep', '30s'] } }, 'exec-sleep', 30],
    [{ exec: { command: ['sleep', '1m'] } }, 'exec-sleep', 60],
    [{ exec: { command: ['sh', '-c', 'sleep 20'] } }, 'exec-sleep', 20],
    [{ exec: { command: ['/bin/sh', '-c', 'exec sleep 7;'] } }, 'exec-sleep', 7],
    [{ exec: { command: ['/bin/bash', '-c', 'sleep 5 && nginx -s quit'] } }, 'exec-sleep-then', 5],
    // (Review round 12: Gloo's gracefulShutdown hook: the hook lasts at least the trailing sleep.)
    [{ exec: { command: ['/bin/sh', '-c', 'wget --post-data "" -O /dev/null 127.0.0.1:19000/healthcheck/fail; sleep 25'] } }, 'exec-then-sleep', 25],
    [{ exec: { command: ['sh', '-c', 'curl -X POST localhost:9901/drain_listeners && sleep 30s;'] } }, 'exec-then-sleep', 30],
    [{ exec: { command: ['sh', '-c', 'kill -TERM 1; sleep forever'] } }, 'exec-other', undefined],
    // (Review round 13: a catalog program that stops accepting at once, then a sleep: the program's
    // delay, 0 s; the sleep only delays SIGTERM. nginx's QUIT and HAProxy's soft-stop close the listeners.)
    [{ exec: { command: ['/bin/sh', '-c', 'nginx -s quit; sleep 10'] } }, 'exec-known', 0],
    [{ exec: { command: ['sh', '-c', '/usr/sbin/nginx -s quit && sleep 5s;'] } }, 'exec-known', 0],
    [{ exec: { command: ['sh', '-c', 'nginx -s quit; while pgrep -x nginx; do sleep 1; done'] } }, 'exec-known', 0],
    [{ exec: { command: ['/bin/sh', '-c', 'kill -USR1 $(pidof haproxy); sleep 15'] } }, 'exec-known', 0],
    // (A sleep before the program is the delay it needs.)
    [{ exec: { command: ['sh', '-c', 'sleep 10; nginx -s quit; sleep 5'] } }, 'exec-sleep-then', 10],
    // (Review round 30: a newline ends a command like ';', and a script's sleep argument may be
    // quoted. Seldon Core v2's Envoy hook, SeldonConfig seldon-envoy:)
    [{ exec: { command: ['/bin/sh', '-c', 'echo -ne "POST /healthcheck/fail HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n" > /dev/tcp/localhost/9901\nsleep \'30\'\n'] } }, 'exec-then-sleep', 30],
    [{ exec: { command: ['sh', '-c', 'sleep "20"'] } }, 'exec-sleep', 20],
    [{ exec: { command: ['sh', '-c', "exec sleep '15s';"] } }, 'exec-sleep', 15],
    [{ exec: { command: ['sh', '-c', 'curl -X POST localhost:9901/drain_listeners &&\n  sleep 25'] } }, 'exec-then-sleep', 25],
    [{ exec: { command: ['sh', '-c', 'touch /tmp/draining\r\n\n  sleep 12'] } }, 'exec-then-sleep', 12],
    [{ exec: { command: ['sh', '-c', '/app/drain &\nsleep 12'] } }, 'exec-then-sleep', 12],
    // (A sleep followed by more work stays a lower bound, on its own line too.)
    [{ exec: { command: ['sh', '-c', "sleep '10'\n/app/drain"] } }, 'exec-sleep-then', 10],
    // Near misses: a sleep that runs only when the command fails, a continued line (arguments of
    // the command before), `sleep` and its argument on two lines, a newline inside quotes, a
    // half-quoted argument, and an exec without a shell (sleep gets the quotes).
    [{ exec: { command: ['sh', '-c', 'curl -X POST localhost:9901/drain_listeners ||\nsleep 25'] } }, 'exec-other', undefined],
    [{ exec: { command: ['sh', '-c', 'curl -X POST localhost:9901/drain_listeners | \nsleep 25'] } }, 'exec-other', undefined],
    [{ exec: { command: ['sh', '-c', 'echo draining \\\nsleep 25'] } }, 'exec-other', undefined],
    [{ exec: { command: ['sh', '-c', 'sleep\n25'] } }, 'exec-other', undefined],
    [{ exec: { command: ['sh', '-c', 'echo "done\nsleep 25"'] } }, 'exec-other', undefined],
    [{ exec: { command: ['sh', '-c', "echo bye; sleep '25"] } }, 'exec-other', undefined],
    [{ exec: { command: ['sh', '-c', 'echo bye; sleep "25\''] } }, 'exec-other', undefined],
    [{ exec: { command: ['sleep', "'25'"] } }, 'exec-other', undefined],
    [{ exec: { command: ['teleport', 'wait', 'duration', '30s'] } }, 'exec-wait', 30],
    [{ exec: { command: ['/usr/local/bin/teleport', 'wait', 'duration', '1m30s'] } }, 'exec-wait', 90],
    [{ exec: { command: ['/wait-shutdown'] } }, 'exec-other', undefined],
    [{ exec: { command: ['sleep', 'forever'] } }, 'exec-other', undefined],
    [{ httpGet: { path: '/drain', port: 80 } }, 'httpGet', undefined],
    [{ tcpSocket: { port: 80 } }, 'tcpSocket', undefined],
    [undefined, 'none', undefined],
    [{ sleep: {} }, 'invalid', undefined],
  ])('%j -> %s %s', (handler, kind, seconds) => {
    const r = classifyPreStop(handler as never);
    expect(r.kind).toBe(kind);
    expect(r.seconds).toBe(seconds);
  });
});

describe('durations', () => {
  test('Go durations', () => {
    expect(parseGoDuration('1m30s')).toBe(90);
    expect(parseGoDuration('500ms')).toBe(0.5);
    expect(parseGoDuration('2h')).toBe(7200);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('5')).toBeUndefined();
    expect(parseGoDuration('5x')).toBeUndefined();
  });
  test('sleep arguments and hint seconds', () => {
    expect(parseSleepArg('2.5')).toBe(2.5);
    expect(parseSleepArg('1d')).toBe(86400);
    expect(parseSleepArg('-1')).toBeUndefined();
    expect(parseSeconds('20')).toBe(20);
    expect(parseSeconds('20s')).toBe(20);
    expect(parseSeconds('soon')).toBeUndefined();
  });
  test('drain and recommended grace', () => {
    expect(drainSeconds({ annotations: {} })).toBe(10);
    expect(drainSeconds({ annotations: { 'kubegrace.dev/drain-seconds': '25' } })).toBe(25);
    expect(recommendedGrace(10, 25)).toBe(40);
    expect(recommendedGrace(10, 25, 20)).toBe(60);
  });
});

describe('kubegrace.dev/prestop-seconds hint', () => {
  const c = (name: string, preStop: unknown) => ({ name, raw: { name, lifecycle: { preStop } } as never });
  const drain = { exec: { command: ['/bin/drain', '--wait', '25'] } };
  const at = (v: string) => ({ [PRESTOP_SECONDS_HINT]: v });

  test('parses a bare value, a Go duration and name=value entries', () => {
    expect(parsePreStopHint('25')).toEqual({ all: 25, byName: {} });
    expect(parsePreStopHint('app=1m, worker=40')).toEqual({ byName: { app: 60, worker: 40 } });
    expect(parsePreStopHint('30s,app=5')).toEqual({ all: 30, byName: { app: 5 } });
    expect(parsePreStopHint(undefined)).toEqual({ byName: {} });
    const bad = parsePreStopHint('soon, =5, app=x, 10');
    expect(bad.all).toBe(10);
    expect(bad.problem).toContain('cannot read "soon", "=5", "app=x"');
  });

  test('a custom program gets the declared duration; the per-container entry wins over the bare value', () => {
    expect(podPreStopDelay(c('app', drain), at('25'))).toEqual({ kind: 'exec-other', seconds: 25, command: ['/bin/drain', '--wait', '25'], hinted: true });
    expect(podPreStopDelay(c('app', drain), at('40,app=25')).seconds).toBe(25);
    expect(podPreStopDelay(c('worker', drain), at('app=25')).seconds).toBeUndefined();
    expect(podPreStopDelay(c('app', drain), undefined)).toEqual({ kind: 'exec-other', command: ['/bin/drain', '--wait', '25'] });
  });

  test('always wins for a program (wait command, sleep-then-more, httpGet); never for a bare sleep, tcpSocket or no hook', () => {
    expect(podPreStopDelay(c('a', { exec: { command: ['teleport', 'wait', 'duration', '30s'] } }), at('12')).seconds).toBe(12);
    expect(podPreStopDelay(c('a', { exec: { command: ['sh', '-c', 'sleep 5 && /drain'] } }), at('20')).seconds).toBe(20);
    expect(podPreStopDelay(c('a', { httpGet: { path: '/drain', port: 80 } }), at('20'))).toMatchObject({ kind: 'httpGet', seconds: 20, hinted: true });
    expect(podPreStopDelay(c('a', { sleep: { seconds: 10 } }), at('20'))).toEqual({ kind: 'sleep', seconds: 10 });
    expect(podPreStopDelay(c('a', { exec: { command: ['sleep', '10'] } }), at('20')).seconds).toBe(10);
    expect(podPreStopDelay(c('a', { tcpSocket: { port: 80 } }), at('20')).seconds).toBeUndefined();
    expect(podPreStopDelay({ name: 'a', raw: { name: 'a' } }, at('20'))).toEqual({ kind: 'none' });
  });
});

describe('known preStop programs of the catalog (exec-known)', () => {
  const ingress = (args: string[]) => ({ name: 'controller', image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1@sha256:ab', args, lifecycle: { preStop: { exec: { command: ['/wait-shutdown'] } } } });
  test('ingress-nginx /wait-shutdown: the delay is --shutdown-grace-period, default 0 (no propagation delay)', () => {
    expect(podPreStopDelay({ raw: ingress(['/nginx-ingress-controller']), name: 'controller' }, {})).toEqual({ kind: 'exec-known', seconds: 0, command: ['/wait-shutdown'], program: 'ingress-nginx-wait-shutdown', bound: 'exact' });
    expect(podPreStopDelay({ raw: ingress(['/nginx-ingress-controller', '--shutdown-grace-period=40']), name: 'controller' }, {}).seconds).toBe(40);
  });
  test('a malformed flag leaves the delay unknown, and the prestop-seconds hint then declares it', () => {
    const raw = ingress(['--shutdown-grace-period=later']);
    expect(podPreStopDelay({ raw, name: 'controller' }, {})).toEqual({ kind: 'exec-known', command: ['/wait-shutdown'], program: 'ingress-nginx-wait-shutdown', bound: 'exact' });
    expect(podPreStopDelay({ raw, name: 'controller' }, { [PRESTOP_SECONDS_HINT]: '25' }).seconds).toBe(25);
  });
  test('the prestop-seconds hint wins over the catalog', () => {
    expect(podPreStopDelay({ raw: ingress([]), name: 'controller' }, { [PRESTOP_SECONDS_HINT]: 'controller=20' })).toMatchObject({ kind: 'exec-known', seconds: 20, hinted: true });
  });
  test('the same command in an image the catalog does not list stays exec-other', () => {
    expect(podPreStopDelay({ raw: { ...ingress([]), image: 'example/app:1' }, name: 'controller' }, {}).kind).toBe('exec-other');
  });
  test('nginx -s quit: stops accepting at once; classified from the handler alone too', () => {
    expect(classifyPreStop({ exec: { command: ['/usr/sbin/nginx', '-s', 'quit'] } })).toMatchObject({ kind: 'exec-known', seconds: 0, program: 'nginx-quit' });
    expect(classifyPreStop({ exec: { command: ['sh', '-c', 'sleep 5 && nginx -s quit'] } }).kind).toBe('exec-sleep-then');
  });
  test('HAProxy soft-stop (kill -USR1 $(pidof haproxy)): stops accepting at once; a sleep before it is that sleep', () => {
    const chart = ['/bin/sh', '-c', 'kill -USR1 $(pidof haproxy); while killall -0 haproxy; do sleep 1; done'];
    expect(classifyPreStop({ exec: { command: chart } })).toMatchObject({ kind: 'exec-known', seconds: 0, program: 'haproxy-soft-stop', bound: 'exact' });
    expect(classifyPreStop({ exec: { command: ['sh', '-c', 'sleep 10 && kill -USR1 $(pidof haproxy)'] } })).toMatchObject({ kind: 'exec-sleep-then', seconds: 10 });
  });
  test('a script that signals the app before it sleeps: no delay (the app stops at the signal), the sleep is the drain window (review round 33, report p39)', () => {
    const sh = (script: string) => classifyPreStop({ exec: { command: ['/bin/sh', '-c', script] } });
    // The Airflow chart's pgbouncer hook: SIGINT is pgbouncer's safe shutdown, which closes its listeners at once.
    expect(sh('killall -INT pgbouncer && sleep 120')).toMatchObject({ kind: 'exec-stop-then-sleep', seconds: 0, waitSeconds: 120, stop: 'killall -INT pgbouncer' });
    expect(sh('kill -SIGTERM 1; sleep 30')).toMatchObject({ kind: 'exec-stop-then-sleep', seconds: 0, waitSeconds: 30, stop: 'kill -SIGTERM 1' });
    expect(sh('echo bye; kill -s TERM $(cat /run/app.pid)\nsleep 20')).toMatchObject({ kind: 'exec-stop-then-sleep', waitSeconds: 20, stop: 'kill -s TERM $(cat /run/app.pid)' });
    expect(sh('kill 1 || true; sleep 7')).toMatchObject({ kind: 'exec-stop-then-sleep', waitSeconds: 7, stop: 'kill 1' });
    expect(sh('pkill -x -INT pgbouncer; sleep 5')).toMatchObject({ kind: 'exec-stop-then-sleep', waitSeconds: 5 });
    // A sleep first stays that sleep; signals that reload, probe or dump (QUIT: a JVM's thread dump) keep the trailing sleep as the delay.
    expect(sh('sleep 10 && killall -INT pgbouncer && sleep 110')).toMatchObject({ kind: 'exec-sleep-then', seconds: 10 });
    expect(sh('echo a; sleep 5; kill 1; sleep 20')).toMatchObject({ kind: 'exec-then-sleep', seconds: 20 });
    for (const s of ['kill -HUP 1; sleep 30', 'kill -USR2 1; sleep 30', 'kill -QUIT 1 && sleep 30', 'kill -0 1; sleep 30', 'kill -l; sleep 30', 'pkill -xf worker; sleep 30']) {
      expect(sh(s)).toMatchObject({ kind: 'exec-then-sleep', seconds: 30 });
    }
    // The prestop-seconds hint declares the hook's duration: the signal-first reading no longer applies.
    const hinted = podPreStopDelay({ raw: { lifecycle: { preStop: { exec: { command: ['sh', '-c', 'kill 1; sleep 30'] } } } }, name: 'app' }, { [PRESTOP_SECONDS_HINT]: '12' });
    expect(hinted).toMatchObject({ kind: 'exec-stop-then-sleep', seconds: 12, hinted: true });
    expect(hinted.waitSeconds).toBeUndefined();
  });
  test('kong quit: keeps accepting for --wait seconds (default 0), read from the hook', () => {
    expect(classifyPreStop({ exec: { command: ['kong', 'quit', '--wait=15'] } })).toMatchObject({ kind: 'exec-known', seconds: 15, program: 'kong-quit', bound: 'exact' });
    expect(classifyPreStop({ exec: { command: ['kong', 'quit'] } })).toMatchObject({ kind: 'exec-known', seconds: 0, program: 'kong-quit' });
    expect(classifyPreStop({ exec: { command: ['kong', 'quit', '-w', '15'] } }).kind).toBe('exec-other');
  });
  test('contour envoy shutdown: at least --drain-delay + --check-delay (defaults 0s + 0s from 1.22.0, 0s + 60s before)', () => {
    const c = (cmd: string[], tag = 'v1.30.0') => ({ image: `ghcr.io/projectcontour/contour:${tag}`, lifecycle: { preStop: { exec: { command: cmd } } } });
    expect(podPreStopDelay({ raw: c(['/bin/contour', 'envoy', 'shutdown']), name: 'shutdown-manager' }, {})).toMatchObject({ kind: 'exec-known', seconds: 0, bound: 'at-least', program: 'contour-envoy-shutdown' });
    expect(podPreStopDelay({ raw: c(['/bin/contour', 'envoy', 'shutdown', '--drain-delay', '30s']), name: 'shutdown-manager' }, {}).seconds).toBe(30);
    expect(podPreStopDelay({ raw: c(['/bin/contour', 'envoy', 'shutdown', '--check-delay', '5s']), name: 'shutdown-manager' }, {}).seconds).toBe(5);
    expect(podPreStopDelay({ raw: c(['/bin/contour', 'envoy', 'shutdown'], 'v1.21.1'), name: 'shutdown-manager' }, {})).toMatchObject({ kind: 'exec-known', seconds: 60, bound: 'at-least', program: 'contour-envoy-shutdown-before-1-22' });
    expect(podPreStopDelay({ raw: c(['/bin/contour', 'envoy', 'shutdown', '--check-delay', '5s'], 'v1.21.1'), name: 'shutdown-manager' }, {}).seconds).toBe(5);
  });
  test('teleport wait stays a wait pattern (exec-wait)', () => {
    expect(classifyPreStop({ exec: { command: ['teleport', 'wait', 'duration', '30s'] } }).kind).toBe('exec-wait');
  });
});

/**
 * Contour's pattern: the shutdown-manager's hook drains Envoy; Envoy's own hook (httpGet /shutdown
 * on the shutdown-manager's port 8090) answers only when that hook has finished (catalog awaitedBy).
 */
describe('an httpGet hook that waits for another container hook (catalog awaitedBy)', () => {
  const manager = (args: string[] = [], check?: string, tag = 'v1.21.3') => ({
    name: 'shutdown-manager',
    raw: { name: 'shutdown-manager', image: `ghcr.io/projectcontour/contour:${tag}`, command: ['/bin/contour'], args: ['envoy', 'shutdown-manager', ...args], lifecycle: { preStop: { exec: { command: ['/bin/contour', 'envoy', 'shutdown', ...(check ? [`--check-delay=${check}`] : [])] } } } },
  });
  const envoy = (httpGet: JsonObject = { path: '/shutdown', port: 8090 }, ports: JsonObject[] = []): { name: string; raw: JsonObject } => ({ name: 'envoy', raw: { name: 'envoy', image: 'envoyproxy/envoy:v1.31.0', ports, lifecycle: { preStop: { httpGet } } } });
  const delay = (e = envoy(), m = manager(), annotations: Record<string, string> = {}) => podPreStopDelay(e, annotations, undefined, [m, e]);

  test('lasts as long as the shutdown-manager hook: at least 60s by default before Contour 1.22, its --check-delay when set', () => {
    expect(delay()).toEqual({ kind: 'httpGet', awaits: 'shutdown-manager', program: 'contour-envoy-shutdown-before-1-22', seconds: 60, bound: 'at-least' });
    expect(delay(envoy(), manager([], '20s')).seconds).toBe(20);
  });

  test('from Contour 1.22.0 the shutdown-manager hook lasts at least 0s by default (--check-delay 0s)', () => {
    expect(delay(envoy(), manager([], undefined, 'v1.33.0'))).toEqual({ kind: 'httpGet', awaits: 'shutdown-manager', program: 'contour-envoy-shutdown', seconds: 0, bound: 'at-least' });
    expect(delay(envoy(), manager([], '20s', 'v1.33.0')).seconds).toBe(20);
  });

  test('without the pod it is an httpGet of unknown duration, as before', () => {
    expect(podPreStopDelay(envoy(), {})).toEqual({ kind: 'httpGet' });
  });

  test('only the path and port the program serves, on the pod itself: --serve-port moves it, a named port of the container resolves', () => {
    expect(delay(envoy({ path: '/shutdown', port: 8090 }), manager(['--serve-port=9001'])).awaits).toBeUndefined();
    expect(delay(envoy({ path: '/shutdown', port: 9001 }), manager(['--serve-port=9001'])).awaits).toBe('shutdown-manager');
    expect(delay(envoy({ path: '/shutdown', port: 'admin' }, [{ name: 'admin', containerPort: 8090 }])).awaits).toBe('shutdown-manager');
    expect(delay(envoy({ path: '/healthz', port: 8090 })).awaits).toBeUndefined();
    expect(delay(envoy({ path: '/shutdown', port: 8090, host: 'other.example' })).awaits).toBeUndefined();
  });

  test('a container whose hook runs no such program is not waited for', () => {
    const other = { name: 'sidecar', raw: { name: 'sidecar', image: 'example/x:1', lifecycle: { preStop: { exec: { command: ['/bin/contour', 'envoy', 'shutdown'] } } } } };
    expect(podPreStopDelay(envoy(), {}, undefined, [other, envoy()])).toEqual({ kind: 'httpGet' });
  });

  test('the prestop-seconds hint: the waiting hook own entry wins; the shutdown-manager entry carries over', () => {
    expect(delay(envoy(), manager(), { [PRESTOP_SECONDS_HINT]: 'envoy=90' })).toMatchObject({ seconds: 90, hinted: true });
    expect(delay(envoy(), manager(), { [PRESTOP_SECONDS_HINT]: 'shutdown-manager=120' })).toMatchObject({ awaits: 'shutdown-manager', seconds: 120 });
  });
});

describe('runningPreStopDelay: an exec sleep that cannot run in the image (review round 29)', () => {
  const c = (image: string, command: string[]) => ({ name: 'app', raw: { name: 'app', image, lifecycle: { preStop: { exec: { command } } } } as JsonObject });
  test('in a shell-less image the hook fails at once: 0s, and cannotRun says what it was meant to give', () => {
    const d = podPreStopDelay(c('quay.io/oauth2-proxy/oauth2-proxy:v7.15.3', ['sh', '-c', 'sleep 60']), {}, undefined, undefined, DEFAULT_SHELL_LESS_IMAGE_PATTERNS);
    expect(d).toMatchObject({ kind: 'exec-sleep', seconds: 0, cannotRun: { image: 'quay.io/oauth2-proxy/oauth2-proxy:v7.15.3', seconds: 60 } });
    expect(hookRuns(d)).toBe(false);
  });
  test('without patterns (rules other than the budget), in an image with a shell, or for another hook: unchanged', () => {
    expect(podPreStopDelay(c('quay.io/oauth2-proxy/oauth2-proxy:v7.15.3', ['sleep', '60']), {})).toMatchObject({ kind: 'exec-sleep', seconds: 60 });
    expect(podPreStopDelay(c('quay.io/oauth2-proxy/oauth2-proxy:v7.15.3-alpine', ['sleep', '60']), {}, undefined, undefined, DEFAULT_SHELL_LESS_IMAGE_PATTERNS)).toMatchObject({ kind: 'exec-sleep', seconds: 60 });
    // The image's own program runs: not judged here.
    const own = podPreStopDelay(c('gcr.io/distroless/static', ['/app', 'drain']), {}, undefined, undefined, DEFAULT_SHELL_LESS_IMAGE_PATTERNS);
    expect(own.kind).toBe('exec-other');
    expect(own.cannotRun).toBeUndefined();
    expect(runningPreStopDelay({ kind: 'sleep', seconds: 10 }, 'gcr.io/distroless/static', DEFAULT_SHELL_LESS_IMAGE_PATTERNS)).toEqual({ kind: 'sleep', seconds: 10 });
  });
  test('custom patterns replace the defaults', () => {
    expect(runningPreStopDelay({ kind: 'exec-sleep', seconds: 5, command: ['sleep', '5'] }, 'reg/minimal/app:1', ['/minimal/']).seconds).toBe(0);
    expect(runningPreStopDelay({ kind: 'exec-sleep', seconds: 5, command: ['sleep', '5'] }, 'gcr.io/distroless/static', ['/minimal/']).seconds).toBe(5);
  });
});
