import { App, Chart, ChartProps, Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { GracefulDeployment, KUBERNETES_VERSION_CONTEXT, LoadBalancer, ManifestOverlay, RolloutProfile } from 'kubegrace/constructs';
import { PlatformService } from './lib/platform-service';

/**
 * The storefront: three services on the company's PlatformService construct.
 * - web: behind an AWS ALB with IP targets; the pod readiness gate of its TargetGroupBinding is
 *   written into the pod template, so a new pod counts as Ready only once the ALB sees it healthy;
 * - checkout: its own drain program as the preStop hook, with the duration declared;
 * - cart-events: a long-lived-connection (WebSocket) service.
 * Every pod carries the log-shipper native sidecar.
 */
export class Storefront extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, { namespace: 'storefront', ...props });

    new PlatformService(this, 'web', {
      metadata: { name: 'web' },
      team: 'storefront',
      image: 'registry.example.com/storefront/web:2.14.0',
      service: { name: 'web', ports: [{ name: 'http', port: 80, targetPort: 8080 }], loadBalancer: LoadBalancer.awsAlbIp({ targetGroupBinding: 'storefront-web' }) },
    });

    const checkout = new PlatformService(this, 'checkout', {
      metadata: { name: 'checkout' },
      team: 'payments',
      image: 'registry.example.com/storefront/checkout:7.2.1',
      // Stops taking new sessions, waits up to 25 s for open payment sessions to finish.
      drainHook: { command: ['/app/bin/drain', '--wait', '25s'], seconds: 25 },
      service: { name: 'checkout', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    // Company-wide post-processing of the final manifest still works on a kubegrace construct.
    ManifestOverlay.of(checkout).addTransform((m) => {
      const meta = m.metadata as { annotations?: Record<string, string> };
      meta.annotations = { ...meta.annotations, 'example.com/pci-scope': 'true' };
    });

    new PlatformService(this, 'cart-events', {
      metadata: { name: 'cart-events' },
      team: 'storefront',
      image: 'registry.example.com/storefront/cart-events:1.3.0',
      rollout: RolloutProfile.longLived(),
      drainSeconds: 20,
      service: { name: 'cart-events', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
  }
}

/**
 * Deliberately broken workloads, synthesized only when STOREFRONT_BROKEN is set, to show what the
 * synth gate does with them:
 * - `lint`: a team overrides the grace period below its preStop delay; the construct keeps an
 *   explicit grace period, and the kubegrace validation plugin fails `cdk8s synth`;
 * - `hook`: a preStop program without a declared duration; the construct refuses to guess.
 */
export class Broken extends Chart {
  constructor(scope: Construct, id: string, kind: string) {
    super(scope, id, { namespace: 'storefront' });
    if (kind === 'lint') {
      new GracefulDeployment(this, 'legacy-search', {
        metadata: { name: 'legacy-search' },
        containers: [{ name: 'app', image: 'registry.example.com/storefront/search:0.9.0', ports: [{ name: 'http', number: 8080 }], readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080 }) }],
        preStopSeconds: 20,
        terminationGracePeriod: Duration.seconds(15),
        service: { name: 'legacy-search', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      });
    } else if (kind === 'hook') {
      new GracefulDeployment(this, 'recommendations', {
        metadata: { name: 'recommendations' },
        containers: [
          {
            name: 'app',
            image: 'registry.example.com/storefront/recommendations:4.0.0',
            ports: [{ name: 'http', number: 8080 }],
            readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080 }),
            lifecycle: { preStop: kplus.Handler.fromCommand(['/app/bin/drain', '--wait', '25s']) },
          },
        ],
        service: { name: 'recommendations', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      });
    } else {
      throw new Error(`STOREFRONT_BROKEN must be "lint" or "hook" (got "${kind}")`);
    }
  }
}

const app = new App({ outputFileExtension: '.yaml' });
// The cluster version the constructs target (as the plugin's kubernetesVersion in cdk8s.yaml).
app.node.setContext(KUBERNETES_VERSION_CONTEXT, '1.33');
new Storefront(app, 'storefront');
if (process.env.STOREFRONT_BROKEN) new Broken(app, 'broken', process.env.STOREFRONT_BROKEN);
app.synth();
