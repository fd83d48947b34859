import { parseGoDuration, parseSeconds, parseSleepArg } from '../../lib/timeline/duration';
import { classifyPreStop } from '../../lib/timeline/prestop';
import { drainSeconds, recommendedGrace } from '../../lib/timeline/budget';

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
