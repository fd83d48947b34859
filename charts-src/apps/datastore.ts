import { App, Chart, Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulStatefulSet } from '../../lib/constructs';

/**
 * A three-member etcd-style data store: a headless peer Service that publishes members before they
 * are Ready (they must find each other to form a quorum), a separate client Service that only
 * sends traffic to Ready members, one volume per member, Parallel pod management, and a
 * PodDisruptionBudget that keeps a recovering member (IfHealthyBudget).
 */
export function datastore(app: App, name: string): Chart {
  const chart = new Chart(app, name, { namespace: 'data', labels: { 'app.kubernetes.io/part-of': name } });
  new GracefulStatefulSet(chart, 'store', {
    metadata: { name: 'store' },
    replicas: 3,
    containers: [
      {
        name: 'etcd',
        image: 'quay.io/coreos/etcd:v3.5.17',
        command: ['/usr/local/bin/etcd'],
        args: ['--data-dir=/var/lib/etcd', '--listen-client-urls=http://0.0.0.0:2379', '--listen-peer-urls=http://0.0.0.0:2380', '--listen-metrics-urls=http://0.0.0.0:2381'],
        ports: [
          { name: 'client', number: 2379 },
          { name: 'peer', number: 2380 },
          { name: 'metrics', number: 2381 },
        ],
        readiness: kplus.Probe.fromHttpGet('/readyz', { port: 2381, periodSeconds: Duration.seconds(5) }),
        liveness: kplus.Probe.fromHttpGet('/livez', { port: 2381, failureThreshold: 6 }),
        startup: kplus.Probe.fromHttpGet('/readyz', { port: 2381, failureThreshold: 30 }),
      },
    ],
    drainSeconds: 15,
    peerService: { name: 'store-peers' },
    clientService: { name: 'store', ports: [{ name: 'client', port: 2379, targetPort: 2379 }] },
    volumeClaimTemplates: [{ name: 'data', storage: Size.gibibytes(10), mountPath: '/var/lib/etcd' }],
  });
  return chart;
}
