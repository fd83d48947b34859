import { App, Chart, Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDeployment, RolloutProfile } from '../../lib/constructs';

/**
 * A Teleport-style fan-in tunnel proxy (gravitational/teleport#13129): every agent keeps a reverse
 * tunnel to *each* proxy replica and reaches a random one through the load balancer. The fanIn
 * profile waits, between replacements, as long as the reconnect model says agents need to find the
 * new replica with probability 0.7 (minReadySeconds), and the proxy's own `teleport wait` preStop is
 * counted in the grace period by the same parser the linter uses.
 */
export function tunnelProxy(app: App, name: string): Chart {
  const chart = new Chart(app, name, { namespace: 'teleport', labels: { 'app.kubernetes.io/part-of': name } });
  new GracefulDeployment(chart, 'proxy', {
    metadata: { name: 'teleport-proxy' },
    replicas: 3,
    rollout: RolloutProfile.fanIn({ reconnectProbability: 0.7, backoff: 'linear:2-4' }),
    containers: [
      {
        name: 'teleport',
        image: 'public.ecr.aws/gravitational/teleport-distroless:16.4.6',
        args: ['--diag-addr=0.0.0.0:3000'],
        ports: [
          { name: 'tls', number: 3080 },
          { name: 'tunnel', number: 3024 },
          { name: 'diag', number: 3000 },
        ],
        readiness: kplus.Probe.fromHttpGet('/readyz', { port: 3000, periodSeconds: Duration.seconds(5) }),
        liveness: kplus.Probe.fromHttpGet('/healthz', { port: 3000, failureThreshold: 6 }),
        // Teleport's own drain: stop accepting new tunnels, keep serving for 30 s.
        lifecycle: { preStop: kplus.Handler.fromCommand(['teleport', 'wait', 'duration', '30s']) },
      },
    ],
    drainSeconds: 20,
    service: {
      name: 'teleport-proxy',
      ports: [
        { name: 'tls', port: 443, targetPort: 3080 },
        { name: 'tunnel', port: 3024, targetPort: 3024 },
      ],
    },
  });
  return chart;
}
