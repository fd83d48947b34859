import { App, Chart, Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDeployment, Mesh } from '../../lib/constructs';

/**
 * An API in a Linkerd mesh with a native-sidecar database proxy: the Cloud SQL Auth Proxy starts
 * before the app (its startup probe gates the app's start) and is stopped only after the app has
 * drained, so shutdown-time queries still reach the database; the Linkerd proxy waits out the app's
 * preStop + drain, and the grace period covers both plus the sidecar's own drain.
 */
export function meshApi(app: App, name: string): Chart {
  const chart = new Chart(app, name, { namespace: 'orders', labels: { 'app.kubernetes.io/part-of': name } });
  new GracefulDeployment(chart, 'orders', {
    metadata: { name: 'orders' },
    replicas: 3,
    mesh: Mesh.linkerd(),
    containers: [
      {
        name: 'orders',
        image: 'ghcr.io/example/orders:2.8.0',
        ports: [{ name: 'http', number: 8080 }],
        envVariables: { DB_HOST: kplus.EnvValue.fromValue('127.0.0.1'), DB_PORT: kplus.EnvValue.fromValue('5432') },
        readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080, periodSeconds: Duration.seconds(5) }),
        liveness: kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 }),
      },
    ],
    drainSeconds: 20,
    sidecars: [
      {
        name: 'cloud-sql-proxy',
        image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1',
        args: ['--port=5432', '--health-check', '--http-address=0.0.0.0', '--http-port=9090', '--exit-zero-on-sigterm', 'example-project:europe-west1:orders'],
        ports: [{ name: 'proxy-health', number: 9090 }],
        startupProbe: { httpGet: { path: '/startup', port: 9090 }, periodSeconds: 1, failureThreshold: 60 },
        livenessProbe: { httpGet: { path: '/liveness', port: 9090 }, periodSeconds: 10, failureThreshold: 6 },
        drainSeconds: 5,
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '256Mi' } },
      },
    ],
    service: { name: 'orders', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  });
  return chart;
}
