import { ApiObject, Chart, Duration, JsonPatch, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  AwsPodReadinessGateNamespace,
  GracefulDeployment,
  GracefulDeploymentProps,
  KUBERNETES_VERSION_CONTEXT,
  LoadBalancer,
  ManifestOverlay,
  Mesh,
  ReadinessGate,
  RolloutProfile,
} from '../../lib/constructs';
import { HINT } from '../../lib/model/graph';
import { JsonObject } from '../../lib/model/types';
import { recommendedGrace } from '../../lib/timeline/budget';
import { estimateReconnect, parseBackoff } from '../../lib/timeline/reconnect';
import { byKind, container, describeFindings, lintChart, podSpec, synth } from './helpers';

const READY = kplus.Probe.fromHttpGet('/readyz', { port: 8080 });

function web(chart: Chart, props: Partial<GracefulDeploymentProps> = {}, id = 'web'): GracefulDeployment {
  return new GracefulDeployment(chart, id, {
    containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080, readiness: READY }],
    ...props,
  });
}

function deploymentOf(chart: Chart): JsonObject {
  return byKind(synth(chart), 'Deployment');
}

describe('GracefulDeployment defaults', () => {
  const chart = Testing.chart();
  const d = web(chart);
  const all = synth(chart);
  const dep = byKind(all, 'Deployment');
  const spec = dep.spec as JsonObject;

  test('2 replicas, surge-first rolling update', () => {
    expect(spec.replicas).toBe(2);
    expect(spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
  });

  test('minReadySeconds 0, progressDeadlineSeconds 600', () => {
    expect(spec.minReadySeconds).toBe(0);
    expect(spec.progressDeadlineSeconds).toBe(600);
  });

  test('preStop sleep action of 10 s on the container that serves a port (newest version)', () => {
    expect((container(dep, 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 10 } });
    expect(d.preStopSeconds).toBe(10);
    expect(d.kubernetesVersion.toString()).toBe('1.37');
  });

  test('grace period = preStop 10 + drain 10 + margin 5, via recommendedGrace', () => {
    expect(podSpec(dep).terminationGracePeriodSeconds).toBe(25);
    expect(recommendedGrace(10, 10)).toBe(25);
    expect(d.budget()).toEqual({
      preStopSeconds: 10,
      drainSeconds: 10,
      addendSeconds: 0,
      addends: [],
      marginSeconds: 5,
      gracePeriodSeconds: 25,
      recommendedGracePeriodSeconds: 25,
      computed: true,
    });
  });

  test('the drain time is written as the kubegrace.dev/drain-seconds hint', () => {
    expect((dep.metadata as JsonObject).annotations).toEqual({ [HINT.drainSeconds]: '10' });
  });

  test('a PodDisruptionBudget: maxUnavailable 1, AlwaysAllow, the Deployment selector', () => {
    const pdb = byKind(all, 'PodDisruptionBudget');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.spec).toEqual({
      maxUnavailable: 1,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
      selector: { matchLabels: (spec.selector as JsonObject).matchLabels },
    });
    expect(d.disruptionBudget?.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });

  test('topology spread over zones and nodes, ScheduleAnyway, matchLabelKeys pod-template-hash', () => {
    const labels = (spec.selector as JsonObject).matchLabels;
    expect(podSpec(dep).topologySpreadConstraints).toEqual(
      ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'].map((topologyKey) => ({
        labelSelector: { matchLabels: labels },
        matchLabelKeys: ['pod-template-hash'],
        maxSkew: 1,
        topologyKey,
        whenUnsatisfiable: 'ScheduleAnyway',
      })),
    );
  });

  test('no Service, no mesh annotations, no readiness gates, no init containers', () => {
    expect(all.map((m) => m.kind)).toEqual(['Deployment', 'PodDisruptionBudget']);
    expect((spec.template as JsonObject).metadata).toEqual({ labels: expect.any(Object) });
    expect(podSpec(dep).readinessGates).toBeUndefined();
    expect(podSpec(dep).initContainers).toBeUndefined();
    expect(d.service).toBeUndefined();
  });

  test('a container without ports gets no preStop hook; the grace period still covers its drain', () => {
    const c = Testing.chart();
    web(c, { containers: [{ name: 'worker', image: 'example/worker:1' }] });
    const m = deploymentOf(c);
    expect(container(m, 'worker').lifecycle).toBeUndefined();
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(15);
  });

  test('lints clean under the strict policy', () => {
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });
});

