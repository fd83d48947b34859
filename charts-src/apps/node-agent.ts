import { App, Chart, Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDaemonSet } from '../../lib/constructs';

/**
 * A node agent (OpenTelemetry collector) that receives telemetry from the pods on its own node
 * through a Service with internalTrafficPolicy Local. Surge rollouts start the new agent beside
 * the old one, so a node is never without a receiver; the old one keeps serving through its
 * preStop delay while the endpoint change propagates.
 */
export function nodeAgent(app: App, name: string): Chart {
  const chart = new Chart(app, name, { namespace: 'observability', labels: { 'app.kubernetes.io/part-of': name } });
  new GracefulDaemonSet(chart, 'agent', {
    metadata: { name: 'otel-agent' },
    maxSurge: 1,
    containers: [
      {
        name: 'otel-collector',
        image: 'otel/opentelemetry-collector-contrib:0.114.0',
        args: ['--config=/conf/agent.yaml'],
        ports: [
          { name: 'otlp-grpc', number: 4317 },
          { name: 'otlp-http', number: 4318 },
          { name: 'health', number: 13133 },
        ],
        readiness: kplus.Probe.fromHttpGet('/', { port: 13133, periodSeconds: Duration.seconds(5) }),
        liveness: kplus.Probe.fromHttpGet('/', { port: 13133, failureThreshold: 6 }),
      },
    ],
    drainSeconds: 10,
    service: {
      name: 'otel-agent',
      ports: [
        { name: 'otlp-grpc', port: 4317, targetPort: 4317 },
        { name: 'otlp-http', port: 4318, targetPort: 4318 },
      ],
    },
  });
  return chart;
}
