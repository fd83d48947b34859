/**
 * Two copies of kubegrace in one process, as when a company construct library brings its own
 * (npm deduplicates the peer dependencies, so cdk8s, cdk8s-plus-27 and constructs are shared):
 * nothing relies on `instanceof` or module-level state across the copies (issue 13).
 */
import * as cdk8s from 'cdk8s';
import { Testing, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import * as constructs from 'constructs';
import * as A from '../../lib/constructs';
import { JsonObject } from '../../lib/model/types';
import { byKind, container, podSpec } from './helpers';

type Constructs = typeof import('../../lib/constructs');
type Plus = typeof import('cdk8s-plus-27');
let B!: Constructs;
let plusB!: Plus;
jest.isolateModules(() => {
  // The peers resolve to the one copy the app has; kubegrace's own modules load again.
  jest.doMock('cdk8s', () => cdk8s);
  jest.doMock('cdk8s-plus-27', () => kplus);
  jest.doMock('constructs', () => constructs);
  B = require('../../lib/constructs') as Constructs;
  plusB = require('cdk8s-plus-27') as Plus;
});

test('the second copy really is a second copy of kubegrace, on the same peers', () => {
  expect(B.GracefulDeployment).not.toBe(A.GracefulDeployment);
  expect(B.ManifestOverlay).not.toBe(A.ManifestOverlay);
  expect(plusB.Deployment).toBe(kplus.Deployment);
});

test('an overlay reached from either copy is the same one; transforms of both apply once, in order', () => {
  const chart = Testing.chart();
  const d = new A.GracefulDeployment(chart, 'web', { containers: [{ name: 'app', image: 'web:1', portNumber: 8080, readiness: kplus.Probe.fromHttpGet('/readyz') }] });
  const seen: string[] = [];
  B.ManifestOverlay.of(d).addTransform((m) => {
    seen.push('B');
    (m.metadata as JsonObject).annotations = { ...((m.metadata as JsonObject).annotations as JsonObject), 'example.com/owner': 'team-b' };
  });
  A.ManifestOverlay.of(d).addTransform(() => seen.push('A'));
  expect(B.ManifestOverlay.of(d)).toBe(A.ManifestOverlay.of(d));
  const m = byKind(Testing.synth(chart) as JsonObject[], 'Deployment');
  // Every toJson runs the overlay (synthesis and validation): always B then A, never twice in a row.
  expect(seen.join('')).toMatch(/^(BA)+$/);
  expect((m.metadata as JsonObject).annotations).toMatchObject({ 'example.com/owner': 'team-b' });
  // kubegrace's own overlay (preStop sleep action, grace) ran too, once.
  expect((container(m, 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 10 } });
  expect(podSpec(m).terminationGracePeriodSeconds).toBe(25);
});

test('a construct of the second copy in a chart of the first synthesizes with its budget, sidecar and hint', () => {
  const chart = Testing.chart();
  const d = new B.GracefulDeployment(chart, 'web', {
    containers: [{ name: 'app', image: 'web:1', portNumber: 8080, readiness: plusB.Probe.fromHttpGet('/readyz'), lifecycle: { preStop: plusB.Handler.fromCommand(['/bin/drain', '--wait', '25']) } }],
    customPreStopSeconds: 25,
    sidecars: [{ name: 'logs', image: 'fluent-bit:3' }],
  });
  const all = Testing.synth(chart) as JsonObject[];
  const m = byKind(all, 'Deployment');
  expect(podSpec(m).terminationGracePeriodSeconds).toBe(45);
  expect(d.budget().gracePeriodSeconds).toBe(45);
  expect(Yaml.stringify(...all)).toContain('kubegrace.dev/prestop-seconds: "25"');
  expect(((podSpec(m).initContainers as JsonObject[])[0] as JsonObject).restartPolicy).toBe('Always');
});