describe('GracefulDeployment props', () => {
  test('replicas 1: no PodDisruptionBudget and no spreading', () => {
    const chart = Testing.chart();
    const d = web(chart, { replicas: 1 });
    const all = synth(chart);
    expect(all.map((m) => m.kind)).toEqual(['Deployment']);
    expect(podSpec(byKind(all, 'Deployment')).topologySpreadConstraints).toBeUndefined();
    expect(d.disruptionBudget).toBeUndefined();
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('preStopSeconds sets the delay and the grace period follows', () => {
    const chart = Testing.chart();
    web(chart, { preStopSeconds: 15 });
    const m = deploymentOf(chart);
    expect((container(m, 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 15 } });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(30);
  });

  test('preStopSeconds 0 writes no hook', () => {
    const chart = Testing.chart();
    web(chart, { preStopSeconds: 0 });
    const m = deploymentOf(chart);
    expect(container(m, 'app').lifecycle).toBeUndefined();
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(15);
  });

  test('a fractional preStopSeconds is refused at synthesis', () => {
    const chart = Testing.chart();
    web(chart, { preStopSeconds: 2.5 });
    expect(() => synth(chart)).toThrow(/whole number of seconds/);
  });

  test('drainSeconds is the hint and part of the grace period', () => {
    const chart = Testing.chart();
    const d = web(chart, { drainSeconds: 20 });
    const m = deploymentOf(chart);
    expect((m.metadata as JsonObject).annotations).toEqual({ [HINT.drainSeconds]: '20' });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(35);
    expect(d.drainSeconds).toBe(20);
    expect(() => web(Testing.chart(), { drainSeconds: -1 })).toThrow(/drainSeconds must be >= 0/);
  });

  test('an explicit terminationGracePeriod is kept (escape hatch), and budget() says so', () => {
    const chart = Testing.chart();
    const d = web(chart, { terminationGracePeriod: Duration.seconds(90) });
    expect(podSpec(deploymentOf(chart)).terminationGracePeriodSeconds).toBe(90);
    expect(d.budget()).toMatchObject({ gracePeriodSeconds: 90, recommendedGracePeriodSeconds: 25, computed: false });
  });

  test("a container's own preStop hook is kept and counted by the timeline parser (teleport wait)", () => {
    const chart = Testing.chart();
    const d = web(chart, {
      containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080, readiness: READY, lifecycle: { preStop: kplus.Handler.fromCommand(['teleport', 'wait', 'duration', '30s']) } }],
    });
    const m = deploymentOf(chart);
    expect((container(m, 'app').lifecycle as JsonObject).preStop).toEqual({ exec: { command: ['teleport', 'wait', 'duration', '30s'] } });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(45);
    expect(d.budget().preStopSeconds).toBe(30);
  });

  test('the grace period takes the longest container budget', () => {
    const chart = Testing.chart();
    web(chart, {
      containers: [
        { name: 'app', image: 'example/web:1', portNumber: 8080, readiness: READY },
        { name: 'slow', image: 'example/slow:1', portNumber: 9090, lifecycle: { preStop: kplus.Handler.fromCommand(['sh', '-c', 'sleep 40']) } },
      ],
    });
    expect(podSpec(deploymentOf(chart)).terminationGracePeriodSeconds).toBe(55);
  });

  test('containers added after construction get the preStop delay too', () => {
    const chart = Testing.chart();
    const d = web(chart);
    d.addContainer({ name: 'admin', image: 'example/admin:1', portNumber: 9000 });
    expect((container(deploymentOf(chart), 'admin').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 10 } });
  });

  describe('rollout profiles', () => {
    test('fanIn: minReadySeconds from the reconnect model for the replica count, hints, deadline above it', () => {
      const chart = Testing.chart();
      const d = web(chart, { replicas: 3, rollout: RolloutProfile.fanIn({ reconnectProbability: 0.7, backoff: 'linear:2-4' }), service: {} });
      const m = deploymentOf(chart);
      const expected = estimateReconnect(3, 0.7, parseBackoff('linear:2-4')).suggestedMinReadySeconds;
      expect(expected).toBe(20);
      expect((m.spec as JsonObject).minReadySeconds).toBe(expected);
      expect((m.spec as JsonObject).progressDeadlineSeconds).toBe(620);
      expect((m.spec as JsonObject).strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
      expect((m.metadata as JsonObject).annotations).toEqual({
        [HINT.drainSeconds]: '10',
        [HINT.connectionPattern]: 'fan-in',
        [HINT.reconnectProbability]: '0.7',
        [HINT.reconnectBackoff]: 'linear:2-4',
      });
      expect(d.reconnectEstimate?.tMax).toBeCloseTo(19.5, 0);
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('fanIn defaults: P 0.7, linear:2-4; exponential backoff uses ceil(T_max) like linear', () => {
      const chart = Testing.chart();
      web(chart, { replicas: 5, rollout: RolloutProfile.fanIn({ backoff: 'exponential:1-30' }), service: {} });
      const m = deploymentOf(chart);
      expect((m.spec as JsonObject).minReadySeconds).toBe(estimateReconnect(5, 0.7, parseBackoff('exponential:1-30')).suggestedMinReadySeconds);
      expect(describeFindings(lintChart(chart))).toEqual([]);
      expect(RolloutProfile.fanIn().reconnectEstimate(3)).toEqual(estimateReconnect(3));
    });

    test('fanIn refuses a probability outside (0, 1) and a malformed backoff', () => {
      expect(() => RolloutProfile.fanIn({ reconnectProbability: 1 })).toThrow(/between 0 and 1/);
      expect(() => RolloutProfile.fanIn({ backoff: 'linear' })).toThrow(/invalid backoff/);
    });

    test('longLived: minReadySeconds 10 and the long-lived hint', () => {
      const chart = Testing.chart();
      web(chart, { rollout: RolloutProfile.longLived(), service: {} });
      const m = deploymentOf(chart);
      expect((m.spec as JsonObject).minReadySeconds).toBe(10);
      expect(((m.metadata as JsonObject).annotations as JsonObject)[HINT.connectionPattern]).toBe('long-lived');
      expect(describeFindings(lintChart(chart))).toEqual([]);
      expect(() => RolloutProfile.longLived({ minReadySeconds: 0 })).toThrow(/> 0/);
    });

    test('exclusiveVolume: Recreate with one replica; refused with several or behind a load balancer', () => {
      const chart = Testing.chart();
      const d = web(chart, { replicas: 1, rollout: RolloutProfile.exclusiveVolume(), service: {} });
      const m = deploymentOf(chart);
      expect((m.spec as JsonObject).strategy).toEqual({ type: 'Recreate' });
      expect(d.rollout.kind).toBe('exclusive-volume');
      // The profile says why Recreate on one replica is right (recreate-strategy cannot see the claim's
      // access mode when its PVC is not in the chart): a suppression with its reason.
      const annotations = (m.metadata as JsonObject).annotations as JsonObject;
      expect(annotations['kubegrace.dev/ignore']).toBe('recreate-strategy');
      expect(annotations['kubegrace.dev/ignore-reason']).toMatch(/^RolloutProfile\.exclusiveVolume\(\): the pod mounts a ReadWriteOnce volume/);
      expect(describeFindings(lintChart(chart))).toEqual([]);
      expect(lintChart(chart).length).toBe(0);
      // Rules the user already ignores stay ignored.
      const mine = Testing.chart();
      web(mine, { replicas: 1, rollout: RolloutProfile.exclusiveVolume(), service: {}, metadata: { annotations: { 'kubegrace.dev/ignore': 'probe-port', 'kubegrace.dev/ignore-reason': 'mine' } } });
      const mineAnn = (deploymentOf(mine).metadata as JsonObject).annotations as JsonObject;
      expect([mineAnn['kubegrace.dev/ignore'], mineAnn['kubegrace.dev/ignore-reason']]).toEqual(['probe-port,recreate-strategy', expect.stringMatching(/^mine; RolloutProfile/)]);
      expect(() => web(Testing.chart(), { replicas: 2, rollout: RolloutProfile.exclusiveVolume() })).toThrow(/one replica/);
      expect(() => web(Testing.chart(), { replicas: 1, rollout: RolloutProfile.exclusiveVolume(), service: { loadBalancer: LoadBalancer.awsNlbIp() } })).toThrow(/load balancer/);
    });

    test('explicit minReady and progressDeadline win', () => {
      const chart = Testing.chart();
      const d = web(chart, { minReady: Duration.seconds(30), progressDeadline: Duration.seconds(900) });
      const spec = deploymentOf(chart).spec as JsonObject;
      expect(spec.minReadySeconds).toBe(30);
      expect(spec.progressDeadlineSeconds).toBe(900);
      expect(d.minReadySeconds).toBe(30);
    });
  });

  describe('service', () => {
    test('a ClusterIP Service on every container port, with name, annotations and labels', () => {
      const chart = Testing.chart();
      const d = web(chart, { service: { name: 'web', annotations: { team: 'shop' }, labels: { tier: 'front' } } });
      const svc = byKind(synth(chart), 'Service');
      expect(svc.metadata).toEqual({ name: 'web', annotations: { team: 'shop' }, labels: { tier: 'front' } });
      expect((svc.spec as JsonObject).type).toBe('ClusterIP');
      expect((svc.spec as JsonObject).ports).toEqual([{ port: 8080, targetPort: 8080 }]);
      expect((svc.spec as JsonObject).selector).toEqual((deploymentOf(chart).spec as JsonObject).selector && ((deploymentOf(chart).spec as JsonObject).selector as JsonObject).matchLabels);
      expect(d.service).toBeDefined();
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('explicit ports and type', () => {
      const chart = Testing.chart();
      web(chart, { service: { ports: [{ name: 'http', port: 80, targetPort: 8080 }], type: kplus.ServiceType.NODE_PORT } });
      const spec = byKind(synth(chart), 'Service').spec as JsonObject;
      expect(spec.type).toBe('NodePort');
      expect(spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 8080 }]);
    });

    test('a container behind the Service without a readiness probe fails validation', () => {
      const chart = Testing.chart();
      new GracefulDeployment(chart, 'web', { containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080 }], service: {} });
      expect(() => synth(chart)).toThrow(/container "app" receives Service traffic but has no readiness probe/);
    });

    test('so does one behind a cdk8s-plus exposeViaService', () => {
      const chart = Testing.chart();
      const d = new GracefulDeployment(chart, 'web', { containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080 }] });
      expect(() => synth(chart)).not.toThrow();
      d.exposeViaService();
      expect(() => synth(chart)).toThrow(/no readiness probe/);
    });

    test('no container port and no service.ports: refused', () => {
      expect(() => web(Testing.chart(), { containers: [{ name: 'worker', image: 'example/worker:1' }], service: {} })).toThrow(/no container declares a port/);
    });

    test('several unnamed ports: refused', () => {
      expect(() => web(Testing.chart(), { containers: [{ name: 'app', image: 'x', ports: [{ number: 1 }, { number: 2 }], readiness: READY }], service: {} })).toThrow(/needs a name on each/);
    });
  });

  describe('load balancers', () => {
    test('AWS NLB in IP mode: LoadBalancer Service, annotations, preStop = propagation window, deregistration delay within grace, minReady 10', () => {
      const chart = Testing.chart();
      const d = web(chart, { replicas: 3, service: { loadBalancer: LoadBalancer.awsNlbIp() } });
      const all = synth(chart);
      const dep = byKind(all, 'Deployment');
      const svc = byKind(all, 'Service');
      expect((svc.spec as JsonObject).type).toBe('LoadBalancer');
      expect((svc.metadata as JsonObject).annotations).toEqual({
        'service.beta.kubernetes.io/aws-load-balancer-type': 'external',
        'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip',
        'service.beta.kubernetes.io/aws-load-balancer-scheme': 'internet-facing',
        'service.beta.kubernetes.io/aws-load-balancer-target-group-attributes': 'deregistration_delay.timeout_seconds=75',
      });
      expect((container(dep, 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 60 } });
      expect(podSpec(dep).terminationGracePeriodSeconds).toBe(75);
      expect((dep.spec as JsonObject).minReadySeconds).toBe(10);
      expect(d.budget().gracePeriodSeconds).toBe(75);
      expect(podSpec(dep).readinessGates).toBeUndefined();
    });

    test('behind an AWS LB, the pods need the readiness gate: the AwsPodReadinessGateNamespace label or an explicit gate', () => {
      const bare = Testing.chart();
      web(bare, { replicas: 3, service: { loadBalancer: LoadBalancer.awsNlbIp() } });
      expect(lintChart(bare).map((f) => f.ruleId)).toContain('lb-readiness-gate');

      const app = Testing.app();
      const labelled = new Chart(app, 'shop', { namespace: 'shop' });
      const ns = new AwsPodReadinessGateNamespace(labelled, 'ns', { metadata: { name: 'shop' } });
      web(labelled, { replicas: 3, service: { loadBalancer: LoadBalancer.awsNlbIp() } });
      expect(byKind(synth(labelled), 'Namespace').metadata).toEqual({ name: 'shop', labels: { 'elbv2.k8s.aws/pod-readiness-gate-inject': 'enabled' } });
      expect(ns.name).toBe('shop');
      expect(describeFindings(lintChart(labelled))).toEqual([]);

      const gated = Testing.chart();
      web(gated, { replicas: 3, service: { loadBalancer: LoadBalancer.awsAlbIp({ targetGroupBinding: 'web' }) } });
      expect(lintChart(gated).map((f) => f.ruleId)).not.toContain('lb-readiness-gate');
    });

    test('AWS NLB with a TargetGroupBinding: the readiness gate is written; scheme and delay options', () => {
      const chart = Testing.chart();
      web(chart, { service: { loadBalancer: LoadBalancer.awsNlbIp({ targetGroupBinding: 'web-tgb', scheme: 'internal', deregistrationDelaySeconds: 60, propagationSeconds: 90 }) } });
      const all = synth(chart);
      const dep = byKind(all, 'Deployment');
      expect(podSpec(dep).readinessGates).toEqual([{ conditionType: 'target-health.elbv2.k8s.aws/web-tgb' }]);
      const ann = (byKind(all, 'Service').metadata as JsonObject).annotations as JsonObject;
      expect(ann['service.beta.kubernetes.io/aws-load-balancer-scheme']).toBe('internal');
      expect(ann['service.beta.kubernetes.io/aws-load-balancer-target-group-attributes']).toBe('deregistration_delay.timeout_seconds=60');
      expect((container(dep, 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 90 } });
    });

    test('AWS ALB in IP mode: ClusterIP Service with the ALB target annotations, preStop 30', () => {
      const chart = Testing.chart();
      web(chart, { service: { loadBalancer: LoadBalancer.awsAlbIp() } });
      const all = synth(chart);
      const svc = byKind(all, 'Service');
      expect((svc.spec as JsonObject).type).toBe('ClusterIP');
      expect((svc.metadata as JsonObject).annotations).toEqual({
        'alb.ingress.kubernetes.io/target-type': 'ip',
        'alb.ingress.kubernetes.io/target-group-attributes': 'deregistration_delay.timeout_seconds=45',
      });
      expect((container(byKind(all, 'Deployment'), 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 30 } });
    });

    test('GKE NEG: the NEG annotation and the NEG readiness gate', () => {
      const chart = Testing.chart();
      web(chart, { service: { loadBalancer: LoadBalancer.gkeNeg() } });
      const all = synth(chart);
      expect(((byKind(all, 'Service').metadata as JsonObject).annotations as JsonObject)['cloud.google.com/neg']).toBe('{"ingress": true}');
      expect(podSpec(byKind(all, 'Deployment')).readinessGates).toEqual([{ conditionType: 'cloud.google.com/load-balancer-neg-ready' }]);
      expect(describeFindings(lintChart(chart))).toEqual([]);
      expect(() => LoadBalancer.gkeNeg({ targetGroupBinding: 'x' })).toThrow(/AWS option/);
    });

    test('an explicit preStopSeconds beats the propagation window', () => {
      const chart = Testing.chart();
      web(chart, { preStopSeconds: 45, service: { loadBalancer: LoadBalancer.awsAlbIp() } });
      expect((container(deploymentOf(chart), 'app').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 45 } });
    });
  });

  describe('readiness gates', () => {
    test('readinessGates prop and addReadinessGate, without duplicates', () => {
      const chart = Testing.chart();
      const d = web(chart, { readinessGates: [ReadinessGate.custom('example.com/warm'), ReadinessGate.awsLoadBalancer('tgb')] });
      d.addReadinessGate(ReadinessGate.custom('example.com/warm'));
      expect(podSpec(deploymentOf(chart)).readinessGates).toEqual([{ conditionType: 'example.com/warm' }, { conditionType: 'target-health.elbv2.k8s.aws/tgb' }]);
      expect(() => ReadinessGate.awsLoadBalancer('')).toThrow(/required/);
    });
  });

  describe('native sidecars', () => {
    const proxy = { name: 'proxy', image: 'example/proxy:1', ports: [{ name: 'proxy', number: 15001 }, { name: 'admin', number: 15021 }], readinessProbe: { httpGet: { path: '/ready', port: 'admin' } } };

    test('an init container with restartPolicy Always and probes, before other init containers; its drain adds to the grace', () => {
      const chart = Testing.chart();
      const d = web(chart, { sidecars: [proxy], initContainers: [{ name: 'migrate', image: 'example/migrate:1' }] });
      const m = deploymentOf(chart);
      const init = podSpec(m).initContainers as JsonObject[];
      expect(init.map((c) => c.name)).toEqual(['proxy', 'migrate']);
      expect(init[0]).toEqual({
        name: 'proxy',
        image: 'example/proxy:1',
        restartPolicy: 'Always',
        ports: [
          { containerPort: 15001, name: 'proxy' },
          { containerPort: 15021, name: 'admin' },
        ],
        startupProbe: { tcpSocket: { port: 'proxy' } },
        readinessProbe: { httpGet: { path: '/ready', port: 'admin' } },
        securityContext: { allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: true, runAsNonRoot: true },
      });
      expect(podSpec(m).terminationGracePeriodSeconds).toBe(30);
      expect(d.budget().addends).toEqual([{ seconds: 5, source: 'native sidecar "proxy" drain' }]);
      expect(((m.metadata as JsonObject).annotations as JsonObject)['kubegrace.dev/sidecar-drain-seconds']).toBe('proxy=5');
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('addSidecar, drainSeconds, command, args, env, resources, securityContext', () => {
      const chart = Testing.chart();
      const d = web(chart);
      d.addSidecar({
        name: 'shipper',
        image: 'example/shipper:1',
        command: ['/ship'],
        args: ['--fast'],
        env: { LEVEL: 'info' },
        drainSeconds: 12,
        resources: { requests: { cpu: '50m' } },
        securityContext: { runAsUser: 1000 },
      });
      const m = deploymentOf(chart);
      const s = container(m, 'shipper', 'initContainers');
      expect(s).toEqual({
        name: 'shipper',
        image: 'example/shipper:1',
        command: ['/ship'],
        args: ['--fast'],
        env: [{ name: 'LEVEL', value: 'info' }],
        restartPolicy: 'Always',
        resources: { requests: { cpu: '50m' } },
        securityContext: { runAsUser: 1000 },
      });
      expect(podSpec(m).terminationGracePeriodSeconds).toBe(37);
      expect(((m.metadata as JsonObject).annotations as JsonObject)['kubegrace.dev/sidecar-drain-seconds']).toBe('shipper=12');
    });

    test('a sidecar whose port a Service targets needs a readiness probe', () => {
      const chart = Testing.chart();
      web(chart, { sidecars: [{ name: 'tls', image: 'example/tls:1', ports: [{ number: 8443 }] }], service: { ports: [{ port: 443, targetPort: 8443 }] } });
      expect(() => synth(chart)).toThrow(/container "tls" receives Service traffic but has no readiness probe.*give the sidecar a readinessProbe/);
    });

    test('duplicate sidecar names, names taken by containers, probes without one handler: refused', () => {
      const d = web(Testing.chart(), { sidecars: [proxy] });
      expect(() => d.addSidecar(proxy)).toThrow(/already exists/);
      const chart = Testing.chart();
      web(chart, { sidecars: [{ ...proxy, name: 'app' }] });
      expect(() => synth(chart)).toThrow(/has the name of another container/);
      expect(() => web(Testing.chart(), { sidecars: [{ name: 'x', image: 'x', readinessProbe: {} }] })).toThrow(/exactly one handler/);
      expect(() => web(Testing.chart(), { sidecars: [{ name: 'x', image: 'x', drainSeconds: -1 }] })).toThrow(/drainSeconds must be >= 0/);
    });
  });

  describe('mesh', () => {
    test('Linkerd classic: inject, native off, proxy waits preStop + drain; grace covers it', () => {
      const chart = Testing.chart();
      web(chart, { mesh: Mesh.linkerd(), drainSeconds: 20, service: {} });
      const m = deploymentOf(chart);
      expect(((m.spec as JsonObject).template as JsonObject).metadata).toMatchObject({
        annotations: {
          'linkerd.io/inject': 'enabled',
          'config.linkerd.io/proxy-enable-native-sidecar': 'false',
          'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '30',
        },
      });
      expect(podSpec(m).terminationGracePeriodSeconds).toBe(35);
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('Linkerd native sidecar: no wait annotation; the drain of the injected proxy is added to the grace', () => {
      const chart = Testing.chart();
      const d = web(chart, { mesh: Mesh.linkerd({ nativeSidecar: true }), service: {} });
      const m = deploymentOf(chart);
      expect((((m.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations).toEqual({
        'linkerd.io/inject': 'enabled',
        'config.linkerd.io/proxy-enable-native-sidecar': 'true',
      });
      expect(podSpec(m).terminationGracePeriodSeconds).toBe(30);
      expect(d.budget().addends).toEqual([{ seconds: 5, source: 'native sidecar "linkerd-proxy" drain (injected)' }]);
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('Linkerd without inject: no inject annotation (injection configured elsewhere, e.g. on the namespace)', () => {
      const chart = Testing.chart();
      web(chart, { mesh: Mesh.linkerd({ inject: false }), service: {} });
      const ann = (((deploymentOf(chart).spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject;
      expect(ann['linkerd.io/inject']).toBeUndefined();
      expect(ann['config.alpha.linkerd.io/proxy-wait-before-exit-seconds']).toBe('20');
    });

    test('Linkerd with long-lived clients: shutdown-grace-period fits in what the grace period leaves', () => {
      for (const nativeSidecar of [false, true]) {
        const chart = Testing.chart();
        web(chart, { mesh: Mesh.linkerd({ nativeSidecar }), rollout: RolloutProfile.longLived(), service: {} });
        const m = deploymentOf(chart);
        const ann = (((m.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject;
        expect(ann['config.linkerd.io/shutdown-grace-period']).toBe(nativeSidecar ? '5s' : '1s');
        expect(describeFindings(lintChart(chart))).toEqual([]);
      }
    });

    test('Istio classic: injection label, terminationDrainDuration = preStop + drain, optional EXIT_ON_ZERO_ACTIVE_CONNECTIONS', () => {
      const chart = Testing.chart();
      web(chart, { mesh: Mesh.istio({ exitOnZeroActiveConnections: true }), service: {} });
      const tpl = (deploymentOf(chart).spec as JsonObject).template as JsonObject;
      expect((tpl.metadata as JsonObject).labels).toMatchObject({ 'sidecar.istio.io/inject': 'true' });
      expect((tpl.metadata as JsonObject).annotations).toEqual({
        'sidecar.istio.io/nativeSidecar': 'false',
        'proxy.istio.io/config': 'terminationDrainDuration: 20s\nproxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"\n',
      });
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('Istio without inject: no injection label', () => {
      const chart = Testing.chart();
      web(chart, { mesh: Mesh.istio({ inject: false }) });
      const meta = ((deploymentOf(chart).spec as JsonObject).template as JsonObject).metadata as JsonObject;
      expect(meta.labels).not.toHaveProperty('sidecar.istio.io/inject');
      expect(meta.annotations).toHaveProperty(['proxy.istio.io/config'], 'terminationDrainDuration: 20s\n');
    });

    test('Istio native sidecar', () => {
      const chart = Testing.chart();
      web(chart, { mesh: Mesh.istio({ nativeSidecar: true }), service: {} });
      const m = deploymentOf(chart);
      expect((((m.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations).toEqual({ 'sidecar.istio.io/nativeSidecar': 'true' });
      expect(podSpec(m).terminationGracePeriodSeconds).toBe(30);
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });

    test('the mesh annotations follow a longer preStop hook', () => {
      const chart = Testing.chart();
      web(chart, { mesh: Mesh.linkerd(), preStopSeconds: 25, drainSeconds: 0, service: {} });
      const m = deploymentOf(chart);
      const ann = (((m.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject;
      expect(ann['config.alpha.linkerd.io/proxy-wait-before-exit-seconds']).toBe('26');
      expect(podSpec(m).terminationGracePeriodSeconds).toBe(30);
    });
  });

  describe('disruption budget and spreading', () => {
    test('disruptionBudget false', () => {
      const chart = Testing.chart();
      web(chart, { disruptionBudget: false });
      expect(synth(chart).map((m) => m.kind)).toEqual(['Deployment']);
    });

    test('disruptionBudget options: maxUnavailable, policy, metadata', () => {
      const chart = Testing.chart();
      web(chart, { replicas: 4, disruptionBudget: { maxUnavailable: '25%', unhealthyPodEvictionPolicy: 'IfHealthyBudget', metadata: { name: 'web-pdb' } } });
      const pdb = byKind(synth(chart), 'PodDisruptionBudget');
      expect((pdb.metadata as JsonObject).name).toBe('web-pdb');
      expect(pdb.spec).toMatchObject({ maxUnavailable: '25%', unhealthyPodEvictionPolicy: 'IfHealthyBudget' });
    });

    test('maxUnavailable 0 is refused (the budget would block every drain)', () => {
      expect(() => web(Testing.chart(), { disruptionBudget: { maxUnavailable: 0 } })).toThrow(/drains never finish/);
    });

    test('topologySpread false, and custom options', () => {
      const chart = Testing.chart();
      web(chart, { topologySpread: false });
      expect(podSpec(deploymentOf(chart)).topologySpreadConstraints).toBeUndefined();
      const chart2 = Testing.chart();
      web(chart2, { topologySpread: { topologyKeys: ['kubernetes.io/hostname'], maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule' } });
      expect(podSpec(deploymentOf(chart2)).topologySpreadConstraints).toEqual([
        { labelSelector: expect.any(Object), matchLabelKeys: ['pod-template-hash'], maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' },
      ]);
    });

    test('a topologySpreadConstraints of the user (JSON patch on the L1) is kept', () => {
      const chart = Testing.chart();
      const d = web(chart);
      ApiObject.of(d).addJsonPatch(JsonPatch.add('/spec/template/spec/topologySpreadConstraints', []));
      expect(podSpec(deploymentOf(chart)).topologySpreadConstraints).toEqual([]);
    });
  });

  describe('kubernetesVersion', () => {
    test('from the prop, then the construct context, then the newest known', () => {
      const app = Testing.app();
      app.node.setContext(KUBERNETES_VERSION_CONTEXT, '1.29');
      const chart = new Chart(app, 'c');
      const fromContext = web(chart, {}, 'a');
      const fromProp = web(chart, { kubernetesVersion: '1.31' }, 'b');
      expect(fromContext.kubernetesVersion.toString()).toBe('1.29');
      expect(fromProp.kubernetesVersion.toString()).toBe('1.31');
    });

    test('invalid and unsupported versions are refused with what to do', () => {
      expect(() => web(Testing.chart(), { kubernetesVersion: 'latest' })).toThrow(/kubernetesVersion: invalid Kubernetes version "latest"/);
      expect(() => web(Testing.chart(), { kubernetesVersion: '1.20' })).toThrow(/need >= 1.21/);
    });
  });

  describe('escape hatches and extension', () => {
    test('the L1 object is reachable and cdk8s-plus JSON patches still apply', () => {
      const chart = Testing.chart();
      const d = web(chart);
      expect(ApiObject.of(d).kind).toBe('Deployment');
      ApiObject.of(d).addJsonPatch(JsonPatch.add('/spec/revisionHistoryLimit', 3));
      expect((deploymentOf(chart).spec as JsonObject).revisionHistoryLimit).toBe(3);
    });

    test('ManifestOverlay edits run after the construct (a bad override is the linter’s to catch)', () => {
      const chart = Testing.chart();
      const d = web(chart, { service: {} });
      ManifestOverlay.of(d).addJsonPatch(JsonPatch.replace('/spec/template/spec/terminationGracePeriodSeconds', 5));
      expect(podSpec(deploymentOf(chart)).terminationGracePeriodSeconds).toBe(5);
      expect(lintChart(chart).map((f) => f.ruleId)).toContain('grace-period-budget');
    });

    test('an app repo can subclass it', () => {
      class TeamApi extends GracefulDeployment {
        constructor(scope: Construct, id: string) {
          super(scope, id, { replicas: 3, containers: [{ name: 'api', image: 'team/api:1', portNumber: 8080, readiness: READY }], service: {} });
          this.podMetadata.addLabel('team', 'payments');
        }
      }
      const chart = Testing.chart();
      new TeamApi(chart, 'api');
      const m = deploymentOf(chart);
      expect((((m.spec as JsonObject).template as JsonObject).metadata as JsonObject).labels).toMatchObject({ team: 'payments' });
      expect(describeFindings(lintChart(chart))).toEqual([]);
    });
  });
});
