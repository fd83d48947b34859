import { ApiObject, JsonPatch, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ManifestOverlay } from '../../lib/constructs';
import { JsonObject } from '../../lib/model/types';
import { byKind, container, synth } from './helpers';

const SLEEP = { sleep: { seconds: 10 } };

function plainDeployment() {
  const chart = Testing.chart();
  const d = new kplus.Deployment(chart, 'web', { containers: [{ name: 'app', image: 'x', portNumber: 8080 }] });
  d.addInitContainer({ name: 'proxy', image: 'y' });
  return { chart, d };
}

describe('why the overlay exists: cdk8s-plus-27 filters JSON patches through the 1.27 schema', () => {
  test('ApiObject.addJsonPatch loses the sleep action and restartPolicy on an init container', () => {
    const { chart, d } = plainDeployment();
    ApiObject.of(d).addJsonPatch(
      JsonPatch.add('/spec/template/spec/containers/0/lifecycle', { preStop: SLEEP }),
      JsonPatch.add('/spec/template/spec/initContainers/0/restartPolicy', 'Always'),
    );
    const dep = byKind(synth(chart), 'Deployment');
    // The filter keeps the lifecycle object but drops the unknown handler, and drops restartPolicy.
    expect(container(dep, 'app').lifecycle).toEqual({ preStop: {} });
    expect(container(dep, 'proxy', 'initContainers').restartPolicy).toBeUndefined();
  });

  test('the same edits through ManifestOverlay reach the manifest', () => {
    const { chart, d } = plainDeployment();
    ManifestOverlay.of(d).addJsonPatch(
      JsonPatch.add('/spec/template/spec/containers/0/lifecycle', { preStop: SLEEP }),
      JsonPatch.add('/spec/template/spec/initContainers/0/restartPolicy', 'Always'),
    );
    const dep = byKind(synth(chart), 'Deployment');
    expect(container(dep, 'app').lifecycle).toEqual({ preStop: SLEEP });
    expect(container(dep, 'proxy', 'initContainers').restartPolicy).toBe('Always');
  });
});

describe('ManifestOverlay', () => {
  test('one overlay per API object, whether reached from the L2 or the L1', () => {
    const { d } = plainDeployment();
    expect(ManifestOverlay.of(d)).toBe(ManifestOverlay.of(ApiObject.of(d)));
    expect(ManifestOverlay.of(d).apiObject).toBe(ApiObject.of(d));
  });

  test('transforms and patches run in order, after the L1 JSON patches', () => {
    const { chart, d } = plainDeployment();
    const seen: unknown[] = [];
    ApiObject.of(d).addJsonPatch(JsonPatch.add('/spec/revisionHistoryLimit', 1));
    ManifestOverlay.of(d).addTransform((m) => {
      seen.push((m.spec as JsonObject).revisionHistoryLimit);
      (m.spec as JsonObject).revisionHistoryLimit = 2;
    });
    ManifestOverlay.of(d).addJsonPatch(JsonPatch.replace('/spec/revisionHistoryLimit', 3));
    expect((byKind(synth(chart), 'Deployment').spec as JsonObject).revisionHistoryLimit).toBe(3);
    expect(seen).toEqual([1]);
  });

  test('runs on every synthesis, on a fresh manifest', () => {
    const { chart, d } = plainDeployment();
    let n = 0;
    ManifestOverlay.of(d).addTransform((m) => {
      n++;
      (m.spec as JsonObject).minReadySeconds = ((m.spec as JsonObject).minReadySeconds as number) + 1;
    });
    expect((byKind(synth(chart), 'Deployment').spec as JsonObject).minReadySeconds).toBe(1);
    expect((byKind(synth(chart), 'Deployment').spec as JsonObject).minReadySeconds).toBe(1);
    expect(n).toBe(2);
  });

  test('keeps the cdk8s key order: apiVersion, kind, metadata, then sorted keys', () => {
    const { chart, d } = plainDeployment();
    ManifestOverlay.of(d).addTransform((m) => {
      (m.spec as JsonObject).aaa = { z: 1, a: 2 };
    });
    const dep = byKind(synth(chart), 'Deployment');
    expect(Object.keys(dep).slice(0, 3)).toEqual(['apiVersion', 'kind', 'metadata']);
    const keys = Object.keys(dep.spec as JsonObject);
    expect(keys).toEqual([...keys].sort());
    expect(Object.keys((dep.spec as JsonObject).aaa as JsonObject)).toEqual(['a', 'z']);
  });

  test('a root replacement patch is carried over', () => {
    const chart = Testing.chart();
    const cm = new kplus.ConfigMap(chart, 'cm', { data: { a: '1' } });
    ManifestOverlay.of(cm).addJsonPatch(JsonPatch.replace('', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }));
    expect(synth(chart)[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
  });

  test('works on any API object, including plain cdk8s ones', () => {
    const chart = Testing.chart();
    const o = new ApiObject(chart, 'o', { apiVersion: 'v1', kind: 'ConfigMap' });
    ManifestOverlay.of(o).addJsonPatch(JsonPatch.add('/data', { k: 'v' }));
    expect(synth(chart)[0].data).toEqual({ k: 'v' });
  });
});
