import { ApiObject, App, Chart, Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDeployment, LoadBalancer } from '../../lib/constructs';

/**
 * A storefront behind an existing AWS Application Load Balancer target group, in IP mode: a
 * TargetGroupBinding (AWS Load Balancer Controller) registers the pod IPs, and each pod carries the
 * binding's readiness gate (`target-health.elbv2.k8s.aws/storefront`), so it turns Ready only once its
 * target is healthy in the ALB and a rollout never removes the last healthy target. The preStop delay
 * outlasts the ALB's propagation window, and the deregistration delay stays within the grace period.
 */
export function storefront(app: App, name: string): Chart {
  const chart = new Chart(app, name, { namespace: 'web', labels: { 'app.kubernetes.io/part-of': name } });
  new GracefulDeployment(chart, 'storefront', {
    metadata: { name: 'storefront' },
    replicas: 2,
    containers: [
      {
        name: 'storefront',
        image: 'ghcr.io/example/storefront:3.2.0',
        ports: [{ name: 'http', number: 8080 }],
        readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080, periodSeconds: Duration.seconds(5) }),
        liveness: kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 }),
      },
    ],
    drainSeconds: 10,
    service: {
      name: 'storefront',
      ports: [{ name: 'http', port: 80, targetPort: 8080 }],
      loadBalancer: LoadBalancer.awsAlbIp({ targetGroupBinding: 'storefront' }),
    },
  });
  new ApiObject(chart, 'target-group-binding', {
    apiVersion: 'elbv2.k8s.aws/v1beta1',
    kind: 'TargetGroupBinding',
    metadata: { name: 'storefront' },
    spec: {
      serviceRef: { name: 'storefront', port: 80 },
      targetGroupARN: 'arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/storefront/0123456789abcdef',
      targetType: 'ip',
    },
  });
  return chart;
}
