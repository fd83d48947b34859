import { App, Chart, Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { AwsPodReadinessGateNamespace, GracefulDeployment, LoadBalancer } from '../../lib/constructs';

/**
 * An HTTP API behind an AWS Network Load Balancer in IP mode (AWS Load Balancer Controller):
 * the namespace carries the pod readiness-gate label, so each pod turns Ready only once its target
 * is healthy in the target group; the preStop delay outlasts the NLB's propagation window, and the
 * target group's deregistration delay stays within the grace period.
 */
export function httpApi(app: App, name: string): Chart {
  const chart = new Chart(app, name, { namespace: 'shop', labels: { 'app.kubernetes.io/part-of': name } });
  new AwsPodReadinessGateNamespace(chart, 'namespace', { metadata: { name: 'shop' } });
  new GracefulDeployment(chart, 'api', {
    metadata: { name: 'api' },
    replicas: 3,
    containers: [
      {
        name: 'api',
        image: 'ghcr.io/example/shop-api:1.4.2',
        ports: [{ name: 'http', number: 8080 }],
        readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080, periodSeconds: Duration.seconds(5) }),
        liveness: kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 }),
        resources: { cpu: { request: kplus.Cpu.millis(250), limit: kplus.Cpu.millis(1000) }, memory: { request: Size.mebibytes(256), limit: Size.mebibytes(512) } },
      },
    ],
    drainSeconds: 15,
    service: {
      name: 'api',
      ports: [{ name: 'http', port: 80, targetPort: 8080 }],
      loadBalancer: LoadBalancer.awsNlbIp(),
    },
  });
  return chart;
}
