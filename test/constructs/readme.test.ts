/** The README's "Constructs" example, verbatim in spirit: its numbers must stay true. */
import { App, Chart, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDeployment, LoadBalancer, ManifestOverlay, Mesh } from '../../lib';
import { byKind, podSpec, synth } from './helpers';

test('the README example', () => {
  const chart = new Chart(new App(), 'shop', { namespace: 'shop' });
  const api = new GracefulDeployment(chart, 'api', {
    replicas: 3,
    containers: [{ name: 'api', image: 'shop/api:1', portNumber: 8080, readiness: kplus.Probe.fromHttpGet('/readyz') }],
    drainSeconds: 15,
    service: { loadBalancer: LoadBalancer.awsNlbIp() },
    mesh: Mesh.linkerd(),
  });
  expect(api.budget()).toMatchObject({ preStopSeconds: 60, drainSeconds: 15, addendSeconds: 0, gracePeriodSeconds: 80 });
  ManifestOverlay.of(api).addJsonPatch(JsonPatch.add('/spec/template/spec/os', { name: 'linux' }));
  expect(podSpec(byKind(synth(chart), 'Deployment')).os).toEqual({ name: 'linux' });
});
