/** The catalog of well-known workloads: shipped data, validation, matching, hints. */
import * as fs from 'fs';
import * as yaml from 'js-yaml';
import {
  answersFromStartProbe,
  imageGlobVariants,
  koDefaultImageName,
  singleVersionProgram,
  runtimeWebhooks,
  builtinCatalog,
  Catalog,
  CatalogEntry,
  CatalogError,
  catalogFile,
  catalogMatches,
  connectionPatternOf,
  dependencyProbe,
  imageGlob,
  imageRepository,
  imageTag,
  imageVersion,
  isProcessLocalProbe,
  knownPreStopProgram,
  needsPeerDiscovery,
  parseCatalogDocument,
  parseCatalogOverride,
  scriptWords,
  shellScript,
} from '../../lib/catalog';
import { weedVolumeScript } from '../helpers/seaweedfs';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { Workload, workloadOf } from '../../lib/model/workload';

function workload(text: string): Workload {
  const p = parseText('t.yaml', text);
  const w = p.objects.map(workloadOf).find((x) => x !== undefined);
  if (!w) throw new Error('no workload');
  return w;
}

function deployment(container: string, annotations = ''): Workload {
  return workload(`apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  replicas: 3
  selector: {matchLabels: {app: x}}
  template:
    metadata:
      labels: {app: x}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
      containers:
      - ${container}
`);
}

function shippedDoc(): JsonObject {
  return yaml.load(fs.readFileSync(catalogFile(), 'utf8')) as JsonObject;
}

describe('shipped data', () => {
  test('catalog.yaml validates against catalog.schema.json and loads', () => {
    const entries = parseCatalogDocument(shippedDoc());
    expect(entries.length).toBe(builtinCatalog().entries.length);
    expect(entries.length).toBeGreaterThanOrEqual(20);
  });
  test('every entry cites a source and explains itself; IDs are unique', () => {
    const ids = new Set<string>();
    for (const e of builtinCatalog().entries) {
      expect([e.id, e.source.length > 0 && e.source.every((s) => s.length > 10)]).toEqual([e.id, true]);
      expect(e.why.length).toBeGreaterThan(20);
      expect(ids.has(e.id)).toBe(false);
      ids.add(e.id);
    }
  });
  test('covers every entry type', () => {
    const kinds = new Set(builtinCatalog().entries.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['connection-pattern', 'dependency-probe', 'monitoring-port', 'peer-discovery', 'prestop-program', 'process-local-probe', 'registers-webhooks', 'serves-after-sigterm', 'single-version']);
  });
});

describe('invalid data is rejected with the path of the field', () => {
  const base = (): JsonObject => shippedDoc();
  const TRAEFIK = (base().entries as JsonObject[]).findIndex((e) => e.id === 'traefik');
  const cases: [string, (d: JsonObject) => void, string, RegExp][] = [
    ['unknown kind', (d) => ((d.entries as JsonObject[])[0].kind = 'magic'), '/entries/0/kind', /must be equal to one of the allowed values/],
    ['missing source', (d) => delete (d.entries as JsonObject[])[1].source, '/entries/1', /source/],
    ['connection-pattern without a pattern', (d) => delete (d.entries as JsonObject[])[0].connectionPattern, '/entries/0', /connectionPattern/],
    ['bad backoff', (d) => ((d.entries as JsonObject[])[0].reconnectBackoff = 'quadratic:1-2'), '/entries/0/reconnectBackoff', /pattern/],
    ['unknown field', (d) => ((d.entries as JsonObject[])[2].colour = 'red'), '/entries/2', /unknown field "colour"/],
    ['regex that does not compile', (d) => (((d.entries as JsonObject[])[5].preStop as JsonObject).command = '(unclosed'), '/entries/5/preStop/command', /invalid regular expression/],
    ['duplicate id', (d) => ((d.entries as JsonObject[])[3].id = 'teleport-proxy'), '/entries/3/id', /duplicate entry id "teleport-proxy"/],
    [
      'a per-listener setting without {name}',
      (d) => (((d.entries as JsonObject[])[TRAEFIK].servesAfterSigterm as JsonObject).setting = '--grace={value}'),
      `/entries/${TRAEFIK}/servesAfterSigterm/setting`,
      /pattern/,
    ],
  ];
  test.each(cases)('%s', (_name, mutate, pointer, message) => {
    const d = base();
    mutate(d);
    let err: unknown;
    try {
      parseCatalogDocument(d);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogError);
    expect((err as CatalogError).pointer).toBe(pointer);
    expect((err as CatalogError).message).toMatch(message);
  });
});

describe('image references', () => {
  test.each([
    ['public.ecr.aws/gravitational/teleport:11.0.0-dev', 'gravitational/teleport', 'public.ecr.aws/gravitational/teleport'],
    ['redis:8@sha256:abcd', 'redis', 'redis'],
    ['docker.io/library/redis:7', 'redis', 'docker.io/redis'],
    ['localhost:5000/team/app:1', 'team/app', 'localhost:5000/team/app'],
    ['Registry.K8s.io/ingress-nginx/controller:v1.12.1@sha256:ff', 'ingress-nginx/controller', 'registry.k8s.io/ingress-nginx/controller'],
  ])('%s', (image, p, full) => expect(imageRepository(image)).toEqual({ path: p, full }));
  test('a leading */ also matches no prefix; * spans segments', () => {
    expect(imageGlob('*/cassandra').test('cassandra')).toBe(true);
    expect(imageGlob('*/cassandra').test('gcr.io/google-samples/cassandra')).toBe(true);
    expect(imageGlob('*/cassandra').test('scassandra')).toBe(false);
    expect(imageGlob('*/gravitational/teleport').test('gravitational/teleport-distroless')).toBe(false);
  });
});

describe('connection patterns', () => {
  const teleport = (image: string, ports = "ports: [{name: sshtun, containerPort: 3024}, {name: diag, containerPort: 3000}]") => deployment(`{name: teleport, image: '${image}', ${ports}}`);
  test.each([
    'public.ecr.aws/gravitational/teleport:11.0.0-dev',
    'public.ecr.aws/gravitational/teleport-distroless:15.0.0',
    'quay.io/gravitational/teleport-ent:14.3@sha256:0123',
    'my-mirror.example.com/mirror/gravitational/teleport:16',
  ])('Teleport proxy %s is fan-in', (image) => {
    const r = connectionPatternOf(teleport(image));
    expect([r.pattern, r.source, r.entry?.id, r.reconnectBackoff]).toEqual(['fan-in', 'catalog', 'teleport-proxy', 'linear:2-4']);
  });
  test('a Teleport agent (same image, no tunnel port) is not fan-in', () => {
    expect(connectionPatternOf(teleport('public.ecr.aws/gravitational/teleport-distroless:15', 'ports: [{name: diag, containerPort: 3000}]')).source).toBe('default');
  });
  test('the tunnel port routed only by a Service (2022 chart) matches', () => {
    const w = teleport('public.ecr.aws/gravitational/teleport:11.0.0-dev', 'ports: [{name: diag, containerPort: 3000}]');
    expect(connectionPatternOf(w, { routedPorts: [{ name: 'https', port: 443, targetPort: 3080 }] }).source).toBe('default');
    expect(connectionPatternOf(w, { routedPorts: [{ name: 'sshtun', port: 3024, targetPort: 3024 }] }).pattern).toBe('fan-in');
  });
  test('another image with port 3024 is not Teleport', () => {
    expect(connectionPatternOf(deployment("{name: x, image: 'example/teleporter:1', ports: [{name: sshtun, containerPort: 3024}]}")).source).toBe('default');
  });
  test.each([
    ["{name: discovery, image: 'docker.io/istio/pilot:1.24.0', args: [discovery, --monitoringAddr=:15014], ports: [{containerPort: 15012, name: tls-xds}]}", 'istiod'],
    ["{name: destination, image: 'cr.l5d.io/linkerd/controller:edge-24.1.1', args: [destination, -addr=:8086], ports: [{containerPort: 8086, name: dest-grpc}]}", 'linkerd-destination'],
    ["{name: contour, image: 'ghcr.io/projectcontour/contour:v1.30.0', command: [contour], args: [serve, --incluster, --xds-port=8001]}", 'contour'],
    // Review report p29 item 3: the gateway-helm and kuma charts' control planes.
    ["{name: envoy-gateway, image: 'docker.io/envoyproxy/gateway:v1.5.0', args: [server, --config-path=/config/envoy-gateway.yaml], ports: [{containerPort: 18000, name: grpc}]}", 'envoy-gateway'],
    ["{name: control-plane, image: 'docker.io/kumahq/kuma-cp:2.12.0', args: [run, --log-level=info], ports: [{containerPort: 5680, name: diagnostics}, {containerPort: 5678}]}", 'kuma-cp'],
    ["{name: control-plane, image: 'docker.io/kong/kuma-cp:2.13.5', args: [run], ports: [{containerPort: 5678}]}", 'kuma-cp'],
  ])('long-lived: %s', (c, id) => {
    const r = connectionPatternOf(deployment(c));
    expect([r.pattern, r.entry?.id]).toEqual(['long-lived', id]);
  });
  test('linkerd identity: listed as short (a unary Certify call hours apart, no stream to hold)', () => {
    const r = connectionPatternOf(deployment("{name: identity, image: 'cr.l5d.io/linkerd/controller:stable-2.14', args: [identity, -log-level=info]}"));
    expect([r.pattern, r.source, r.entry?.id]).toEqual(['short', 'catalog', 'linkerd-identity']);
  });
  test('a global Kuma control plane (no dp-server port 5678) and other Envoy Gateway subcommands are not long-lived', () => {
    expect(connectionPatternOf(deployment("{name: control-plane, image: 'docker.io/kumahq/kuma-cp:2.12.0', args: [run], ports: [{containerPort: 5680, name: diagnostics}, {containerPort: 5681}, {containerPort: 5443}]}")).source).toBe('default');
    expect(connectionPatternOf(deployment("{name: certgen, image: 'docker.io/envoyproxy/gateway:v1.5.0', command: [envoy-gateway, certgen]}")).source).toBe('default');
  });
  test('linkerd proxy-injector (same image, other subcommand) is not long-lived', () => {
    expect(connectionPatternOf(deployment("{name: proxy-injector, image: 'cr.l5d.io/linkerd/controller:edge', args: [proxy-injector, -addr=:8443]}")).source).toBe('default');
  });
  test('a hint always wins over the catalog', () => {
    const w = deployment("{name: t, image: 'public.ecr.aws/gravitational/teleport:11', ports: [{name: sshtun, containerPort: 3024}]}", '"kubegrace.dev/connection-pattern": short');
    expect(connectionPatternOf(w)).toEqual({ pattern: 'short', source: 'hint' });
  });
});

describe('known preStop programs', () => {
  const c = (o: string): JsonObject => yaml.load(o) as JsonObject;
  test.each([
    ["{image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1', args: [/nginx-ingress-controller, --election-id=x], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}", 'ingress-nginx-wait-shutdown', 0, 'exact'],
    ["{image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1', args: [/nginx-ingress-controller, --shutdown-grace-period=15], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}", 'ingress-nginx-wait-shutdown', 15, 'exact'],
    ["{image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1', args: [/nginx-ingress-controller, --shutdown-grace-period, '20'], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}", 'ingress-nginx-wait-shutdown', 20, 'exact'],
    ["{image: 'nginx:1.27', lifecycle: {preStop: {exec: {command: [/usr/sbin/nginx, -s, quit]}}}}", 'nginx-quit', 0, 'exact'],
    ["{image: 'nginx:1.27', lifecycle: {preStop: {exec: {command: [/bin/sh, -c, 'nginx -s quit']}}}}", 'nginx-quit', 0, 'exact'],
    // --check-delay defaults to 0s from Contour 1.22.0 (#4548), 60s before; a tag that is no version is current.
    ["{image: 'ghcr.io/projectcontour/contour:v1.30', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown', 0, 'at-least'],
    ["{image: 'ghcr.io/projectcontour/contour:v1.22.0', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown', 0, 'at-least'],
    ["{image: 'ghcr.io/projectcontour/contour:v1.22.0-rc.1', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown', 0, 'at-least'],
    ["{image: 'ghcr.io/projectcontour/contour:main', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown', 0, 'at-least'],
    ["{image: 'ghcr.io/projectcontour/contour@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown', 0, 'at-least'],
    ["{image: 'docker.io/projectcontour/contour:v1.21.3', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown-before-1-22', 60, 'at-least'],
    ["{image: 'projectcontour/contour:v1.2.0', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}", 'contour-envoy-shutdown-before-1-22', 60, 'at-least'],
    ["{image: 'ghcr.io/projectcontour/contour:v1.30', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown, --check-delay=10s, --drain-delay=5s]}}}}", 'contour-envoy-shutdown', 15, 'at-least'],
    ["{image: 'ghcr.io/projectcontour/contour:v1.21.0', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown, --check-delay=10s, --drain-delay=5s]}}}}", 'contour-envoy-shutdown-before-1-22', 15, 'at-least'],
    ["{image: 'haproxytech/kubernetes-ingress:3.2', lifecycle: {preStop: {exec: {command: [/bin/sh, -c, 'kill -USR1 $(pidof haproxy); while killall -0 haproxy; do sleep 1; done']}}}}", 'haproxy-soft-stop', 0, 'exact'],
    ["{image: 'haproxytech/haproxy-alpine:3.2', lifecycle: {preStop: {exec: {command: [sh, -c, 'kill -s SIGUSR1 `pidof haproxy`']}}}}", 'haproxy-soft-stop', 0, 'exact'],
    ["{image: 'haproxy:3.2', lifecycle: {preStop: {exec: {command: [killall, -USR1, haproxy]}}}}", 'haproxy-soft-stop', 0, 'exact'],
    ["{image: 'kong:3.9', lifecycle: {preStop: {exec: {command: [kong, quit, '--wait=15']}}}}", 'kong-quit', 15, 'exact'],
    ["{image: 'kong/kong-gateway:3.10', lifecycle: {preStop: {exec: {command: [/usr/local/bin/kong, quit, -p, /kong_prefix/, --wait, '5', --timeout, '20']}}}}", 'kong-quit', 5, 'exact'],
    ["{image: 'kong:3.9', lifecycle: {preStop: {exec: {command: [kong, quit]}}}}", 'kong-quit', 0, 'exact'],
  ])('%s', (container, id, seconds, bound) => {
    const k = knownPreStopProgram(c(container));
    expect([k?.entry.id, k?.seconds, k?.bound]).toEqual([id, seconds, bound]);
  });
  test('match.beforeVersion: the entry for releases before 1.22 matches only version tags below it, even with the current entry disabled', () => {
    const old = builtinCatalog().withOverride(parseCatalogOverride({ disable: ['contour-envoy-shutdown'] }));
    const hook = (image: string) => old.knownPreStopProgram(c(`{image: '${image}', lifecycle: {preStop: {exec: {command: [/bin/contour, envoy, shutdown]}}}}`))?.entry.id;
    expect(hook('ghcr.io/projectcontour/contour:v1.21.3')).toBe('contour-envoy-shutdown-before-1-22');
    expect(hook('ghcr.io/projectcontour/contour:1.21.3-debian')).toBe('contour-envoy-shutdown-before-1-22');
    for (const tag of [':v1.22.0', ':v1.22.0-rc.1', ':v1.33.0', ':main', ':latest', '', '@sha256:aa']) expect([tag, hook(`ghcr.io/projectcontour/contour${tag}`)]).toEqual([tag, undefined]);
    const d = shippedDoc();
    const i = (d.entries as JsonObject[]).findIndex((e) => e.id === 'contour-envoy-shutdown-before-1-22');
    ((d.entries as JsonObject[])[i].match as JsonObject).beforeVersion = '1.22';
    expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
  });
  test('kong quit --wait with something else than seconds leaves the delay unknown', () => {
    const k = knownPreStopProgram(c("{image: 'kong:3.9', lifecycle: {preStop: {exec: {command: [kong, quit, --wait=15s]}}}}"));
    expect([k?.entry.id, k?.seconds, k?.derivation]).toEqual(['kong-quit', undefined, '--wait=15s is not a number of seconds']);
  });
  test('a malformed flag value leaves the delay unknown', () => {
    const k = knownPreStopProgram(c("{image: 'registry.k8s.io/ingress-nginx/controller:v1', args: [--shutdown-grace-period=soon], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}"));
    expect([k?.entry.id, k?.seconds, k?.derivation]).toEqual(['ingress-nginx-wait-shutdown', undefined, '--shutdown-grace-period=soon is not a number of seconds']);
  });
  test.each([
    ["{image: 'example/app:1', lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}"],
    ["{image: 'nginx:1', lifecycle: {preStop: {exec: {command: [sh, -c, 'sleep 5; nginx -s quit']}}}}"],
    ["{image: 'nginx:1', lifecycle: {preStop: {exec: {command: [nginx, -s, stop]}}}}"],
    ["{image: 'haproxy:3.2', lifecycle: {preStop: {exec: {command: [sh, -c, 'sleep 10; kill -USR1 $(pidof haproxy)']}}}}"],
    ["{image: 'haproxy:3.2', lifecycle: {preStop: {exec: {command: [sh, -c, 'kill -USR2 $(pidof haproxy)']}}}}"],
    ["{image: 'haproxy:3.2', lifecycle: {preStop: {exec: {command: [sh, -c, 'pkill -USR1 haproxy']}}}}"],
    ["{image: 'haproxy:3.2', lifecycle: {preStop: {exec: {command: [sh, -c, 'haproxy -f /etc/haproxy/haproxy.cfg -sf $(pidof haproxy)']}}}}"],
    // kong quit's short -w and a shell script around it: the wait is not read from them, so not judged.
    ["{image: 'kong:3.9', lifecycle: {preStop: {exec: {command: [kong, quit, -w, '15']}}}}"],
    ["{image: 'kong:3.9', lifecycle: {preStop: {exec: {command: [sh, -c, 'kong quit --wait=15']}}}}"],
    ["{image: 'kong:3.9', lifecycle: {preStop: {exec: {command: [kong, stop]}}}}"],
    ["{image: 'nginx:1'}"],
  ])('not a known program: %s', (container) => expect(knownPreStopProgram(c(container))).toBeUndefined());
});

describe('serves after SIGTERM (Traefik)', () => {
  const traefik = (args: string[]) => ({ image: 'docker.io/traefik:v3.7.11', args }) as unknown as JsonObject;
  const eps = ['--entryPoints.metrics.address=:9100/tcp', '--entryPoints.traefik.address=:8080/tcp', '--entryPoints.web.address=:8000/tcp', '--entryPoints.websecure.address=:8443/tcp'];
  test('defaults: 0 s accepting, 10 s drain', () => {
    expect(builtinCatalog().servesAfterSigterm(traefik(eps))?.seconds).toBe(0);
    expect(builtinCatalog().drainSeconds(traefik(eps))?.seconds).toBe(10);
  });
  test('the smallest over the traffic entry points (internal ones ignored)', () => {
    const a = [...eps, '--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=15s', '--entryPoints.websecure.transport.lifeCycle.requestAcceptGraceTimeout=20s'];
    expect(builtinCatalog().servesAfterSigterm(traefik(a))?.seconds).toBe(15);
    expect(builtinCatalog().servesAfterSigterm(traefik([...eps, '--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=15s']))?.seconds).toBe(0);
  });
  test('not Traefik', () => expect(builtinCatalog().servesAfterSigterm({ image: 'nginx:1', args: eps } as unknown as JsonObject)).toBeUndefined());
});

describe('serves after SIGTERM from a config file (CoreDNS lameduck)', () => {
  const coredns = (args: string[] = ['-conf', '/etc/coredns/Corefile'], image = 'registry.k8s.io/coredns/coredns:v1.12.0', extra: JsonObject = {}) => ({ image, args, ...extra }) as unknown as JsonObject;
  /** A reader holding one file. */
  const files =
    (path: string, text: string) =>
    (p: string): { text: string; where: string } | { missing: string } =>
      p === path ? { text, where: `${p} (ConfigMap kube-system/coredns, key Corefile)` } : { missing: `no volume is mounted at ${p}` };
  const CONF = '/etc/coredns/Corefile';
  const seconds = (text: string, c = coredns()) => builtinCatalog().servesAfterSigterm(c, files(CONF, text))?.seconds;

  test.each([
    ['coredns/coredns:1.13.1'],
    ['registry.k8s.io/coredns/coredns:v1.12.0'],
    ['k8s.gcr.io/coredns:1.7.0'],
    ['602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/coredns:v1.11.4-eksbuild.2'],
    ['mcr.microsoft.com/oss/kubernetes/coredns:v1.9.4'],
    ['rancher/mirrored-coredns-coredns:1.12.0'],
    ['rancher/hardened-coredns:v1.14.1-build20260116'],
    ['ghcr.io/chaos-mesh/chaos-coredns:v0.2.8'],
  ])('CoreDNS image %s matches', (image) => expect(builtinCatalog().servesAfterSigterm(coredns(undefined, image))?.entry.id).toBe('coredns-lameduck'));
  test.each([['example/coredns-exporter:1'], ['nginx:1']])('%s does not match', (image) => expect(builtinCatalog().servesAfterSigterm(coredns(undefined, image))).toBeUndefined());

  test('the lameduck of the health block, in a Go duration', () => {
    expect(seconds('.:53 {\n    health {\n        lameduck 10s\n    }\n}\n')).toBe(10);
    expect(seconds('.:53 {\n    health :8080 {\n      lameduck 500ms\n    }\n}')).toBe(0.5);
    expect(seconds('.:53 {\n    health { lameduck 1m\n    }\n}')).toBe(60);
    expect(builtinCatalog().servesAfterSigterm(coredns(), files(CONF, '.:53 {\n  health {\n    lameduck 5s\n  }\n}'))?.derivation).toBe('lameduck 5s in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)');
  });
  test('no lameduck: 0 s (CoreDNS stops answering at once); a commented-out one does not count', () => {
    expect(seconds('.:53 {\n    health\n    ready\n}')).toBe(0);
    expect(seconds('.:53 {\n    health {\n        # lameduck 10s\n    }\n}')).toBe(0);
    expect(seconds('.:53 {\n    health {\n        lameduck 10s # keep answering\n    }\n}')).toBe(10);
  });
  test('several server blocks with health: the sleeps run one after the other, before any server stops', () => {
    expect(seconds('.:53 {\n  health {\n    lameduck 5s\n  }\n}\nexample.org:5353 {\n  health :8081 {\n    lameduck 3s\n  }\n}\n')).toBe(8);
  });
  test('a value that is not a duration (CoreDNS refuses it; an environment variable is unknown here): unknown', () => {
    const r = builtinCatalog().servesAfterSigterm(coredns(), files(CONF, '.:53 {\n  health {\n    lameduck {$LAMEDUCK}\n  }\n}'));
    expect([r?.seconds, r?.derivation]).toEqual([undefined, '"lameduck {$LAMEDUCK}" in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile) is not a duration']);
  });
  test('the file is where -conf says, else Corefile in the working directory (/ in the image)', () => {
    const text = '. {\n  health {\n    lameduck 7s\n  }\n}';
    expect(builtinCatalog().servesAfterSigterm(coredns(['-conf=/cfg/Corefile']), files('/cfg/Corefile', text))?.seconds).toBe(7);
    expect(builtinCatalog().servesAfterSigterm(coredns([]), files('/Corefile', text))?.seconds).toBe(7);
    expect(builtinCatalog().servesAfterSigterm(coredns([], undefined, { workingDir: '/etc/coredns/' }), files(CONF, text))?.seconds).toBe(7);
    expect(builtinCatalog().servesAfterSigterm(coredns(['-conf', 'conf/Corefile'], undefined, { workingDir: '/srv' }), files('/srv/conf/Corefile', text))?.seconds).toBe(7);
  });
  test('a file the input does not hold, or no reader: unknown, with why', () => {
    const other = builtinCatalog().servesAfterSigterm(coredns(['-conf', '/other/Corefile']), files(CONF, ''));
    expect([other?.seconds, other?.file]).toEqual([undefined, { path: '/other/Corefile', missing: 'no volume is mounted at /other/Corefile' }]);
    const unread = builtinCatalog().servesAfterSigterm(coredns());
    expect([unread?.seconds, unread?.file]).toEqual([undefined, { path: CONF, missing: 'not read' }]);
  });
  test("the advice: the program's own setting where it is short, and where to write it", () => {
    const short = builtinCatalog().servesAfterSigtermSetting(coredns(), 10, files(CONF, '.:53 {\n  health {\n    lameduck 2s\n  }\n}'));
    expect(short?.text).toBe('lameduck 10s on its own line inside the health block (health {, then lameduck, then }) in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)');
    expect(builtinCatalog().servesAfterSigtermSetting(coredns(), 10, files(CONF, '.:53 {\n  health {\n    lameduck 10s\n  }\n}'))).toBeUndefined();
    expect(builtinCatalog().servesAfterSigtermSetting(coredns(), 10)?.text).toMatch(/ in \/etc\/coredns\/Corefile \(not read\)$/);
  });
  test('a config-file entry needs a (?<value>) group', () => {
    const d = shippedDoc();
    const i = (d.entries as JsonObject[]).findIndex((e) => e.id === 'coredns-lameduck');
    ((d.entries as JsonObject[])[i].servesAfterSigterm as JsonObject).value = 'lameduck (\\S+)';
    expect(() => parseCatalogDocument(d)).toThrow(expect.objectContaining({ pointer: `/entries/${i}/servesAfterSigterm/value`, message: 'the value regex needs a (?<value>...) group' }));
  });
});

describe("a program's own monitoring port (Fluent Bit's HTTP server)", () => {
  const fb = (args: string[] = ['--workdir=/fluent-bit/etc', '--config=/fluent-bit/etc/conf/fluent-bit.conf'], image = 'cr.fluentbit.io/fluent/fluent-bit:5.1.1', extra: JsonObject = {}) =>
    ({ image, command: ['/fluent-bit/bin/fluent-bit'], args, ...extra }) as unknown as JsonObject;
  const CONF = '/fluent-bit/etc/conf/fluent-bit.conf';
  const files =
    (path: string, text: string) =>
    (p: string): { text: string; where: string } | { missing: string } =>
      p === path ? { text, where: `${p} (ConfigMap logging/fb, key fluent-bit.conf)` } : { missing: `no volume is mounted at ${p}` };
  const port = (text: string, c = fb(), path = CONF) => builtinCatalog().monitoringPort(c, files(path, text))?.port;

  test.each([['cr.fluentbit.io/fluent/fluent-bit:5.1.1'], ['fluent/fluent-bit:3.2'], ['ghcr.io/fluent/fluent-bit:4.0@sha256:00'], ['docker.io/bitnami/fluent-bit:3']])('image %s matches', (image) =>
    expect(builtinCatalog().monitoringPort(fb(undefined, image))?.entry.id).toBe('fluent-bit-http-server'),
  );
  test.each([['fluent/fluentd:v1.16'], ['example/fluent-bit-exporter:1'], ['grafana/fluent-bit-plugin-loki:2']])('%s does not match', (image) => expect(builtinCatalog().monitoringPort(fb(undefined, image))).toBeUndefined());

  test('HTTP_Port of the [SERVICE] section, any case, or http_port of the YAML format; the last one counts', () => {
    expect(port('[SERVICE]\n    HTTP_Server On\n    HTTP_Port 2021\n')).toBe(2021);
    expect(port('[SERVICE]\n    http_port   2022 # moved\n')).toBe(2022);
    expect(port('service:\n  http_server: on\n  http_port: "2023"\n')).toBe(2023);
    expect(port('[SERVICE]\n    HTTP_Port 2021\n    HTTP_Port 2024\n')).toBe(2024);
    expect(builtinCatalog().monitoringPort(fb(), files(CONF, '[SERVICE]\n    HTTP_Port 2020\n'))?.derivation).toBe('HTTP_Port 2020 in /fluent-bit/etc/conf/fluent-bit.conf (ConfigMap logging/fb, key fluent-bit.conf)');
  });
  test("an input's own port is not the HTTP server's; a commented-out HTTP_Port does not count", () => {
    expect(port('[SERVICE]\n    HTTP_Server On\n[INPUT]\n    Name forward\n    Port 24224\n')).toBe(2020);
    expect(port('[SERVICE]\n    # HTTP_Port 2021\n')).toBe(2020);
  });
  test('a value that is not a port number (a variable Fluent Bit substitutes): unknown, with why', () => {
    const r = builtinCatalog().monitoringPort(fb(), files(CONF, '[SERVICE]\n    HTTP_Port ${HTTP_PORT}\n'));
    expect([r?.port, r?.derivation]).toEqual([undefined, '"HTTP_Port ${HTTP_PORT}" in /fluent-bit/etc/conf/fluent-bit.conf (ConfigMap logging/fb, key fluent-bit.conf) is not a port number']);
  });
  test('the file named by --config or -c, else the image default; one the input does not hold leaves the default 2020, said so', () => {
    expect(port('[SERVICE]\n  HTTP_Port 2030\n', fb(['-c', '/etc/fb.conf']), '/etc/fb.conf')).toBe(2030);
    expect(port('[SERVICE]\n  HTTP_Port 2030\n', fb([]), '/fluent-bit/etc/fluent-bit.conf')).toBe(2030);
    const missing = builtinCatalog().monitoringPort(fb(['-c', '/etc/other.conf']), files(CONF, ''));
    expect([missing?.port, missing?.derivation]).toEqual([2020, 'default 2020 (/etc/other.conf cannot be read: no volume is mounted at /etc/other.conf)']);
  });
  test('-P / --port / --http_port before the file; the file wins over them (Fluent Bit reads it after its options)', () => {
    expect(builtinCatalog().monitoringPort(fb(['-P', '2040']))?.port).toBe(2040);
    expect(builtinCatalog().monitoringPort(fb(['--http_port=2041']))?.port).toBe(2041);
    expect(port('[SERVICE]\n  HTTP_Port 2042\n', fb(['-c', CONF, '--port', '2040']))).toBe(2042);
    expect(port('[SERVICE]\n  Flush 1\n', fb(['-c', CONF, '--port', '2040']))).toBe(2040);
    expect(builtinCatalog().monitoringPort(fb(['-P', 'http']))?.port).toBeUndefined();
  });
  test('the schema: monitoringPort only on a monitoring-port entry, which needs it; a value regex needs a (?<value>) group', () => {
    const d = shippedDoc();
    const i = (d.entries as JsonObject[]).findIndex((e) => e.id === 'fluent-bit-http-server');
    (d.entries as JsonObject[])[i].kind = 'peer-discovery';
    expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
    const e = shippedDoc();
    ((e.entries as JsonObject[])[i].monitoringPort as JsonObject).value = 'HTTP_Port (\\d+)';
    expect(() => parseCatalogDocument(e)).toThrow(expect.objectContaining({ pointer: `/entries/${i}/monitoringPort/value`, message: 'the value regex needs a (?<value>...) group' }));
  });
});

describe("controllers' own metrics and health servers (Flagger's -port, Reloader's fixed :9090)", () => {
  const fact = (o: object) => builtinCatalog().monitoringPort(o as unknown as JsonObject);
  test.each([
    [{ image: 'ghcr.io/fluxcd/flagger:1.44.0', command: ['./flagger', '-enable-leader-election=true'] }, 'flagger-http-server', 8080, 'default 8080'],
    [{ image: 'weaveworks/flagger:1.0.0', command: ['./flagger'] }, 'flagger-http-server', 8080, 'default 8080'],
    [{ image: 'ghcr.io/fluxcd/flagger:1.44.0', command: ['./flagger', '-port=9999'] }, 'flagger-http-server', 9999, '-port 9999'],
    [{ image: 'ghcr.io/fluxcd/flagger:1.44.0', command: ['./flagger', '--port', '9998'] }, 'flagger-http-server', 9998, '-port 9998'],
    [{ image: 'ghcr.io/stakater/reloader:v1.4.21' }, 'reloader-http-server', 9090, 'default 9090'],
    [{ image: 'docker.io/stakater/reloader:v1.0.0', args: ['--port=8080'] }, 'reloader-http-server', 9090, 'default 9090'],
  ])('%j', (container, id, port, derivation) => expect([fact(container)?.entry.id, fact(container)?.port, fact(container)?.derivation]).toEqual([id, port, derivation]));
  test.each([['ghcr.io/fluxcd/flagger-loadtester:0.36.0'], ['example/flagger-dashboard:1'], ['ghcr.io/stakater/reloader-operator:1']])('%s does not match', (image) => expect(fact({ image })).toBeUndefined());
});

describe("Logstash's monitoring API (api.http.port in logstash.yml, default 9600)", () => {
  const ls = (image = 'docker.elastic.co/logstash/logstash:8.5.1', args?: string[]) => ({ image, ...(args ? { args } : {}) }) as unknown as JsonObject;
  const YML = '/usr/share/logstash/config/logstash.yml';
  const files =
    (text: string) =>
    (p: string): { text: string; where: string } | { missing: string } =>
      p === YML ? { text, where: `${p} (ConfigMap logging/logstash-logstash-config, key logstash.yml)` } : { missing: `no volume is mounted at ${p}` };
  const fact = (text?: string, c = ls()) => builtinCatalog().monitoringPort(c, text === undefined ? undefined : files(text));
  const port = (text: string) => fact(text)?.port;

  test.each([['docker.elastic.co/logstash/logstash:8.5.1'], ['docker.elastic.co/logstash/logstash-oss:7.10.2'], ['logstash:9.2.0'], ['docker.io/library/logstash:8.19.0'], ['mirror.example.com/elastic/logstash/logstash:9.0.0']])('image %s matches', (image) =>
    expect([fact(undefined, ls(image))?.entry.id, fact(undefined, ls(image))?.port]).toEqual(['logstash-api', 9600]),
  );
  test.each([['example/logstash-exporter:1'], ['kuskoman/logstash-exporter:v1'], ['docker.elastic.co/beats/filebeat:8.5.1']])('%s does not match', (image) => expect(fact(undefined, ls(image))).toBeUndefined());

  test("the chart's logstash.yml (http.host only) sets none: the default 9600, said so", () => {
    const r = fact('http.host: 0.0.0.0\n');
    expect([r?.port, r?.derivation]).toEqual([9600, 'default 9600 (/usr/share/logstash/config/logstash.yml (ConfigMap logging/logstash-logstash-config, key logstash.yml) sets none)']);
  });
  test('api.http.port, its alias http.port (before 9.0), quoted, nested, or a range (its first port); comments ignored', () => {
    expect(port('api.http.host: 0.0.0.0\napi.http.port: 9601\n')).toBe(9601);
    expect(port('http.host: "0.0.0.0"\nhttp.port: 9602\n')).toBe(9602);
    expect(port('api.http.port: "9603"\n')).toBe(9603);
    expect(port("api.http.port: '9604-9700'\n")).toBe(9604);
    expect(port('api.http.port: 9605-9700 # a range\n')).toBe(9605);
    expect(port('api:\n  http:\n    host: 0.0.0.0\n    port: 9606\n')).toBe(9606);
    expect(port('# api.http.port: 9607\npipeline.workers: 2\n')).toBe(9600);
  });
  test('a value Logstash substitutes (${VAR}, as env2yaml writes API_HTTP_PORT): unknown, with why', () => {
    const r = fact('api.http.port: ${API_HTTP_PORT}\n');
    expect([r?.port, r?.derivation]).toEqual([undefined, '"api.http.port: ${API_HTTP_PORT}" in /usr/share/logstash/config/logstash.yml (ConfigMap logging/logstash-logstash-config, key logstash.yml) is not a port number']);
  });
  test('logstash.yml not in the input: the default 9600, said so; flags are not read (Logstash applies them over logstash.yml)', () => {
    const r = builtinCatalog().monitoringPort(ls(), () => ({ missing: 'no volume is mounted at /usr/share/logstash/config/logstash.yml' }));
    expect([r?.port, r?.derivation]).toEqual([9600, 'default 9600 (/usr/share/logstash/config/logstash.yml cannot be read: no volume is mounted at /usr/share/logstash/config/logstash.yml)']);
    expect(fact(undefined, ls(undefined, ['--api.http.port', '9700']))?.port).toBe(9600);
  });
});

describe("Sourcegraph's background workers: a health server on a fixed port (worker :3189, precise-code-intel-worker :3188)", () => {
  const fact = (o: object) => builtinCatalog().monitoringPort(o as unknown as JsonObject);
  test.each([
    [{ image: 'index.docker.io/sourcegraph/worker:6.0.0@sha256:4892c5aa107d4384f811afcf1980e0fb2cb8beb5585a15adcb64353a2d8abf5a' }, 'sourcegraph-worker-health', 3189],
    [{ image: 'sourcegraph/worker:5.3.0' }, 'sourcegraph-worker-health', 3189],
    [{ image: 'registry.example.com/mirror/sourcegraph/precise-code-intel-worker:6.0.0' }, 'sourcegraph-precise-code-intel-worker-health', 3188],
  ])('%j', (container, id, port) => expect([fact(container)?.entry.id, fact(container)?.port, fact(container)?.derivation]).toEqual([id, port, `default ${port}`]));
  // syntactic-code-intel-worker's health server moves with SYNTACTIC_CODE_INTEL_WORKER_ADDR; the others serve requests.
  test.each([['sourcegraph/syntactic-code-intel-worker:6.0.0'], ['sourcegraph/frontend:6.0.0'], ['sourcegraph/searcher:6.0.0'], ['sourcegraph/gitserver:6.0.0'], ['example/worker:1'], ['sourcegraph/executor-worker:1']])('%s does not match', (image) =>
    expect(fact({ image })).toBeUndefined(),
  );
});

// Review round 33, report p43 item 1: the KubeRay operator's 8080 is controller-runtime's metrics server, bound by default (the chart passes no --metrics-addr).
describe('KubeRay operator: the metrics address, from --metrics-addr or the --config file', () => {
  const CONFIG = '/etc/kuberay/config.yaml';
  const op = (args: string[] = [], image = 'quay.io/kuberay/operator:v1.4.2') => ({ image, command: ['/manager'], args }) as unknown as JsonObject;
  const files =
    (text: string) =>
    (p: string): { text: string; where: string } | { missing: string } =>
      p === CONFIG ? { text, where: `${p} (ConfigMap kuberay/kuberay-operator-config, key config.yaml)` } : { missing: `no volume is mounted at ${p}` };
  const fact = (args: string[] = [], text?: string, image?: string) => builtinCatalog().monitoringPort(op(args, image), text === undefined ? undefined : files(text));
  test("the chart's args: the default :8080", () => {
    const r = fact(['--enable-leader-election=true', '--enable-metrics=true']);
    expect([r?.entry.id, r?.port, r?.derivation]).toEqual(['kuberay-operator-metrics', 8080, 'default 8080 (no config file (--config not given) sets none)']);
  });
  test.each([
    [['--metrics-addr=:9090'], 9090],
    [['--metrics-addr', '0.0.0.0:9091'], 9091],
  ])('%j moves the port', (args, port) => expect(fact(args)?.port).toBe(port));
  test("--config: metricsAddr of the file (the chart's ConfigMap sets none: the default)", () => {
    expect(fact(['--config', CONFIG], 'apiVersion: config.ray.io/v1alpha1\nkind: Configuration\nmetricsAddr: ":9092"\n')?.port).toBe(9092);
    expect(fact(['--config', CONFIG], "metricsAddr: '0.0.0.0:9093'\n")?.port).toBe(9093);
    expect(fact(['--config', CONFIG], 'apiVersion: config.ray.io/v1alpha1\nkind: Configuration\nenableLeaderElection: true\n')?.port).toBe(8080);
  });
  test.each([['quay.io/kuberay/apiserver:v1.4.2'], ['quay.io/kuberay/security-proxy:nightly'], ['example/operator:1']])('%s does not match', (image) => expect(fact([], undefined, image)).toBeUndefined());
});

describe("a program's own monitoring port given as a listen address (Cluster Autoscaler's --address)", () => {
  const ca = (args: string[] = [], image = 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0') =>
    ({ image, command: ['./cluster-autoscaler', '--cloud-provider=aws', ...args] }) as unknown as JsonObject;
  const fact = (args: string[] = [], image?: string) => builtinCatalog().monitoringPort(ca(args, image));
  test.each([['registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0'], ['k8s.gcr.io/autoscaling/cluster-autoscaler:v1.21.0'], ['mcr.microsoft.com/oss/kubernetes/autoscaler/cluster-autoscaler:v1.30.1']])('image %s matches', (image) =>
    expect(fact([], image)?.entry.id).toBe('cluster-autoscaler-metrics'),
  );
  test.each([['example/cluster-autoscaler-exporter:1'], ['registry.k8s.io/autoscaling/vpa-recommender:1.2.0']])('%s does not match', (image) => expect(fact([], image)).toBeUndefined());
  test('without --address: the default :8085', () => expect([fact()?.port, fact()?.derivation]).toEqual([8085, 'default 8085']));
  test.each([
    [['--address=:9090'], 9090, '--address :9090'],
    [['--address', '0.0.0.0:9091'], 9091, '--address 0.0.0.0:9091'],
    [['--address=[::]:9092'], 9092, '--address [::]:9092'],
    [['--address=localhost:9093'], 9093, '--address localhost:9093'],
  ])('%j moves the port', (args, port, derivation) => expect([fact(args)?.port, fact(args)?.derivation]).toEqual([port, derivation]));
  test.each([[['--address=8085']], [['--address=:0']], [['--address=:http']], [['--address=::1:9090']], [['--address=']]])('%j: no port Go would listen on, unknown', (args) => {
    expect(fact(args)?.port).toBeUndefined();
    expect(fact(args)?.derivation).toMatch(/is not a port number$/);
  });
  test("Fluent Bit's flags stay port numbers (flagForm port by default): an address there is not read", () =>
    expect(builtinCatalog().monitoringPort({ image: 'fluent/fluent-bit:3.2', args: ['-P', ':2021'] } as unknown as JsonObject)?.port).toBeUndefined());
  test('the schema: flagForm is port or address, and needs flags', () => {
    const i = (shippedDoc().entries as JsonObject[]).findIndex((e) => e.id === 'cluster-autoscaler-metrics');
    const d = shippedDoc();
    ((d.entries as JsonObject[])[i].monitoringPort as JsonObject).flagForm = 'url';
    expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
    const e = shippedDoc();
    delete ((e.entries as JsonObject[])[i].monitoringPort as JsonObject).flags;
    expect(() => parseCatalogDocument(e)).toThrow(CatalogError);
  });
});

describe("ExternalDNS's metrics and health server (--metrics-address, default :7979; review report p26)", () => {
  const fact = (args: string[] = [], image = 'registry.k8s.io/external-dns/external-dns:v0.21.0') =>
    builtinCatalog().monitoringPort({ image, args: ['--source=service', '--provider=aws', ...args] } as unknown as JsonObject);
  test.each([['registry.k8s.io/external-dns/external-dns:v0.21.0'], ['k8s.gcr.io/external-dns/external-dns:v0.13.6'], ['docker.io/bitnami/external-dns:0.16.0'], ['mirror.example.com/external-dns/external-dns@sha256:00']])('image %s matches', (image) =>
    expect([fact([], image)?.entry.id, fact([], image)?.port, fact([], image)?.derivation]).toEqual(['external-dns-metrics', 7979, 'default 7979']),
  );
  test.each([['example/external-dns-webhook:1'], ['ghcr.io/example/external-dns-provider-foo:1'], ['external-dns-proxy:1']])('%s does not match', (image) => expect(fact([], image)).toBeUndefined());
  test.each([
    [['--metrics-address=:9797'], 9797],
    [['--metrics-address', '0.0.0.0:8080'], 8080],
  ])('%j moves the port', (args, port) => expect(fact(args)?.port).toBe(port));
});

describe("Strimzi operators' health and metrics servers (review report p33)", () => {
  const fact = (script: string, image = 'quay.io/strimzi/operator:0.47.0') => builtinCatalog().monitoringPort({ image, args: [`/opt/strimzi/bin/${script}`] } as unknown as JsonObject);
  test.each([
    ['cluster_operator_run.sh', 'quay.io/strimzi/operator:0.47.0', 'strimzi-operator-health', 8080],
    ['cluster_operator_run.sh', 'mirror.example.com/strimzi/operator:latest', 'strimzi-operator-health', 8080],
    ['topic_operator_run.sh', 'quay.io/strimzi/operator:0.47.0', 'strimzi-operator-health', 8080],
    ['user_operator_run.sh', 'quay.io/strimzi/operator:0.47.0', 'strimzi-user-operator-health', 8081],
  ])('%s on %s: %s, port %d', (script, image, id, port) => expect([fact(script, image)?.entry.id, fact(script, image)?.port]).toEqual([id, port]));
  // The bridge's 8080 is its REST API; the operator image without its run script (kafka-init) is not matched.
  test.each([
    ['kafka_bridge_run.sh', 'quay.io/strimzi/kafka-bridge:0.31.1'],
    ['cluster_operator_run.sh', 'quay.io/strimzi/kafka-bridge:0.31.1'],
    ['kafka_init_run.sh', 'quay.io/strimzi/operator:0.47.0'],
    ['cluster_operator_run.sh', 'quay.io/strimzi/kafka:0.47.0-kafka-4.0.0'],
  ])('%s on %s does not match', (script, image) => expect(fact(script, image)).toBeUndefined());
});

describe('programs that must not run two versions at once (Kibana)', () => {
  const kib = (image: string) => deployment(`{name: kibana, image: '${image}', ports: [{containerPort: 5601}]}`);
  test.each([['docker.elastic.co/kibana/kibana:8.5.1'], ['kibana:7.17.0'], ['docker.io/bitnami/kibana:8.15.0'], ['docker.elastic.co/kibana/kibana-oss:7.10.2'], ['mirror.example.com/elastic/kibana@sha256:00']])('%s matches', (image) => {
    const hit = singleVersionProgram(kib(image));
    expect([hit?.entry.id, hit?.container.name]).toEqual(['kibana', 'kibana']);
  });
  test.each([['example.com/kibana-proxy:1'], ['opensearchproject/opensearch-dashboards:2'], ['docker.elastic.co/elasticsearch/elasticsearch:8.5.1']])('%s does not match', (image) => expect(singleVersionProgram(kib(image))).toBeUndefined());
});

describe('programs that must not run two versions at once (SonarQube DCE application nodes, told apart by the image tag)', () => {
  const sq = (image: string) => deployment(`{name: sonarqube-dce, image: '${image}', ports: [{name: http, containerPort: 9000}]}`);
  test.each([
    ['sonarqube:2026.4.0-datacenter-app'],
    ['sonarqube:2026.4-datacenter-app'],
    ['sonarqube:2025.4-lta-datacenter-app'],
    ['sonarqube:datacenter-app'],
    ['docker.io/library/sonarqube:2025.1.4-datacenter-app'],
    ['registry.example.com/mirror/sonarqube:2026.4.0-datacenter-app@sha256:00'],
  ])('%s matches', (image) => {
    const hit = singleVersionProgram(sq(image));
    expect([hit?.entry.id, hit?.container.name]).toEqual(['sonarqube-dce-app', 'sonarqube-dce']);
  });
  test.each([
    ['sonarqube:2026.4.0-datacenter-search'],
    ['sonarqube:26.7.0.124771-community'],
    ['sonarqube:2026.4.0-developer'],
    ['sonarqube:2026.4.0-enterprise'],
    ['sonarqube'],
    ['sonarqube:latest'],
    ['sonarqube@sha256:00'],
    ['sonarqube:2026.4.0-DATACENTER-APP'],
    ['example.com/sonarqube-proxy:2026.4.0-datacenter-app'],
  ])('%s is no application node (the single-server tags are entry sonarqube-standalone)', (image) => expect(singleVersionProgram(sq(image))?.entry.id).not.toBe('sonarqube-dce-app'));
  test.each([
    ['sonarqube:2026.4.0-datacenter-app', '2026.4.0-datacenter-app'],
    ['registry:5000/sonarqube:datacenter-app@sha256:00', 'datacenter-app'],
    ['registry:5000/sonarqube', 'latest'],
    [' sonarqube ', 'latest'],
    ['sonarqube@sha256:00', undefined],
    ['registry:5000/sonarqube@sha256:00', undefined],
  ])('imageTag(%j) = %j', (image, tag) => expect(imageTag(image)).toBe(tag));
  test('the chart\'s search nodes run the app image in their init containers: no application node (main containers only)', () => {
    const w = workload(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sq-sonarqube-dce-search}
spec:
  replicas: 3
  serviceName: sq-sonarqube-dce-search
  selector: {matchLabels: {app: sonarqube-dce-search}}
  template:
    metadata: {labels: {app: sonarqube-dce-search}}
    spec:
      initContainers: [{name: init-fs, image: 'sonarqube:2026.4.0-datacenter-app', command: [sh, -ex, /tmp/scripts/init_fs.sh]}]
      containers: [{name: sonarqube-dce-search, image: 'sonarqube:2026.4.0-datacenter-search'}]
`);
    expect(singleVersionProgram(w)).toBeUndefined();
  });
  test('a tag glob must look like a tag: a slash or an empty list is rejected, in the catalog and in a policy', () => {
    for (const tags of [['*/datacenter-app'], [], ['-x']]) {
      const d = shippedDoc();
      const i = (d.entries as JsonObject[]).findIndex((e) => e.id === 'sonarqube-dce-app');
      ((d.entries as JsonObject[])[i].match as JsonObject).tags = tags;
      expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
      expect(() => parseCatalogOverride({ add: [{ id: 'x', kind: 'single-version', title: 'X', match: { images: ['*/x'], tags }, why: 'x x x x x x x', source: ['x x x x x'] }] })).toThrow(CatalogError);
    }
  });
  test('a policy can add a program told apart by its tag', () => {
    const added = builtinCatalog().withOverride(
      parseCatalogOverride({ add: [{ id: 'acme-writer', kind: 'single-version', title: 'ACME writer', match: { images: ['*/acme/db'], tags: ['*-writer', 'writer'] }, why: 'one schema version at a time', source: ['ACME runbook DB-3'] }] }),
    );
    expect(added.singleVersion(deployment("{name: w, image: 'acme/db:3.1-writer'}"))?.entry.id).toBe('acme-writer');
    expect(added.singleVersion(deployment("{name: r, image: 'acme/db:3.1-reader'}"))).toBeUndefined();
  });
});

// Each single-version entry says what must not overlap from its own evidence: two instances at all
// (overlap instances: "There should not be more than 1 SonarQube instance connected to the same
// database", "may only run once per cluster", "only a single scheduler", "only one Control Plane",
// "only one replica of Operator", "multiple schedulers is not supported", the Hub "is the only process
// that will talk to the database", the proxy's in-memory routes), or two versions (the default:
// Kibana, the SonarQube DCE application nodes, Nextcloud, Longhorn; Flux with overlapStalls).
test('single-version entries: overlap instances exactly where the evidence says two instances must not run', () => {
  const sv = builtinCatalog().entries.filter((e: CatalogEntry) => e.kind === 'single-version');
  expect(sv.filter((e: CatalogEntry) => e.overlap === 'instances').map((e: CatalogEntry) => e.id).sort()).toEqual(
    ['celery-beat', 'configurable-http-proxy', 'jupyterhub-hub', 'kube-arangodb-single-mode', 'quickwit-control-plane', 'quickwit-janitor', 'sonarqube-standalone', 'yunikorn-scheduler', 'zammad-singleton'],
  );
  expect(sv.filter((e: CatalogEntry) => e.overlap === undefined).map((e: CatalogEntry) => e.id).sort()).toEqual(
    ['flux-source-controller', 'flux-source-watcher', 'kibana', 'longhorn-manager', 'nextcloud', 'sonarqube-dce-app'],
  );
});

describe('programs that must not run two at once (standalone SonarQube, told apart from the Data Center Edition by the tag; review round 34, report p47 items A and B)', () => {
  const sq = (image: string) => deployment(`{name: sonarqube, image: '${image}', ports: [{name: http, containerPort: 9000}]}`);
  test.each([
    ['sonarqube:26.7.0.124771-community'],
    ['sonarqube:25.10.0.114319-community'],
    ['sonarqube:community'],
    ['sonarqube:lts-community'],
    ['sonarqube:9.9-community'],
    ['sonarqube:2026.4.0-developer'],
    ['sonarqube:2025.4-lta-developer'],
    ['sonarqube:2025-lta-enterprise'],
    ['sonarqube:enterprise'],
    ['sonarqube'],
    ['sonarqube:latest'],
    ['sonarqube:lts'],
    ['docker.io/library/sonarqube:2025.5.0-enterprise'],
    ['registry.example.com/mirror/sonarqube:community@sha256:00'],
  ])('%s matches', (image) => {
    const hit = singleVersionProgram(sq(image));
    expect([hit?.entry.id, hit?.container.name]).toEqual(['sonarqube-standalone', 'sonarqube']);
  });
  test.each([['sonarqube:2026.4.0-datacenter-app', 'sonarqube-dce-app'], ['sonarqube:datacenter-app', 'sonarqube-dce-app']])('%s is the DCE application node (%s)', (image, id) =>
    expect(singleVersionProgram(sq(image))?.entry.id).toBe(id),
  );
  test.each([['sonarqube:2026.4.0-datacenter-search'], ['sonarqube:datacenter-search'], ['sonarqube@sha256:00'], ['example.com/sonarqube-proxy:community'], ['sonarsource/sonar-scanner-cli:latest']])('%s does not match', (image) =>
    expect(singleVersionProgram(sq(image))).toBeUndefined(),
  );
});

describe('programs that must not run two at once (Zammad websocket server and background worker, told apart by the command; review round 34, report p52 item 1)', () => {
  const z = (command: string[] | undefined, image = 'ghcr.io/zammad/zammad:7.1.2-0013', args?: string[]) =>
    deployment(JSON.stringify({ name: 'zammad', image, ...(command ? { command } : {}), ...(args ? { args } : {}) }));
  test.each([
    [['bundle', 'exec', 'script/websocket-server.rb', '-b', '::', '-p', '6042', 'start'], undefined],
    [['bundle', 'exec', 'script/background-worker.rb', 'start'], undefined],
    [['bundle', 'exec', 'script/scheduler.rb', 'start'], undefined],
    [['/opt/zammad/script/websocket-server.rb', 'start'], undefined],
    [undefined, ['zammad-websocket']],
    [undefined, ['zammad-scheduler']],
    [['/docker-entrypoint.sh', 'zammad-scheduler'], undefined],
  ])('%j %j matches', (command, args) => expect(singleVersionProgram(z(command as string[] | undefined, undefined, args as string[] | undefined))?.entry.id).toBe('zammad-singleton'));
  test.each([
    ['zammad/zammad-docker-compose:6.5.0', ['bundle', 'exec', 'script/websocket-server.rb', 'start']],
    ['zammad/zammad:5.4.1', ['bundle', 'exec', 'script/scheduler.rb', 'start']],
  ])('%s %j matches', (image, command) => expect(singleVersionProgram(z(command, image))?.entry.id).toBe('zammad-singleton'));
  // The same image runs the scalable processes: never the image alone.
  test.each([
    [undefined, undefined],
    [['bundle', 'exec', 'puma', '-b', 'tcp://[::]:3000', '-w', '0'], undefined],
    [['/usr/sbin/nginx', '-g', 'daemon off;'], undefined],
    [undefined, ['zammad-railsserver']],
    [undefined, ['zammad-nginx']],
    [undefined, ['zammad-init']],
    [['bundle', 'exec', 'rails', 'r', 'puts script/websocket-server.rbx'], undefined],
  ])('%j %j does not match', (command, args) => expect(singleVersionProgram(z(command as string[] | undefined, undefined, args as string[] | undefined))).toBeUndefined());
  test('another image running a script of that name does not match', () =>
    expect(singleVersionProgram(z(['bundle', 'exec', 'script/websocket-server.rb', 'start'], 'example/zammad-fork:1'))).toBeUndefined());
});

describe('serves after SIGTERM for a time fixed in the program (Knative activator, knative.dev/pkg webhooks, Langfuse web)', () => {
  const c = (image: string) => ({ image }) as unknown as JsonObject;
  const DIGEST = '@sha256:0b9a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665';
  test.each([
    [`gcr.io/knative-releases/knative.dev/serving/cmd/activator${DIGEST}`, 'knative-activator', 45, 'fixed in the program'],
    ['gcr.io/knative-releases/knative.dev/serving/cmd/activator:v1.15.0', 'knative-activator', 45, 'fixed in the program'],
    [`gcr.io/knative-releases/knative.dev/serving/cmd/webhook${DIGEST}`, 'knative-serving-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    [`ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/webhook:v1.3.0${DIGEST}`, 'tekton-pipeline-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    ['gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/webhook:v0.50.0', 'tekton-pipeline-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    // ko's default names (review round 35, report p54 item 1): Tekton's releases, a Knative mirror.
    [`ghcr.io/tektoncd/pipeline/webhook-d4749e605405422fd87700164e31b2d1:v1.9.1${DIGEST}`, 'tekton-pipeline-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    ['registry.example.com/mirror/webhook-261c6506fca17bc41be50b3461f98f1c:v1.15.0', 'knative-serving-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    ['registry.example.com/mirror/activator-ecd51ca5034883acbe737fde417a3d86:v1.15.0', 'knative-activator', 45, 'fixed in the program'],
    // Tekton Triggers' webhook, the same drainer (review round 35, report p54 item 2).
    ['ghcr.io/tektoncd/triggers/webhook-dd1edc925ee1772a9f76e2c1bc291ef6:v0.36.0', 'tekton-triggers-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    ['ghcr.io/tektoncd/triggers/github.com/tektoncd/triggers/cmd/webhook:v0.37.0', 'tekton-triggers-webhook', 45, 'a quiet period of 45s that each request restarts, fixed in the program'],
    ['docker.langfuse.com/langfuse/langfuse:4.4.0', 'langfuse-web', 110, 'fixed in the program'],
    ['langfuse/langfuse:3', 'langfuse-web', 110, 'fixed in the program'],
    ['ghcr.io/langfuse/langfuse:v2.81.0', 'langfuse-web', 110, 'fixed in the program'],
  ])('%s: %s, %ss (%s)', (image, id, seconds, derivation) => {
    const r = builtinCatalog().servesAfterSigterm(c(image));
    expect([r?.entry.id, r?.seconds, r?.derivation]).toEqual([id, seconds, derivation]);
  });
  test.each([
    [`gcr.io/knative-releases/knative.dev/serving/cmd/autoscaler${DIGEST}`],
    [`gcr.io/knative-releases/knative.dev/serving/cmd/controller${DIGEST}`],
    [`gcr.io/knative-releases/knative.dev/eventing/cmd/webhook${DIGEST}`],
    [`ghcr.io/tektoncd/pipeline/github.com/tektoncd/pipeline/cmd/controller:v1.3.0`],
    ['ghcr.io/tektoncd/pipeline/controller-10a3e32792f33651396d02b6855a6e36:v1.9.1'],
    ['ghcr.io/tektoncd/pipeline/webhook:v1.9.1'],
    ['ghcr.io/tektoncd/triggers/interceptors-3176d6a3f314c3655b30bfd36e421dd5:v0.36.0'],
    ['ghcr.io/tektoncd/triggers/controller-f656ca31de179ab913fa76abc255c315:v0.36.0'],
    ['ghcr.io/tektoncd/pipeline/webhook-d4749e605405422fd87700164e31b2d1x:v1.9.1'],
    ['ghcr.io/tektoncd/pipeline/webhook-00000000000000000000000000000000:v1.9.1'],
    ['example/activator:1'],
    ['docker.langfuse.com/langfuse/langfuse-worker:4.4.0'],
    ['langfuse/langfuse:2.80.0'],
  ])('%s is not matched', (image) => expect(builtinCatalog().servesAfterSigterm(c(image))).toBeUndefined());
  test("ko's default image name: <last element>-<md5 of the import path> (ko-build/ko pkg/commands/options/publish.go packageWithMD5)", () => {
    // `echo -n github.com/tektoncd/pipeline/cmd/webhook | md5sum` = d4749e60..., as Tekton's release images are named.
    expect(koDefaultImageName('github.com/tektoncd/pipeline/cmd/webhook')).toBe('webhook-d4749e605405422fd87700164e31b2d1');
    expect(koDefaultImageName('github.com/tektoncd/triggers/cmd/webhook')).toBe('webhook-dd1edc925ee1772a9f76e2c1bc291ef6');
    expect(imageGlobVariants('*/github.com/tektoncd/pipeline/cmd/webhook')).toEqual(['*/github.com/tektoncd/pipeline/cmd/webhook', '*/webhook-d4749e605405422fd87700164e31b2d1']);
    // Not an import path (no domain first), or another wildcard: the glob alone.
    for (const g of ['*/traefik', '*/kyverno/kyverno', '*/prometheus/*-exporter', 'docker.io/library/nginx', '*/bitnami/*']) expect(imageGlobVariants(g)).toEqual([g]);
  });
  test('no setting to advise: the time is not configurable', () => {
    expect(builtinCatalog().servesAfterSigtermSetting(c(`gcr.io/knative-releases/knative.dev/serving/cmd/activator${DIGEST}`), 60)).toBeUndefined();
  });
  test('a fixed time is seconds (and an optional bound) only: mixed with a per-listener or config-file spec, or a bad bound, it is rejected', () => {
    const i = (shippedDoc().entries as JsonObject[]).findIndex((e) => e.id === 'knative-activator');
    for (const extraField of [{ listener: '^--x=(?<name>.*)$' }, { file: { default: 'conf' } }, { bound: 'about' }, { seconds: -1 }]) {
      const d = shippedDoc();
      Object.assign((d.entries as JsonObject[])[i].servesAfterSigterm as JsonObject, extraField);
      expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
    }
  });
  test('a policy can add a fixed-time entry', () => {
    const cat = builtinCatalog().withOverride(
      parseCatalogOverride({
        add: [{ id: 'acme-proxy', kind: 'serves-after-sigterm', title: 'ACME proxy', match: { images: ['*/acme/proxy'] }, servesAfterSigterm: { seconds: 12 }, why: 'sleeps 12s after SIGTERM before closing its listener', source: ['acme/proxy main.go (shutdown)'] }],
      }),
    );
    expect(cat.servesAfterSigterm(c('acme/proxy:3'))).toMatchObject({ seconds: 12, derivation: 'fixed in the program' });
  });
});

describe('serves after SIGTERM for a time fixed in the program (Percona XtraDB Cluster operator)', () => {
  const c = (image: string, command?: string[]) => ({ image, ...(command ? { command } : {}) }) as unknown as JsonObject;
  const OP = ['percona-xtradb-cluster-operator'];
  test.each([
    ['percona/percona-xtradb-cluster-operator:1.18.0', OP],
    ['docker.io/percona/percona-xtradb-cluster-operator:v1.7.0', OP],
    ['perconalab/percona-xtradb-cluster-operator:main', OP],
    ['percona/percona-xtradb-cluster-operator@sha256:0b9a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665', ['/usr/local/bin/percona-xtradb-cluster-operator']],
  ])('%s %j: at least 5s (stop() sleeps 5s, then waits for cluster finalizers)', (image, command) => {
    const r = builtinCatalog().servesAfterSigterm(c(image, command));
    expect([r?.entry.id, r?.seconds, r?.derivation]).toEqual(['percona-xtradb-cluster-operator', 5, 'at least that long, fixed in the program']);
  });
  test.each([
    ['before 1.7.0 mgr.Start took the signal handler itself', 'percona/percona-xtradb-cluster-operator:1.6.0', OP],
    ['HAProxy from the same repository', 'percona/percona-xtradb-cluster-operator:1.10.0-haproxy', ['/opt/percona/haproxy-entrypoint.sh']],
    ['ProxySQL from the same repository', 'percona/percona-xtradb-cluster-operator:1.10.0-proxysql', ['/entrypoint.sh']],
    ['the operator image as the PXC init container', 'percona/percona-xtradb-cluster-operator:1.18.0', ['/pxc-init-entrypoint.sh']],
    ['no command (the image has no ENTRYPOINT: not the operator as deployed)', 'percona/percona-xtradb-cluster-operator:1.18.0', undefined],
    ['the Percona Server for MySQL operator: no delay', 'percona/percona-server-mysql-operator:1.1.0', ['/usr/local/bin/percona-server-mysql-operator']],
    ['the Percona Server for MongoDB operator: no delay', 'percona/percona-server-mongodb-operator:1.22.0', ['percona-server-mongodb-operator']],
    ['the Percona PostgreSQL operator: no delay', 'percona/percona-postgresql-operator:2.8.0', ['/usr/local/bin/postgres-operator']],
  ])('not matched: %s', (_why, image, command) => expect(builtinCatalog().servesAfterSigterm(c(image, command))).toBeUndefined());
  test('no setting to advise: the 5s is a constant', () => {
    expect(builtinCatalog().servesAfterSigtermSetting(c('percona/percona-xtradb-cluster-operator:1.18.0', OP), 10)).toBeUndefined();
  });
});

describe('serves after SIGTERM from one flag (Skipper -wait-for-healthcheck-interval)', () => {
  const c = (image: string, args?: string[], command?: string[]) => ({ image, ...(args ? { args } : {}), ...(command ? { command } : {}) }) as unknown as JsonObject;
  const IMAGE = 'registry.opensource.zalan.do/teapot/skipper:v0.22.170';
  const ARGS = ['skipper', '-kubernetes', '-kubernetes-in-cluster', '-address=:9999'];
  const fact = (x: JsonObject, readFile?: Parameters<Catalog['servesAfterSigterm']>[1]) => {
    const r = builtinCatalog().servesAfterSigterm(x, readFile);
    return [r?.entry.id, r?.seconds, r?.derivation];
  };
  test.each([
    [IMAGE, ARGS, undefined],
    ['ghcr.io/zalando/skipper:v0.24.1', ARGS, undefined],
    ['container-registry.zalando.net/teapot/skipper:v0.21.0', ARGS, undefined],
    ['registry.opensource.zalan.do/teapot/skipper-arm64:v0.22.170', ARGS, undefined],
    // The image's CMD is /usr/bin/skipper: no command and no args run skipper too.
    [IMAGE, undefined, undefined],
    [IMAGE, ['-kubernetes'], ['/usr/bin/skipper']],
  ])('%s %j %j: the default 45s', (image, args, command) => expect(fact(c(image, args, command))).toEqual(['skipper-wait-for-healthcheck', 45, '-wait-for-healthcheck-interval not set, default 45s']));
  test('the flag in any form Go reads, as a Go duration', () => {
    expect(fact(c(IMAGE, [...ARGS, '-wait-for-healthcheck-interval=10s']))).toEqual(['skipper-wait-for-healthcheck', 10, '-wait-for-healthcheck-interval=10s']);
    expect(fact(c(IMAGE, [...ARGS, '--wait-for-healthcheck-interval', '1m30s']))[1]).toBe(90);
    expect(fact(c(IMAGE, [...ARGS, '-wait-for-healthcheck-interval=0']))[1]).toBe(0);
    expect(fact(c(IMAGE, [...ARGS, '-wait-for-healthcheck-interval=soon']))).toEqual(['skipper-wait-for-healthcheck', undefined, '-wait-for-healthcheck-interval=soon is not a duration']);
  });
  test('-config-file: its wait-for-healthcheck-interval when the input holds it; the flag wins; unknown when the file is not there', () => {
    const files =
      (text: string) =>
      (p: string): { text: string; where: string } | { missing: string } =>
        p === '/etc/skipper/config.yaml' ? { text, where: `${p} (ConfigMap kube-system/skipper-config, key config.yaml)` } : { missing: `no volume is mounted at ${p}` };
    const withFile = c(IMAGE, [...ARGS, '-config-file=/etc/skipper/config.yaml']);
    expect(fact(withFile, files('kubernetes: true\nwait-for-healthcheck-interval: "20s" # LB health check\n'))).toEqual([
      'skipper-wait-for-healthcheck',
      20,
      'wait-for-healthcheck-interval: "20s" in /etc/skipper/config.yaml (ConfigMap kube-system/skipper-config, key config.yaml)',
    ]);
    expect(fact(withFile, files('kubernetes: true\n# wait-for-healthcheck-interval: 5s\n'))).toEqual([
      'skipper-wait-for-healthcheck',
      45,
      '-wait-for-healthcheck-interval not set, default 45s (/etc/skipper/config.yaml (ConfigMap kube-system/skipper-config, key config.yaml) sets none)',
    ]);
    expect(fact(c(IMAGE, [...ARGS, '-config-file=/etc/skipper/config.yaml', '-wait-for-healthcheck-interval=5s']), files('wait-for-healthcheck-interval: 20s\n'))[1]).toBe(5);
    const missing = builtinCatalog().servesAfterSigterm(c(IMAGE, [...ARGS, '-config-file', '/cfg/skipper.yaml']), files(''));
    expect([missing?.seconds, missing?.file]).toEqual([undefined, { path: '/cfg/skipper.yaml', missing: 'no volume is mounted at /cfg/skipper.yaml' }]);
  });
  test.each([
    ['before v0.10.185 skipper stopped at SIGTERM (#988 added the wait)', 'registry.opensource.zalan.do/teapot/skipper:v0.10.180', ARGS],
    ["the skipper image's webhook binary", IMAGE, ['webhook', '--address=:9085']],
    ["the skipper image's routesrv binary", IMAGE, ['routesrv', '-kubernetes']],
    ['another image named skipper', 'example.com/acme/skipper:1', ARGS],
  ])('not matched: %s', (_why, image, args) => expect(builtinCatalog().servesAfterSigterm(c(image, args))).toBeUndefined());
  test("the advice: the program's own flag, where it is short", () => {
    expect(builtinCatalog().servesAfterSigtermSetting(c(IMAGE, [...ARGS, '-wait-for-healthcheck-interval=5s']), 10)?.text).toBe(
      "-wait-for-healthcheck-interval=10s in the container's args (now -wait-for-healthcheck-interval=5s)",
    );
    expect(builtinCatalog().servesAfterSigtermSetting(c(IMAGE, ARGS), 10)).toBeUndefined();
  });
  test('a flag entry with a config file needs a (?<value>) group', () => {
    const d = shippedDoc();
    const i = (d.entries as JsonObject[]).findIndex((e) => e.id === 'skipper-wait-for-healthcheck');
    (((d.entries as JsonObject[])[i].servesAfterSigterm as JsonObject).configFile as JsonObject).value = '^wait-for-healthcheck-interval: (\\S+)';
    expect(() => parseCatalogDocument(d)).toThrow(expect.objectContaining({ pointer: `/entries/${i}/servesAfterSigterm/configFile/value`, message: 'the value regex needs a (?<value>...) group' }));
  });
});

describe('a flag inside a shell script (scriptWords)', () => {
  test.each([
    [['/bin/sh', '-ec', 'exec weed volume'], 'exec weed volume'],
    [['sh', '-c', 'x', 'name', 'arg'], 'x'],
    [['bash', '-xc', 'x'], 'x'],
    [['/usr/bin/dash', '-c', 'x'], 'x'],
  ])('%j is a script', (argv, script) => expect(shellScript(argv)).toBe(script));
  test.each([[['sh', 'script.sh']], [['sh', '-e', 'x']], [['weed', '-c', 'x']], [['/bin/sh', '-c']]])('%j is not', (argv) => expect(shellScript(argv)).toBeUndefined());
  test('continued lines, command separators and quotes', () => {
    expect(scriptWords('exec /usr/bin/weed \\\n  -v=1 \\\r\n  volume -preStopSeconds="5" -ip=${POD_NAME}.x;echo a&&b || c|d \'-x\'')).toEqual([
      'exec', '/usr/bin/weed', '-v=1', 'volume', '-preStopSeconds=5', '-ip=${POD_NAME}.x', 'echo', 'a', 'b', 'c', 'd', '-x',
    ]);
  });
});

describe('serves after SIGTERM from one flag (SeaweedFS volume server -preStopSeconds)', () => {
  const c = (image: string, command?: string[], args?: string[]) => ({ image, ...(command ? { command } : {}), ...(args ? { args } : {}) }) as unknown as JsonObject;
  const IMAGE = 'chrislusf/seaweedfs:4.00';
  const fact = (x: JsonObject) => {
    const r = builtinCatalog().servesAfterSigterm(x);
    return [r?.entry.id, r?.seconds, r?.derivation];
  };
  const ID = 'seaweedfs-volume-prestop-seconds';
  test.each([
    ["the chart's script (continued lines, global flags before volume)", IMAGE, ['/bin/sh', '-ec', weedVolumeScript()], undefined],
    ['weed volume as the command', IMAGE, ['weed', 'volume', '-port=8080'], undefined],
    ['/usr/bin/weed with global flags, args apart', IMAGE, ['/usr/bin/weed'], ['-logtostderr=true', '-v', '2', 'volume', '-dir=/data']],
    ['the image ENTRYPOINT with args [volume, ...]', IMAGE, undefined, ['volume', '-port=8080']],
    ['the ENTRYPOINT named in command', IMAGE, ['/entrypoint.sh'], ['volume']],
    ['another registry', 'registry.example.com/mirror/seaweedfs:3.80', ['weed', 'volume'], undefined],
  ])('%s: the default 10s', (_why, image, command, args) => expect(fact(c(image, command, args))).toEqual([ID, 10, '-preStopSeconds not set, default 10s']));
  test('the flag, in the args or inside the script, in seconds', () => {
    expect(fact(c(IMAGE, ['weed', 'volume', '-preStopSeconds=30']))).toEqual([ID, 30, '-preStopSeconds=30']);
    expect(fact(c(IMAGE, undefined, ['volume', '--preStopSeconds', '0']))).toEqual([ID, 0, '-preStopSeconds=0']);
    expect(fact(c(IMAGE, ['/bin/sh', '-ec', weedVolumeScript(['-preStopSeconds=25'])]))).toEqual([ID, 25, '-preStopSeconds=25']);
    expect(fact(c(IMAGE, ['/bin/sh', '-ec', weedVolumeScript(['-preStopSeconds=10s'])]))).toEqual([ID, undefined, '-preStopSeconds=10s is not a number of seconds']);
  });
  test.each([
    ['weed master', IMAGE, ['/bin/sh', '-ec', 'exec /usr/bin/weed -logtostderr=true master -mdir=/data']],
    ['weed filer', IMAGE, ['weed', 'filer', '-port=8888']],
    ['weed s3', IMAGE, ['weed', 's3']],
    ['weed server runs a master and a filer in the same process', IMAGE, ['weed', 'server', '-dir=/data', '-volume.preStopSeconds=10']],
    ["the chart's Rust volume server", IMAGE, ['/bin/sh', '-ec', 'exec /usr/bin/weed-volume \\\n  -port=8080 \\\n']],
    ["the image's default CMD (weed mini)", IMAGE, undefined],
    ['another image running a volume', 'example.com/acme/storage:1', ['weed', 'volume']],
  ])('not matched: %s', (_why, image, command) => expect(builtinCatalog().servesAfterSigterm(c(image, command))).toBeUndefined());
  test("the advice: the flag, placed in the script when a shell runs the program", () => {
    expect(builtinCatalog().servesAfterSigtermSetting(c(IMAGE, ['/bin/sh', '-ec', weedVolumeScript(['-preStopSeconds=0'])]), 10)?.text).toBe(
      "-preStopSeconds=10 in the container's shell script, on the program's command line (now -preStopSeconds=0)",
    );
    expect(builtinCatalog().servesAfterSigtermSetting(c(IMAGE, ['weed', 'volume', '-preStopSeconds=5']), 10)?.text).toBe("-preStopSeconds=10 in the container's args (now -preStopSeconds=5)");
    expect(builtinCatalog().servesAfterSigtermSetting(c(IMAGE, ['/bin/sh', '-ec', weedVolumeScript()]), 10)).toBeUndefined();
  });
});

describe('serves after SIGTERM from one flag (VictoriaMetrics -http.shutdownDelay)', () => {
  const c = (image: string, args?: string[]) => ({ image, ...(args ? { args } : {}) }) as unknown as JsonObject;
  const fact = (x: JsonObject) => {
    const r = builtinCatalog().servesAfterSigterm(x);
    return [r?.entry.id, r?.seconds, r?.derivation];
  };
  const ID = 'victoriametrics-http-shutdown-delay';
  test.each([
    'victoriametrics/victoria-metrics:v1.150.0',
    'victoriametrics/vmagent:v1.150.0',
    'victoriametrics/vmalert:v1.150.0',
    'victoriametrics/vmauth:v1.150.0',
    'victoriametrics/vminsert:v1.150.0-cluster',
    'victoriametrics/vmselect:v1.150.0-cluster',
    'quay.io/victoriametrics/vmstorage:v1.150.0-cluster',
    'docker.io/victoriametrics/vminsert:v1.35.3-cluster',
    'victoriametrics/vmagent:latest',
  ])('%s without the flag: the default 0s', (image) => expect(fact(c(image, ['--httpListenAddr=:8480']))).toEqual([ID, 0, '-http.shutdownDelay not set, default 0s']));
  test('the flag with one dash or two, = or a separate value, as a Go duration', () => {
    const image = 'victoriametrics/vminsert:v1.150.0-cluster';
    expect(fact(c(image, ['--http.shutdownDelay=15s']))).toEqual([ID, 15, '-http.shutdownDelay=15s']);
    expect(fact(c(image, ['-http.shutdownDelay=1m']))[1]).toBe(60);
    expect(fact(c(image, ['-http.shutdownDelay', '500ms']))[1]).toBe(0.5);
    expect(fact(c(image, ['--http.shutdownDelay=soon']))).toEqual([ID, undefined, '-http.shutdownDelay=soon is not a duration']);
  });
  test.each([
    ['before v1.35.3 there was no delay', 'victoriametrics/vminsert:v1.35.2-cluster'],
    ['vmbackup serves no traffic to keep', 'victoriametrics/vmbackup:v1.150.0'],
    ['another image named vminsert', 'example.com/acme/vminsert:v1.150.0'],
  ])('not matched: %s', (_why, image) => expect(builtinCatalog().servesAfterSigterm(c(image, ['--http.shutdownDelay=15s']))).toBeUndefined());
  // Review round 19: VictoriaLogs has the same lib/httpserver (its own entry, no minVersion).
  test('VictoriaLogs images: entry victorialogs-http-shutdown-delay', () => {
    expect(builtinCatalog().servesAfterSigterm(c('victoriametrics/victoria-logs:v1.30.0', ['--http.shutdownDelay=15s']))).toMatchObject({ entry: { id: 'victorialogs-http-shutdown-delay' }, seconds: 15 });
  });
  test("the advice: the flag, where it is short", () => {
    expect(builtinCatalog().servesAfterSigtermSetting(c('victoriametrics/vmselect:v1.150.0-cluster', ['--dedup.minScrapeInterval=1ms']), 10)?.text).toBe(
      "-http.shutdownDelay=10s in the container's args (now -http.shutdownDelay not set, default 0s)",
    );
    expect(builtinCatalog().servesAfterSigtermSetting(c('victoriametrics/vmselect:v1.150.0-cluster', ['--http.shutdownDelay=30s']), 10)).toBeUndefined();
  });
});

describe('serves after SIGTERM from an environment variable (KEDA HTTP add-on interceptor)', () => {
  const c = (image: string, env?: string, envFrom?: string) => yaml.load(`{image: '${image}'${env ? `, env: ${env}` : ''}${envFrom ? `, envFrom: ${envFrom}` : ''}}`) as JsonObject;
  const KO = 'ko://github.com/kedacore/http-add-on/interceptor';
  const cat = () => builtinCatalog();
  test.each([
    [KO, undefined, undefined, 5, 'KEDA_HTTP_SHUTDOWN_DELAY unset, default 5s'],
    ['ghcr.io/kedacore/http-add-on-interceptor:0.15.0', '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "5s"}]', undefined, 5, 'KEDA_HTTP_SHUTDOWN_DELAY=5s'],
    ['ghcr.io/kedacore/http-add-on-interceptor:0.15.0', '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "1m30s"}]', undefined, 90, 'KEDA_HTTP_SHUTDOWN_DELAY=1m30s'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: ""}]', undefined, 5, 'KEDA_HTTP_SHUTDOWN_DELAY empty, default 5s'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY}]', undefined, 5, 'KEDA_HTTP_SHUTDOWN_DELAY empty, default 5s'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: 10s}, {name: KEDA_HTTP_SHUTDOWN_DELAY, value: 0s}]', undefined, 0, 'KEDA_HTTP_SHUTDOWN_DELAY=0s'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, valueFrom: {secretKeyRef: {name: s, key: k}}}]', undefined, undefined, 'KEDA_HTTP_SHUTDOWN_DELAY is set from Secret s, key k (not read)'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "$(DELAY)"}]', undefined, undefined, 'KEDA_HTTP_SHUTDOWN_DELAY=$(DELAY) refers to another variable (not read)'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: soon}]', undefined, undefined, 'KEDA_HTTP_SHUTDOWN_DELAY=soon is not a duration'],
    [KO, undefined, '[{secretRef: {name: keda-env}}]', undefined, 'KEDA_HTTP_SHUTDOWN_DELAY is not in env, and envFrom (Secret keda-env) may set it (not read)'],
    [KO, undefined, '[{prefix: KEDA_HTTP_, configMapRef: {name: keda-env}}]', undefined, 'KEDA_HTTP_SHUTDOWN_DELAY is not in env, and envFrom (ConfigMap keda-env) may set it (not read)'],
    [KO, undefined, '[{prefix: APP_, configMapRef: {name: app-env}}]', 5, 'KEDA_HTTP_SHUTDOWN_DELAY unset, default 5s'],
    [KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: 7s}]', '[{configMapRef: {name: keda-env}}]', 7, 'KEDA_HTTP_SHUTDOWN_DELAY=7s'],
  ])('%s env %s envFrom %s: %ss (%s)', (image, env, envFrom, seconds, derivation) => {
    const r = cat().servesAfterSigterm(c(image, env, envFrom));
    expect([r?.entry.id, r?.seconds, r?.derivation]).toEqual(['keda-http-interceptor', seconds, derivation]);
  });
  test.each([
    [undefined, 30, 'KEDA_HTTP_DRAIN_TIMEOUT unset, default 30s'],
    ['[{name: KEDA_HTTP_DRAIN_TIMEOUT, value: 45s}]', 45, 'KEDA_HTTP_DRAIN_TIMEOUT=45s'],
    ['[{name: KEDA_HTTP_DRAIN_TIMEOUT, value: "0"}]', undefined, 'KEDA_HTTP_DRAIN_TIMEOUT=0: no limit'],
    ['[{name: KEDA_HTTP_DRAIN_TIMEOUT, value: 0s}]', undefined, 'KEDA_HTTP_DRAIN_TIMEOUT=0s: no limit'],
  ])('drain, env %s: %ss (%s)', (env, seconds, derivation) => {
    const r = cat().drainSeconds(c(KO, env));
    expect([r?.entry.id, r?.seconds, r?.derivation]).toEqual(['keda-http-interceptor', seconds, derivation]);
  });
  test.each([
    ['ghcr.io/kedacore/http-add-on-interceptor:0.15.0', true],
    ['ghcr.io/kedacore/http-add-on-interceptor:v0.16.1@sha256:0b9a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665', true],
    ['ghcr.io/kedacore/http-add-on-interceptor:1.0.0', true],
    ['ghcr.io/kedacore/http-add-on-interceptor:latest', true],
    ['ghcr.io/kedacore/http-add-on-interceptor:59b2f6a', true],
    ['ghcr.io/kedacore/http-add-on-interceptor@sha256:0b9a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665', true],
    [KO, true],
    ['ghcr.io/kedacore/http-add-on-interceptor:0.14.0', false],
    ['ghcr.io/kedacore/http-add-on-interceptor:v0.8.0', false],
    ['ghcr.io/kedacore/http-add-on-scaler:0.15.0', false],
    ['ghcr.io/kedacore/http-add-on-operator:0.15.0', false],
  ])('%s matches: %s (delay and drain since 0.15.0)', (image, matched) => {
    expect(cat().servesAfterSigterm(c(image))?.entry.id === 'keda-http-interceptor').toBe(matched);
    expect(cat().drainSeconds(c(image))?.entry.id === 'keda-http-interceptor').toBe(matched);
  });
  test.each([
    ['registry:5000/app:1.2.3-alpine', [1, 2, 3]],
    ['app:v10.0.1', [10, 0, 1]],
    ['app:1.2', undefined],
    ['app', undefined],
    ['registry:5000/app', undefined],
    ['app:latest@sha256:00', undefined],
  ])('imageVersion(%s) = %j', (image, v) => expect(imageVersion(image)).toEqual(v));
  test('advice: the variable (and the chart value) where it is short or unknown; nothing where it is long enough', () => {
    expect(cat().servesAfterSigtermSetting(c(KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: 0s}]'), 10)?.text).toBe(
      'env {name: KEDA_HTTP_SHUTDOWN_DELAY, value: "10s"} in the container (chart value interceptor.shutdownDelay: 10s; now KEDA_HTTP_SHUTDOWN_DELAY=0s)',
    );
    expect(cat().servesAfterSigtermSetting(c(KO), 10)?.text).toContain('now KEDA_HTTP_SHUTDOWN_DELAY unset, default 5s');
    expect(cat().servesAfterSigtermSetting(c(KO, '[{name: KEDA_HTTP_SHUTDOWN_DELAY, value: 15s}]'), 10)).toBeUndefined();
  });
  test('an env spec is env, unit and default (zero, chartValue optional): mixed with another form, or a bad zero, it is rejected', () => {
    const i = (shippedDoc().entries as JsonObject[]).findIndex((e) => e.id === 'keda-http-interceptor');
    for (const [key, extraField] of [
      ['servesAfterSigterm', { listener: '^--x=(?<name>.*)$' }],
      ['servesAfterSigterm', { seconds: 5 }],
      ['servesAfterSigterm', { env: 'BAD NAME' }],
      ['drain', { zero: 'forever' }],
      ['drain', { file: { default: 'conf' } }],
    ] as [string, JsonObject][]) {
      const d = shippedDoc();
      Object.assign((d.entries as JsonObject[])[i][key] as JsonObject, extraField);
      expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
    }
    const d = shippedDoc();
    ((d.entries as JsonObject[])[i].match as JsonObject).minVersion = '0.15';
    expect(() => parseCatalogDocument(d)).toThrow(CatalogError);
  });
  test('a policy can add an env entry with a minimum version', () => {
    const added = builtinCatalog().withOverride(
      parseCatalogOverride({
        add: [
          {
            id: 'acme-proxy-env',
            kind: 'serves-after-sigterm',
            title: 'ACME proxy',
            match: { images: ['*/acme/proxy'], minVersion: '2.0.0' },
            servesAfterSigterm: { env: 'ACME_LAME_DUCK', unit: 'seconds', default: 8 },
            why: 'sleeps ACME_LAME_DUCK seconds after SIGTERM before closing its listener',
            source: ['acme/proxy main.go (shutdown)'],
          },
        ],
      }),
    );
    expect(added.servesAfterSigterm(c('acme/proxy:2.1.0', '[{name: ACME_LAME_DUCK, value: "12"}]'))).toMatchObject({ seconds: 12, derivation: 'ACME_LAME_DUCK=12' });
    expect(added.servesAfterSigterm(c('acme/proxy:1.9.9'))).toBeUndefined();
  });
});

// Review round 24 (camunda-platform chart): the standalone gateway's gRPC drain is the Spring
// shutdown-phase timeout, which the catalog does not read (a drain of kind unreadSetting).
describe('drain from a setting the catalog does not read (Zeebe standalone gateway)', () => {
  const c = (o: string): JsonObject => yaml.load(o) as JsonObject;
  const gw = (image: string, ports = '[{name: gateway, containerPort: 26500}, {name: http, containerPort: 9600}]') =>
    c(`{image: '${image}', env: [{name: ZEEBE_STANDALONE_GATEWAY, value: "true"}], ports: ${ports}}`);
  test('the gateway: accepts 0s after SIGTERM, drains the default 30s', () => {
    expect(builtinCatalog().servesAfterSigterm(gw('camunda/zeebe:8.7.37'))).toMatchObject({ entry: { id: 'zeebe-standalone-gateway' }, seconds: 0 });
    const d = builtinCatalog().drainSeconds(gw('docker.io/camunda/zeebe:8.7.37'));
    expect([d?.entry.id, d?.seconds, d?.derivation]).toEqual(['zeebe-standalone-gateway', 30, 'spring.lifecycle.timeout-per-shutdown-phase not read, default 30s']);
  });
  test.each([
    ['the broker of the chart (ports 9600, 26501, 26502)', 'camunda/zeebe:8.7.37', '[{name: http, containerPort: 9600}, {name: command, containerPort: 26501}, {name: internal, containerPort: 26502}]'],
    ['another image with port 26500', 'example.com/acme/gateway:1.0.0', '[{name: gateway, containerPort: 26500}]'],
    ['no ports declared', 'camunda/zeebe:8.7.37', '[]'],
  ])('not matched: %s', (_why, image, ports) => {
    expect(builtinCatalog().drainSeconds(gw(image, ports))).toBeUndefined();
    expect(builtinCatalog().servesAfterSigterm(gw(image, ports))).toBeUndefined();
  });
  test('the schema takes {setting, default} as a drain, and not without the default', () => {
    const doc = shippedDoc();
    const i = (doc.entries as JsonObject[]).findIndex((e) => e.id === 'zeebe-standalone-gateway');
    expect(() => parseCatalogDocument(doc)).not.toThrow();
    const bad = JSON.parse(JSON.stringify(doc)) as JsonObject;
    delete ((bad.entries as JsonObject[])[i].drain as JsonObject).default;
    let pointer = '';
    try {
      parseCatalogDocument(bad);
    } catch (e) {
      pointer = (e as CatalogError).pointer;
    }
    expect(pointer).toMatch(new RegExp(`^/entries/${i}/drain`));
  });
});

// Review round 24 (netbox chart): RQ's warm shutdown waits for the running job, bounded by its
// timeout, NetBox's RQ_DEFAULT_TIMEOUT (read from env as netbox-docker's configuration.py does).
describe('drain from an environment variable in seconds (NetBox rqworker, RQ_DEFAULT_TIMEOUT)', () => {
  const c = (command: string, env?: string, image = 'ghcr.io/netbox-community/netbox:v4.6.8'): JsonObject =>
    yaml.load(`{image: '${image}', command: ${command}${env ? `, env: ${env}` : ''}}`) as JsonObject;
  const WORKER = '[/opt/netbox/venv/bin/python, /opt/netbox/netbox/manage.py, rqworker]';
  test.each([
    [undefined, 300, 'RQ_DEFAULT_TIMEOUT unset, default 300s'],
    ['[{name: RQ_DEFAULT_TIMEOUT, value: "900"}]', 900, 'RQ_DEFAULT_TIMEOUT=900'],
    ['[{name: RQ_DEFAULT_TIMEOUT, valueFrom: {configMapKeyRef: {name: netbox, key: timeout}}}]', undefined, 'RQ_DEFAULT_TIMEOUT is set from ConfigMap netbox, key timeout (not read)'],
  ])('env %s: %ss (%s)', (env, seconds, derivation) => {
    const d = builtinCatalog().drainSeconds(c(WORKER, env));
    expect([d?.entry.id, d?.seconds, d?.derivation]).toEqual(['netbox-rqworker', seconds, derivation]);
    expect(builtinCatalog().servesAfterSigterm(c(WORKER, env))).toMatchObject({ entry: { id: 'netbox-rqworker' }, seconds: 0 });
  });
  test('netbox-docker images and its compose command match', () => {
    expect(builtinCatalog().drainSeconds(c(WORKER, undefined, 'docker.io/netboxcommunity/netbox:v4.6.8'))?.entry.id).toBe('netbox-rqworker');
    expect(builtinCatalog().drainSeconds(c('[python, manage.py, rqworker, high, default, low]'))?.entry.id).toBe('netbox-rqworker');
  });
  test.each([
    ['the web container (no command)', '[]'],
    ['housekeeping', '[/opt/netbox/housekeeping.sh]'],
    ['another manage.py command', '[/opt/netbox/venv/bin/python, /opt/netbox/netbox/manage.py, rqworker_status]'],
  ])('not matched: %s', (_why, command) => expect(builtinCatalog().drainSeconds(c(command))).toBeUndefined());
  test('another image running rqworker: not matched', () => {
    expect(builtinCatalog().drainSeconds(c(WORKER, undefined, 'example.com/acme/app:1.0.0'))).toBeUndefined();
  });
});

describe('serves after SIGTERM from an environment variable in seconds (Tyk Gateway graceful_shutdown_delay_seconds)', () => {
  const c = (image: string, env?: string) => yaml.load(`{image: '${image}'${env ? `, env: ${env}` : ''}}`) as JsonObject;
  const IMAGE = 'docker.tyk.io/tyk-gateway/tyk-gateway:v5.14.0';
  const cat = () => builtinCatalog();
  test.each([
    [IMAGE, undefined, 0, 'TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS unset, default 0s'],
    [IMAGE, '[{name: TYK_GW_LISTENPORT, value: "8080"}, {name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "15"}]', 15, 'TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS=15'],
    ['tykio/tyk-gateway:v5.15.0', '[{name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "0"}]', 0, 'TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS=0'],
    ['tykio/tyk-gateway-ee:v5.14.0', '[{name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "20"}]', 20, 'TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS=20'],
    // An int of seconds: a Go duration is not what the gateway reads (envconfig fails on it).
    [IMAGE, '[{name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: 15s}]', undefined, 'TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS=15s is not a number of seconds'],
  ])('%s env %s: %ss (%s)', (image, env, seconds, derivation) => {
    const r = cat().servesAfterSigterm(c(image, env));
    expect([r?.entry.id, r?.seconds, r?.derivation]).toEqual(['tyk-gateway-shutdown-delay', seconds, derivation]);
  });
  test.each([
    ['docker.tyk.io/tyk-gateway/tyk-gateway:v5.13.1'],
    ['tykio/tyk-gateway:v5.8.15'],
    ['tykio/tyk-pump-docker-pub:v1.13.0'],
    ['docker.tyk.io/tyk-dashboard/tyk-dashboard:v5.14.0'],
  ])('%s is not matched (the delay is in v5.14.0 and later gateways only)', (image) => expect(cat().servesAfterSigterm(c(image))).toBeUndefined());
  test('advice: the variable in seconds where it is 0 or short; nothing where it is long enough; no drain of its own is read', () => {
    expect(cat().servesAfterSigtermSetting(c(IMAGE), 10)?.text).toBe('env {name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "10"} in the container (now TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS unset, default 0s)');
    expect(cat().servesAfterSigtermSetting(c(IMAGE, '[{name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "15"}]'), 10)).toBeUndefined();
    expect(cat().drainSeconds(c(IMAGE))).toBeUndefined();
  });
});

describe('process-local probes', () => {
  const probe = (p: string) => yaml.load(p) as JsonObject;
  const c = (o: string) => yaml.load(o) as JsonObject;
  test.each([
    ["{image: 'otel/opentelemetry-collector-contrib:0.139.0'}", '{httpGet: {path: /, port: 13133}}', true],
    ["{image: 'ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-k8s:0.139.0'}", '{httpGet: {path: /, port: 13133}}', true],
    ["{image: 'otel/opentelemetry-collector-contrib:0.139.0'}", '{httpGet: {path: /, port: 8888}}', false],
    ["{image: 'otel/opentelemetry-collector-contrib:0.139.0', ports: [{name: health, containerPort: 13133}]}", '{httpGet: {path: /, port: health}}', true],
    ["{image: 'quay.io/argoproj/argocd:v3.4.4'}", '{httpGet: {path: /healthz, port: 8080}}', true],
    ["{image: 'quay.io/argoproj/argocd:v3.4.4'}", '{httpGet: {path: /healthz?full=true, port: 8080}}', false],
    ["{image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1@sha256:aa'}", '{httpGet: {path: /healthz, port: 10254, scheme: HTTP}}', true],
    ["{image: 'ecr-public.aws.com/docker/library/haproxy:3.0.8-alpine'}", '{httpGet: {path: /healthz, port: 8888}}', true],
    ["{image: 'us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/shippingservice:v0.10.6'}", '{grpc: {port: 50051}}', true],
    ["{image: 'us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/cartservice:v0.10.6'}", '{grpc: {port: 7070}}', false],
    // Bank of Anthos: every service's /ready returns 200 "ok" unconditionally; /healthy (the ledger reader thread) is not listed.
    ["{image: 'us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/frontend:v0.6.10@sha256:076294ce717309f711743fa3b72a9809c7f156edf1c4fa58505fd9f436d65345'}", '{httpGet: {path: /ready, port: 8080}}', true],
    ["{image: 'gcr.io/bank-of-anthos-ci/frontend:v0.5.11'}", '{httpGet: {path: /ready, port: 8080}}', true],
    ["{image: 'us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/ledgerwriter:v0.6.10'}", '{httpGet: {path: /ready, port: 8080}}', true],
    ["{image: 'us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/balancereader:v0.6.10'}", '{httpGet: {path: /healthy, port: 8080}}', false],
    ["{image: 'us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/loadgenerator:v0.6.10'}", '{httpGet: {path: /ready, port: 8080}}', false],
    ["{image: 'example/frontend:1'}", '{httpGet: {path: /ready, port: 8080}}', false],
    ["{image: 'docker.io/envoyproxy/envoy:distroless-v1.35.0'}", '{httpGet: {path: /ready, port: 19003, scheme: HTTP}}', true],
    ["{image: 'docker.io/envoyproxy/envoy:distroless-v1.39.0'}", '{httpGet: {path: /ready, port: 8002}}', true],
    ["{image: 'envoyproxy/envoy-dev:latest', ports: [{name: readiness, containerPort: 19003}]}", '{httpGet: {path: /ready, port: readiness}}', true],
    ["{image: 'docker.io/envoyproxy/envoy:distroless-v1.35.0'}", '{httpGet: {path: /ready, port: 8080}}', false],
    ["{image: 'docker.io/envoyproxy/envoy:distroless-v1.35.0'}", '{httpGet: {path: /stats/prometheus, port: 19001}}', false],
    ["{image: 'docker.io/envoyproxy/envoy:distroless-v1.35.0'}", '{httpGet: {path: /ready?x=1, port: 19003}}', false],
    ["{image: 'docker.io/envoyproxy/gateway:v1.5.0'}", '{httpGet: {path: /ready, port: 19003}}', false],
    // vault-k8s: handleReady always 204; Cortex-family /ready: only for a -target whose readiness is the process's own services.
    ["{image: 'hashicorp/vault-k8s:1.7.6', args: [agent-inject]}", '{httpGet: {path: /health/ready, port: 8080, scheme: HTTPS}}', true],
    ["{image: 'hashicorp/vault:1.20.0'}", '{httpGet: {path: /health/ready, port: 8200}}', false],
    ["{image: 'quay.io/cortexproject/cortex:v1.21.1', args: [-target=distributor]}", '{httpGet: {path: /ready, port: 8080}}', true],
    ["{image: 'quay.io/cortexproject/cortex:v1.21.1', args: [-target=distributor]}", '{httpGet: {path: /metrics, port: 8080}}', false],
    ["{image: 'quay.io/cortexproject/cortex:v1.21.1', args: [-target=query-frontend]}", '{httpGet: {path: /ready, port: 8080}}', false],
    ["{image: 'quay.io/cortexproject/cortex:v1.21.1'}", '{httpGet: {path: /ready, port: 8080}}', false],
    ["{image: 'grafana/mimir:2.17.0', args: [-target=compactor]}", '{httpGet: {path: /ready, port: 8080}}', true],
    ["{image: 'grafana/mimir:2.17.0', args: [-target=ingester]}", '{httpGet: {path: /ready, port: 8080}}', false],
    ["{image: 'grafana/loki:3.6.11', args: [-target=querier]}", '{httpGet: {path: /ready, port: 3100}}', true],
    ["{image: 'grafana/loki:3.6.11', args: [-target=ingest-limits-frontend]}", '{httpGet: {path: /ready, port: 3100}}', false],
    ["{image: 'grafana/tempo:2.10.8', args: [-target=compactor]}", '{httpGet: {path: /ready, port: 3200}}', true],
    ["{image: 'grafana/tempo:2.10.8', args: [-target=ingester]}", '{httpGet: {path: /ready, port: 3200}}', false],
    ["{image: 'grafana/loki:3.6.11', args: [-target=mimir-distributor]}", '{httpGet: {path: /ready, port: 3100}}', false],
    // n8n: /healthz is constant in the main and webhook processes from 0.236.0 and in the worker from 1.63.0
    // (catalog n8n-healthz, n8n-worker-healthz); /healthz/readiness checks the database.
    ["{image: 'n8nio/n8n:1.116.2'}", '{httpGet: {path: /healthz, port: http}}', true],
    ["{image: 'docker.n8n.io/n8nio/n8n:1.119.1', command: [n8n], args: [webhook]}", '{httpGet: {path: /healthz, port: 5678}}', true],
    ["{image: 'n8nio/n8n:1.116.2', command: [n8n], args: [worker, --concurrency=10]}", '{httpGet: {path: /healthz, port: http}}', true],
    ["{image: 'n8nio/n8n:1.60.1', command: [n8n], args: [worker]}", '{httpGet: {path: /healthz, port: http}}', false],
    ["{image: 'n8nio/n8n:0.221.2'}", '{httpGet: {path: /healthz, port: 5678}}', false],
    ["{image: 'n8nio/n8n:1.116.2'}", '{httpGet: {path: /healthz/readiness, port: 5678}}', false],
    // MLflow tracking server: /health returns "OK", 200 (catalog mlflow-server-health), for `mlflow server` only.
    ["{image: 'burakince/mlflow:3.15.1', command: [mlflow], args: [server, --host=0.0.0.0, --port=5000]}", '{httpGet: {path: /health, port: mlflow}}', true],
    ["{image: 'ghcr.io/mlflow/mlflow:v3.5.0', command: [mlflow, server, --app-name, basic-auth]}", '{httpGet: {path: /health, port: 5000}}', true],
    ["{image: 'ghcr.io/mlflow/mlflow:v3.5.0', command: [mlflow, server, --enable-workspaces]}", '{httpGet: {path: /health, port: 5000}}', false],
    ["{image: 'ghcr.io/mlflow/mlflow:v3.5.0', command: [mlflow, server, --app-name=oidc-auth]}", '{httpGet: {path: /health, port: 5000}}', false],
    ["{image: 'ghcr.io/mlflow/mlflow:v3.5.0', command: [mlflow, models, serve, -m, 'models:/m/1']}", '{httpGet: {path: /health, port: 5000}}', false],
    ["{image: 'ghcr.io/mlflow/mlflow:v3.5.0'}", '{httpGet: {path: /health, port: 5000}}', false],
    ["{image: 'example/api:1', command: [mlflow, server]}", '{httpGet: {path: /health, port: 5000}}', false],
    // node_exporter: / is the static landing page (catalog node-exporter-landing-page) unless --web.telemetry-path=/ puts the collectors there.
    ["{image: 'quay.io/prometheus/node-exporter:v1.12.1', args: ['--web.listen-address=[$(HOST_IP)]:9100'], ports: [{name: metrics, containerPort: 9100}]}", '{httpGet: {path: /, port: metrics}}', true],
    ["{image: 'quay.io/prometheus/node-exporter:v1.12.1', args: ['--web.listen-address=[$(HOST_IP)]:8100']}", '{httpGet: {host: 127.0.0.1, path: /, port: 8100}}', true],
    ["{image: 'prom/node-exporter:v1.8.2'}", '{httpGet: {port: 9100}}', true],
    ["{image: 'quay.io/prometheus/node-exporter:v1.12.1', args: [--web.telemetry-path=/metrics]}", '{httpGet: {path: /, port: 9100}}', true],
    ["{image: 'quay.io/prometheus/node-exporter:v1.12.1'}", '{httpGet: {path: /metrics, port: 9100}}', false],
    ["{image: 'quay.io/prometheus/node-exporter:v1.12.1', args: [--web.telemetry-path=/]}", '{httpGet: {path: /, port: 9100}}', false],
    ["{image: 'quay.io/prometheus/node-exporter:v1.12.1', args: [--web.telemetry-path, /]}", '{httpGet: {path: /, port: 9100}}', false],
    ["{image: 'example/node-exporter:1'}", '{httpGet: {path: /, port: 9100}}', false],
    // prometheus-adapter: /healthz holds k8s.io/apiserver's default checks (catalog prometheus-adapter-healthz); /readyz adds informer sync.
    ["{image: 'registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0', args: [/adapter, --secure-port=6443], ports: [{name: https, containerPort: 6443}]}", '{httpGet: {path: /healthz, port: https, scheme: HTTPS}}', true],
    ["{image: 'k8s.gcr.io/prometheus-adapter/prometheus-adapter:v0.10.0'}", '{httpGet: {path: /healthz, port: 6443, scheme: HTTPS}}', true],
    ["{image: 'registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0'}", '{httpGet: {path: /readyz, port: 6443, scheme: HTTPS}}', false],
    ["{image: 'registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0'}", '{httpGet: {path: /livez, port: 6443, scheme: HTTPS}}', false],
    ["{image: 'registry.k8s.io/metrics-server/metrics-server:v0.8.0'}", '{httpGet: {path: /healthz, port: 10250, scheme: HTTPS}}', false],
    // Logstash: / on the monitoring API answers the node's own info (catalog logstash-api-root); ?wait_for_status=
    // waits on the pipelines' health; /_node/stats is not listed. Pinned to 9600, the API's default port (a name the
    // container declares as 9600 matches too): / on another port, an http input's (which queues an event per request
    // on any path) or an API that logstash.yml moves, is not matched.
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1', ports: [{name: http, containerPort: 9600}]}", '{httpGet: {path: /, port: http}}', true],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1', ports: [{name: monitor, containerPort: 9600}]}", '{httpGet: {path: /, port: monitor}}', true],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1', ports: [{name: http, containerPort: 9601}]}", '{httpGet: {path: /, port: http}}', false],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1', ports: [{name: http, containerPort: 9600}, {name: http-input, containerPort: 8080}]}", '{httpGet: {path: /, port: http-input}}', false],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1'}", '{httpGet: {path: /, port: 8080}}', false],
    ["{image: 'docker.elastic.co/logstash/logstash-oss:7.10.2'}", '{httpGet: {path: /, port: 9600}}', true],
    ["{image: 'logstash:9.2.0'}", '{httpGet: {port: 9600}}', true],
    ["{image: 'docker.elastic.co/logstash/logstash:9.2.0'}", "{httpGet: {path: '/?wait_for_status=green&timeout=5s', port: 9600}}", false],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1'}", '{httpGet: {path: /_node/stats, port: 9600}}', false],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1'}", "{httpGet: {path: /, port: 9601}}", false],
    ["{image: 'docker.elastic.co/logstash/logstash:8.5.1'}", '{tcpSocket: {port: 9600}}', false],
    ["{image: 'example/logstash-exporter:1'}", '{httpGet: {path: /, port: 9600}}', false],
    // Prometheus: /-/healthy is constant (catalog prometheus-healthy); /-/ready answers 503 until the TSDB is open.
    ["{image: 'prom/prometheus:v3.11.3'}", '{httpGet: {path: /-/healthy, port: 9090}}', true],
    ["{image: 'quay.io/prometheus/prometheus:v2.55.1', ports: [{name: web, containerPort: 9090}]}", '{httpGet: {path: /-/healthy, port: web}}', true],
    ["{image: 'prom/prometheus:v3.11.3'}", '{httpGet: {path: /-/ready, port: 9090}}', false],
    // Thanos: /-/healthy is the HTTP prober's healthy flag, set before the listener starts (catalog thanos-healthy,
    // review p36); /-/ready waits for the component's start work.
    ["{image: 'quay.io/thanos/thanos:v0.39.2'}", '{httpGet: {path: /-/healthy, port: 10902}}', true],
    ["{image: 'docker.io/bitnami/thanos:0.39.2-debian-12-r2', ports: [{name: http, containerPort: 10902}]}", '{httpGet: {path: /-/healthy, port: http}}', true],
    ["{image: 'quay.io/thanos/thanos:v0.39.2'}", '{httpGet: {path: /-/ready, port: 10902}}', false],
    ["{image: 'example/thanos-proxy:1'}", '{httpGet: {path: /-/healthy, port: 10902}}', false],
    // Hazelcast: node-state is 200 unless SHUT_DOWN, /hazelcast/health always 200 (catalog hazelcast-health-node-state,
    // review p38); /hazelcast/health/ready waits for the start, cluster-safe for migrations.
    ["{image: 'hazelcast/hazelcast:5.5.0'}", '{httpGet: {path: /hazelcast/health/node-state, port: 5701}}', true],
    ["{image: 'hazelcast/hazelcast-enterprise:5.5.0'}", '{httpGet: {path: /hazelcast/health, port: 5701}}', true],
    ["{image: 'hazelcast/hazelcast:5.5.0'}", '{httpGet: {path: /hazelcast/health/ready, port: 5701}}', false],
    ["{image: 'hazelcast/hazelcast:5.5.0'}", '{httpGet: {path: /hazelcast/health/cluster-safe, port: 5701}}', false],
    ["{image: 'hazelcast/management-center:5.5.2'}", '{httpGet: {path: /hazelcast/health, port: 8080}}', false],
    // Alertmanager: /-/healthy and /-/ready both write 200 "OK" (catalog alertmanager-healthy-ready).
    ["{image: 'prom/alertmanager:v0.32.1'}", '{httpGet: {path: /-/ready, port: 9093}}', true],
    ["{image: 'quay.io/prometheus/alertmanager:v0.28.1'}", '{httpGet: {path: /-/healthy, port: http}}', true],
    ["{image: 'prom/alertmanager:v0.32.1'}", '{httpGet: {path: /api/v2/status, port: 9093}}', false],
    // Pomerium: /ping is handlers.HealthCheck (catalog pomerium-ping); the health listener's /readyz is not listed.
    ["{image: 'pomerium/pomerium:v0.22.1'}", '{httpGet: {path: /ping, port: https, scheme: HTTPS}}', true],
    ["{image: 'pomerium/pomerium:v0.30.0'}", '{httpGet: {path: /readyz, port: 28080}}', false],
    // Atlantis: /healthz writes {"status": "ok"} (catalog atlantis-healthz); /readyz pings the locking database.
    ["{image: 'ghcr.io/runatlantis/atlantis:v0.46.0', args: [server]}", '{httpGet: {path: /healthz, port: 4141, scheme: HTTP}}', true],
    ["{image: 'runatlantis/atlantis:v0.17.0'}", '{httpGet: {path: /healthz, port: atlantis}}', true],
    ["{image: 'ghcr.io/runatlantis/atlantis:v0.46.0', args: [server]}", '{httpGet: {path: /readyz, port: 4141}}', false],
    ["{image: 'ghcr.io/runatlantis/atlantis:v0.46.0'}", '{tcpSocket: {port: 4141}}', false],
    // VerneMQ: /health/ping answers a constant 200 (catalog vernemq-health-ping, 2.0.0 and later); /health checks
    // cluster membership and the listeners, /health/listeners the listeners.
    ["{image: 'vernemq/vernemq:2.1.1-alpine', ports: [{name: api, containerPort: 8888}]}", '{httpGet: {path: /health/ping, port: api}}', true],
    ["{image: 'docker.io/vernemq/vernemq:2.0.0'}", '{httpGet: {path: /health/ping, port: 8888}}', true],
    ["{image: 'vernemq/vernemq:latest'}", '{httpGet: {path: /health/ping, port: 8888}}', true],
    ["{image: 'vernemq/vernemq:2.1.1-alpine'}", '{httpGet: {path: /health, port: 8888}}', false],
    ["{image: 'vernemq/vernemq:2.1.1-alpine'}", '{httpGet: {path: /health/listeners, port: 8888}}', false],
    ["{image: 'vernemq/vernemq:1.13.0'}", '{httpGet: {path: /health/ping, port: 8888}}', false],
    ["{image: 'example/app:1'}", '{httpGet: {path: /health/ping, port: 8888}}', false],
    // lakeFS: /_health writes "alive!" from the process alone (catalog lakefs-health); review round 24, the treeverse lakefs chart.
    ["{image: 'treeverse/lakefs:1.84.0', args: [run, --config, /etc/lakefs/config.yaml], ports: [{name: http, containerPort: 8000}]}", '{httpGet: {path: /_health, port: http, scheme: HTTP}}', true],
    ["{image: 'docker.io/treeverse/lakefs:latest'}", '{httpGet: {path: /_health, port: 8000}}', true],
    ["{image: 'treeverse/lakefs:1.84.0'}", '{httpGet: {path: /api/v1/healthcheck, port: 8000}}', false],
    ["{image: 'treeverse/lakefs:1.84.0'}", '{tcpSocket: {port: 8000}}', false],
    ["{image: 'example/lakefs-gateway:1'}", '{httpGet: {path: /_health, port: 8000}}', false],
    // Dragonfly: the image's healthcheck.sh sends PING to its own port with nc (catalog dragonfly-healthcheck-sh); review round 24, the dragonfly chart.
    ["{image: 'docker.dragonflydb.io/dragonflydb/dragonfly:v1.40.1'}", '{exec: {command: [/bin/sh, /usr/local/bin/healthcheck.sh]}}', true],
    ["{image: 'ghcr.io/dragonflydb/dragonfly:v1.40.1'}", '{exec: {command: [/usr/local/bin/healthcheck.sh]}}', true],
    ["{image: 'ghcr.io/dragonflydb/dragonfly:v1.40.1'}", '{exec: {command: [sh, -c, /usr/local/bin/healthcheck.sh]}}', true],
    ["{image: 'docker.dragonflydb.io/dragonflydb/dragonfly:v1.40.1'}", "{exec: {command: [/bin/sh, -c, '/usr/local/bin/healthcheck.sh && redis-cli -h df-master ping']}}", false],
    ["{image: 'docker.dragonflydb.io/dragonflydb/dragonfly:v1.40.1'}", '{exec: {command: [redis-cli, ping]}}', false],
    ["{image: 'docker.dragonflydb.io/dragonflydb/dragonfly:v1.40.1'}", '{httpGet: {path: /healthz, port: 6379}}', false],
    ["{image: 'example/cache:1'}", '{exec: {command: [/bin/sh, /usr/local/bin/healthcheck.sh]}}', false],
    // Meilisearch: /health reads the process's own state (catalog meilisearch-health); review p18, the meilisearch chart.
    ["{image: 'getmeili/meilisearch:v1.48.3', ports: [{name: http, containerPort: 7700}]}", '{httpGet: {path: /health, port: http}}', true],
    ["{image: 'docker.io/getmeili/meilisearch-enterprise:v1.50.0'}", '{httpGet: {path: /health, port: 7700}}', true],
    ["{image: 'getmeili/meilisearch:v1.48.3'}", '{httpGet: {path: /stats, port: 7700}}', false],
    ["{image: 'example/search:1'}", '{httpGet: {path: /health, port: 7700}}', false],
    // Review p30: Sealed Secrets' constant /healthz, VPA's loop watchdog /health-check, the OpenCost UI's nginx `return 200`.
    ["{image: 'docker.io/bitnami/sealed-secrets-controller:0.36.6', ports: [{name: http, containerPort: 8080}]}", '{httpGet: {path: /healthz, port: http}}', true],
    ["{image: 'ghcr.io/bitnami-labs/sealed-secrets-controller:0.36.6'}", '{httpGet: {path: /healthz, port: 8080}}', true],
    ["{image: 'docker.io/bitnami/sealed-secrets-controller:0.36.6'}", '{httpGet: {path: /v1/cert.pem, port: 8080}}', false],
    ["{image: 'registry.k8s.io/autoscaling/vpa-recommender:1.7.1', ports: [{name: metrics, containerPort: 8942}]}", '{httpGet: {path: /health-check, port: metrics}}', true],
    ["{image: 'registry.k8s.io/autoscaling/vpa-updater:1.7.1'}", '{httpGet: {path: /health-check, port: 8943}}', true],
    ["{image: 'gcr.io/k8s-staging-autoscaling/vpa-admission-controller:1.7.1'}", '{httpGet: {path: /health-check, port: 8944}}', true],
    ["{image: 'registry.k8s.io/autoscaling/vpa-recommender:1.7.1'}", '{httpGet: {path: /metrics, port: 8942}}', false],
    ["{image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0'}", '{httpGet: {path: /health-check, port: 8085}}', false],
    ["{image: 'ghcr.io/opencost/opencost-ui:1.120.1'}", '{httpGet: {path: /healthz, port: 9090}}', true],
    ["{image: 'ghcr.io/opencost/opencost:1.120.1'}", '{httpGet: {path: /healthz, port: 9003}}', false],
    // Review p29: Falco's webserver /healthz, falcosidekick's /ping and /healthz, falcosidekick-ui's /api/v1/healthz: constant handlers.
    ["{image: 'docker.io/falcosecurity/falco:0.44.1'}", '{httpGet: {path: /healthz, port: 8765}}', true],
    ["{image: 'docker.io/falcosecurity/falco-no-driver:0.39.2'}", "{httpGet: {path: /healthz, port: 8765, scheme: HTTPS}}", true],
    ["{image: 'docker.io/falcosecurity/falco:0.44.1'}", '{httpGet: {path: /versions, port: 8765}}', false],
    ["{image: 'docker.io/falcosecurity/falco-driver-loader:0.44.1'}", '{httpGet: {path: /healthz, port: 8765}}', false],
    ["{image: 'docker.io/falcosecurity/falcosidekick:2.32.0', ports: [{name: http, containerPort: 2801}]}", '{httpGet: {path: /ping, port: http}}', true],
    ["{image: 'public.ecr.aws/falcosecurity/falcosidekick:2.32.0'}", '{httpGet: {path: /healthz, port: 2810}}', true],
    ["{image: 'docker.io/falcosecurity/falcosidekick:2.32.0'}", '{httpGet: {path: /test, port: 2801}}', false],
    ["{image: 'docker.io/falcosecurity/falcosidekick-ui:2.2.0', ports: [{name: http, containerPort: 2802}]}", '{httpGet: {path: /api/v1/healthz, port: http}}', true],
    ["{image: 'docker.io/falcosecurity/falcosidekick-ui:2.2.0'}", '{httpGet: {path: /ping, port: 2802}}', false],
    ["{image: 'docker.io/falcosecurity/falcosidekick:2.32.0'}", '{httpGet: {path: /api/v1/healthz, port: 2801}}', false],
    // Review p37: Superset's /health (/healthcheck, /ping) and Mastodon streaming's /api/v1/streaming/health answer a constant "OK".
    ["{image: 'apachesuperset.docker.scarf.sh/apache/superset:3.1.2', ports: [{name: http, containerPort: 8088}]}", '{httpGet: {path: /health, port: http}}', true],
    ["{image: 'apache/superset:4.1.2'}", '{httpGet: {path: /ping, port: 8088}}', true],
    ["{image: 'apache/superset:4.1.2'}", '{httpGet: {path: /api/v1/database/, port: 8088}}', false],
    ["{image: 'example/superset-websocket:1'}", '{httpGet: {path: /health, port: 8080}}', false],
    ["{image: 'ghcr.io/mastodon/mastodon-streaming:v4.6.3'}", '{httpGet: {path: /api/v1/streaming/health, port: 4000}}', true],
    ["{image: 'ghcr.io/mastodon/mastodon-streaming:v4.6.3'}", '{httpGet: {path: /metrics, port: 4000}}', false],
    ["{image: 'ghcr.io/mastodon/mastodon:v4.6.3'}", '{httpGet: {path: /health, port: 3000}}', false],
    // ZooKeeper's ruok sent to localhost, any image (catalog zookeeper-ruok); review p17/p18, the pulsar, milvus and pinot charts.
    ["{image: 'apachepulsar/pulsar:3.0.7'}", "{exec: {command: [timeout, '30', bash, -c, 'echo ruok | nc -q 1 localhost 2181 | grep imok']}}", true],
    ["{image: 'apachepulsar/pulsar-all:4.0.12'}", "{exec: {command: [bash, -c, '{ echo ruok; sleep 1; } | nc 127.0.0.1 2181 | grep imok']}}", true],
    ["{image: 'zookeeper:3.9.3'}", "{exec: {command: [bash, -c, 'echo ruok | nc -w 5 localhost 2181 | grep imok']}}", true],
    ["{image: 'example/zk:1'}", "{exec: {command: [/bin/bash, -ec, 'echo \"ruok\" | timeout 2 nc -w 2 localhost $ZK_PORT | grep -q imok']}}", true],
    ["{image: 'zookeeper:3.9.3'}", "{exec: {command: [bash, -c, 'echo ruok | nc zk-0.zk-headless 2181 | grep imok']}}", false],
    ["{image: 'zookeeper:3.9.3'}", "{exec: {command: [bash, -c, 'echo ruok | nc localhost 2181 | grep imok && curl -f http://db:8080/']}}", false],
    ["{image: 'zookeeper:3.9.3'}", "{exec: {command: [bash, -c, 'echo stat | nc localhost 2181 | grep Mode']}}", false],
    ["{image: 'zookeeper:3.9.3'}", "{exec: {command: [bash, -c, 'echo ruok | nc -x proxy:1080 localhost 2181 | grep imok']}}", false],
    ["{image: 'example/app:1'}", '{httpGet: {path: /healthz, port: 8080}}', false],
    ["{image: 'quay.io/argoproj/argocd:v3.4.4'}", '{tcpSocket: {port: 8080}}', false],
    // Review round 33, report p41 item 3: Redpanda Console's /admin/health and /admin/startup send 200 {"isHttpOk": true} whatever Kafka's state.
    ["{image: 'docker.redpanda.com/redpandadata/console:v3.1.0'}", '{httpGet: {path: /admin/health, port: http}}', true],
    ["{image: 'redpandadata/console:v2.8.0'}", '{httpGet: {path: /admin/startup, port: 8080}}', true],
    ["{image: 'docker.redpanda.com/vectorized/console:v2.1.1'}", '{httpGet: {path: /admin/health, port: 8080}}', true],
    ["{image: 'docker.redpanda.com/redpandadata/console:v3.1.0'}", '{httpGet: {path: /api/cluster, port: 8080}}', false],
    ["{image: 'docker.redpanda.com/redpandadata/redpanda:v25.1.2'}", '{httpGet: {path: /admin/health, port: 9644}}', false],
    // Review round 33, report p42 item 1: ADC's status server answers /healthz/ready with a constant 200 (the apisix-ingress-controller chart's adc-server).
    ["{image: 'ghcr.io/api7/adc:0.24.2', args: [server, --listen, 'unix:/sockets/adc.sock', --listen-status, '3001']}", '{httpGet: {path: /healthz/ready, port: 3001}}', true],
    ["{image: 'docker.io/api7/adc:0.28.0'}", '{httpGet: {path: /healthz/ready, port: 3001}}', true],
    ["{image: 'ghcr.io/api7/adc:0.24.2'}", '{httpGet: {path: /sync, port: 3000}}', false],
    ["{image: 'ghcr.io/api7/api7-ee-3-integrated:3.8.0'}", '{httpGet: {path: /healthz/ready, port: 3001}}', false],
    // Review round 33, report p43: Unleash's /health is a constant 200 from 4.14.0 (before, it selected from the database).
    ["{image: 'unleashorg/unleash-server:7.5.0'}", '{httpGet: {path: /health, port: http}}', true],
    ["{image: 'public.ecr.aws/unleashorg/unleash-server:6'}", '{httpGet: {path: /health, port: 4242}}', true],
    ["{image: 'unleashorg/unleash-server:4.14.0'}", '{httpGet: {path: /health, port: 4242}}', true],
    ["{image: 'unleashorg/unleash-server:4.13.0'}", '{httpGet: {path: /health, port: 4242}}', false],
    ["{image: 'unleashorg/unleash-edge:v20.1.10'}", '{httpGet: {path: /health, port: 3063}}', false],
    // Review round 33, report p43: the KubeRay API server's /healthz flag is set before it listens and never cleared.
    ["{image: 'quay.io/kuberay/apiserver:v1.4.2', ports: [{name: http, containerPort: 8888}]}", '{httpGet: {path: /healthz, port: http}}', true],
    ["{image: 'kuberay/apiserver:local'}", '{httpGet: {path: /healthz, port: 8888}}', true],
    ["{image: 'quay.io/kuberay/operator:v1.4.2'}", '{httpGet: {path: /healthz, port: 8082}}', false],
    ["{image: 'quay.io/kuberay/security-proxy:nightly'}", '{httpGet: {path: /healthz, port: 8988}}', false],
  ])('%s %s -> %s', (container, p, expected) => expect(isProcessLocalProbe(c(container), probe(p))).toBe(expected));
});

// Review p36 item 3, p38 item 1: process-local probes that pass as soon as the program's listener is up (startup-probe).
describe('probes answering from start', () => {
  const probe = (p: string) => yaml.load(p) as JsonObject;
  const c = (o: string) => yaml.load(o) as JsonObject;
  test.each([
    ["{image: 'prom/prometheus:v2.55.1'}", '{httpGet: {path: /-/healthy, port: 9090}}', 'prometheus-healthy'],
    ["{image: 'quay.io/prometheus/prometheus:v3.11.3'}", '{httpGet: {path: /-/ready, port: 9090}}', undefined],
    ["{image: 'docker.io/bitnami/thanos:0.39.2'}", '{httpGet: {path: /-/healthy, port: http}}', 'thanos-healthy'],
    ["{image: 'quay.io/thanos/thanos:v0.39.2'}", '{httpGet: {path: /-/ready, port: 10902}}', undefined],
    ["{image: 'hazelcast/hazelcast:5.5.0'}", '{httpGet: {path: /hazelcast/health/node-state, port: 5701}}', 'hazelcast-health-node-state'],
    ["{image: 'hazelcast/hazelcast:5.5.0'}", '{httpGet: {path: /hazelcast/health/ready, port: 5701}}', undefined],
    // Process-local, but not marked: Alertmanager's /-/healthy.
    ["{image: 'prom/alertmanager:v0.32.1'}", '{httpGet: {path: /-/healthy, port: 9093}}', undefined],
  ])('%s %s -> %s', (container, p, expected) => expect(answersFromStartProbe(c(container), probe(p))?.id).toBe(expected));

  test('answersFromStart is allowed on process-local-probe entries only, and an added entry is read', () => {
    const entry = (o: JsonObject): JsonObject => ({ id: 'x', title: 'X', match: { images: ['*/x'] }, why: 'x x x x x x x', source: ['x x x x x'], ...o });
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'dependency-probe', probes: [{ httpGet: { path: '/healthz' } }], dependency: { on: 'its database' }, answersFromStart: true })] })).toThrow(CatalogError);
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'process-local-probe', probes: [{ httpGet: { path: '/healthz' } }], answersFromStart: false })] })).toThrow(CatalogError);
    const cat = builtinCatalog().withOverride(parseCatalogOverride({ add: [entry({ kind: 'process-local-probe', probes: [{ tcpSocket: { port: 'http' } }], answersFromStart: true })] }));
    const x = c("{image: 'acme/x:1', ports: [{name: http, containerPort: 8080}]}");
    expect(answersFromStartProbe(x, probe('{tcpSocket: {port: 8080}}'), cat)?.id).toBe('x');
    expect(answersFromStartProbe(x, probe('{tcpSocket: {port: 8081}}'), cat)).toBeUndefined();
  });
});

// Review p19/p20: the mirror of process-local probes, handlers known to fail when a dependency does.
describe('dependency probes', () => {
  const probe = (p: string) => yaml.load(p) as JsonObject;
  const c = (o: string) => yaml.load(o) as JsonObject;
  test.each([
    // Hasura: /healthz (and /hasura/healthz) answers 500 when the metadata database check fails.
    ["{image: 'hasura/graphql-engine:v2.48.6'}", '{httpGet: {path: /healthz, port: 8080}}', 'hasura-healthz'],
    ["{image: 'docker.io/hasura/graphql-engine:v2.48.6.cli-migrations-v3'}", '{httpGet: {path: /hasura/healthz, port: 8080}}', 'hasura-healthz'],
    ["{image: 'hasura/graphql-engine:v2.48.6'}", '{httpGet: {path: /healthz?strict=true, port: 8080}}', 'hasura-healthz'],
    ["{image: 'hasura/graphql-engine:v2.48.6'}", '{httpGet: {path: /v1/version, port: 8080}}', undefined],
    ["{image: 'hasura/graphql-engine:v2.48.6'}", '{tcpSocket: {port: 8080}}', undefined],
    ["{image: 'example/graphql-engine:1'}", '{httpGet: {path: /healthz, port: 8080}}', undefined],
    // CouchDB: /_up is 404 in maintenance mode and while the node seeds; / (the welcome handler) is not listed.
    ["{image: 'couchdb:3.5.0'}", '{httpGet: {path: /_up, port: 5984}}', 'couchdb-up'],
    ["{image: 'apache/couchdb:3.3.3'}", '{httpGet: {path: /_up, port: 5984}}', 'couchdb-up'],
    ["{image: 'couchdb:3.5.0'}", '{httpGet: {path: /, port: 5984}}', undefined],
    // Woodpecker: /healthz pings the store, a database server only with the postgres or mysql driver.
    ["{image: 'docker.io/woodpeckerci/woodpecker-server:v3.16.0', env: [{name: WOODPECKER_DATABASE_DRIVER, value: postgres}]}", '{httpGet: {path: /healthz, port: 8000}}', 'woodpecker-server-healthz'],
    ["{image: 'woodpeckerci/woodpecker-server:v3.16.0', env: [{name: WOODPECKER_DATABASE_DRIVER, value: sqlite3}, {name: WOODPECKER_DATABASE_DRIVER, value: mysql}]}", '{httpGet: {path: /healthz, port: 8000}}', 'woodpecker-server-healthz'],
    ["{image: 'woodpeckerci/woodpecker-server:v3.16.0'}", '{httpGet: {path: /healthz, port: 8000}}', undefined],
    ["{image: 'woodpeckerci/woodpecker-server:v3.16.0', env: [{name: WOODPECKER_DATABASE_DRIVER, value: sqlite3}]}", '{httpGet: {path: /healthz, port: 8000}}', undefined],
    ["{image: 'woodpeckerci/woodpecker-server:v3.16.0', env: [{name: WOODPECKER_DATABASE_DRIVER, valueFrom: {secretKeyRef: {name: db, key: driver}}}]}", '{httpGet: {path: /healthz, port: 8000}}', undefined],
    ["{image: 'woodpeckerci/woodpecker-server:v3.16.0', envFrom: [{secretRef: {name: db}}]}", '{httpGet: {path: /healthz, port: 8000}}', undefined],
    // Review p32: Harbor jobservice's /api/v1/stats reads the worker pools' heartbeats from Redis (500 on error).
    ["{image: 'goharbor/harbor-jobservice:v2.14.0'}", '{httpGet: {path: /api/v1/stats, port: 8080}}', 'harbor-jobservice-stats'],
    ["{image: 'registry.example.com/goharbor/harbor-jobservice:v2.14.0'}", '{httpGet: {path: /api/v1/stats, port: 8443, scheme: HTTPS}}', 'harbor-jobservice-stats'],
    ["{image: 'goharbor/harbor-jobservice:v2.14.0'}", '{tcpSocket: {port: 8080}}', undefined],
    ["{image: 'goharbor/harbor-core:v2.14.0'}", '{httpGet: {path: /api/v1/stats, port: 8080}}', undefined],
    ["{image: 'goharbor/harbor-core:v2.14.0'}", '{httpGet: {path: /api/v2.0/ping, port: 8080}}', undefined],
    ["{image: 'woodpeckerci/woodpecker-agent:v3.16.0', env: [{name: WOODPECKER_DATABASE_DRIVER, value: postgres}]}", '{httpGet: {path: /healthz, port: 3000}}', undefined],
    // Review round 33, report p45 item 1: Wiki.js /healthz answers 503 when the knex pool holds no connection; with DB_TYPE sqlite the pool is a local file.
    ["{image: 'requarks/wiki:2', env: [{name: DB_TYPE, value: postgres}]}", '{httpGet: {path: /healthz, port: http}}', 'wikijs-healthz'],
    ["{image: 'ghcr.io/requarks/wiki:2.5.307', env: [{name: DB_TYPE, value: mysql}]}", '{httpGet: {path: /healthz, port: 3000}}', 'wikijs-healthz'],
    ["{image: 'requarks/wiki:2', env: [{name: DB_TYPE, value: sqlite}]}", '{httpGet: {path: /healthz, port: 3000}}', undefined],
    ["{image: 'requarks/wiki:2'}", '{httpGet: {path: /healthz, port: 3000}}', undefined],
    ["{image: 'requarks/wiki:2', env: [{name: DB_TYPE, valueFrom: {configMapKeyRef: {name: wiki, key: type}}}]}", '{httpGet: {path: /healthz, port: 3000}}', undefined],
    ["{image: 'requarks/wiki:2', env: [{name: DB_TYPE, value: postgres}]}", '{httpGet: {path: /, port: 3000}}', undefined],
  ])('%s %s -> %s', (container, p, expected) => expect(dependencyProbe(c(container), probe(p))?.id).toBe(expected));

  test('matchContainer lists a dependency-probe entry only when a probe of the container is one of its probes', () => {
    const cat = builtinCatalog();
    const on = c("{image: 'couchdb:3.5.0', livenessProbe: {httpGet: {path: /_up, port: 5984}}}");
    const off = c("{image: 'couchdb:3.5.0', livenessProbe: {httpGet: {path: /, port: 5984}}}");
    expect(cat.matchContainer(on, 'dependency-probe').map((e) => e.id)).toEqual(['couchdb-up']);
    expect(cat.matchContainer(off, 'dependency-probe')).toEqual([]);
  });

  test('a dependency-probe entry needs probes and a dependency; no other kind may have a dependency', () => {
    const entry = (o: JsonObject): JsonObject => ({ id: 'x', title: 'X', match: { images: ['*/x'] }, why: 'x x x x x x x', source: ['x x x x x'], ...o });
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'dependency-probe', probes: [{ httpGet: { path: '/healthz' } }], dependency: { on: 'its database' } })] })).not.toThrow();
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'dependency-probe', probes: [{ httpGet: { path: '/healthz' } }] })] })).toThrow(CatalogError);
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'dependency-probe', dependency: { on: 'its database' } })] })).toThrow(CatalogError);
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'process-local-probe', probes: [{ httpGet: { path: '/healthz' } }], dependency: { on: 'its database' } })] })).toThrow(CatalogError);
    expect(() => parseCatalogOverride({ add: [entry({ kind: 'dependency-probe', probes: [{ httpGet: { path: '/healthz' } }], dependency: { on: 'its database', env: { name: 'DB', values: [] } } })] })).toThrow(CatalogError);
  });
});

describe('peer discovery', () => {
  const sts = (image: string, annotations = '') =>
    workload(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
      containers: [{name: db, image: '${image}'}]
`);
  test.each([
    ['cassandra:4.1', 'cassandra'],
    ['gcr.io/google-samples/cassandra:v13', 'cassandra'],
    ['cockroachdb/cockroach:v23.1.11', 'cockroachdb'],
    ['quay.io/coreos/etcd:v3.5', 'etcd'],
    ['confluentinc/cp-zookeeper:7.5', 'zookeeper'],
    ['docker.io/bitnami/redis-cluster:7.2', 'redis-cluster-sentinel'],
  ])('%s needs peer discovery', (image, id) => {
    const r = needsPeerDiscovery(sts(image));
    expect([r.need, r.source, r.entry?.id]).toEqual([true, 'catalog', id]);
  });
  test.each(['docker.io/bitnami/redis:8.2.1', 'bitnami/postgresql:17', 'scassandra:1'])('%s does not', (image) => expect(needsPeerDiscovery(sts(image)).need).toBe(false));
  test('hints win in both directions', () => {
    expect(needsPeerDiscovery(sts('cassandra:4.1', '"kubegrace.dev/peer-discovery": "false"'))).toEqual({ need: false, source: 'hint' });
    expect(needsPeerDiscovery(sts('example/app:1', '"kubegrace.dev/peer-discovery": "true"'))).toEqual({ need: true, source: 'hint' });
  });
});

describe('catalogMatches and overrides', () => {
  test('catalogMatches lists every matching entry with its container', () => {
    const w = deployment("{name: c, image: 'registry.k8s.io/ingress-nginx/controller:v1', lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}, readinessProbe: {httpGet: {path: /healthz, port: 10254}}}");
    expect(catalogMatches(w).map((m) => [m.entry.id, m.container.name])).toEqual([
      ['ingress-nginx-wait-shutdown', 'c'],
      ['ingress-nginx-healthz', 'c'],
    ]);
  });
  const extra: CatalogEntry = {
    id: 'acme-gateway',
    kind: 'connection-pattern',
    title: 'ACME gateway',
    match: { images: ['*/acme/gateway'] },
    connectionPattern: 'fan-in',
    why: 'clients hold a tunnel to every gateway replica',
    source: ['acme internal design doc GW-12'],
  };
  test('a policy can add entries and disable built-in ones', () => {
    const cat = builtinCatalog().withOverride(parseCatalogOverride({ add: [extra], disable: ['teleport-proxy'] }));
    expect(connectionPatternOf(deployment("{name: g, image: 'acme/gateway:2'}"), { catalog: cat }).pattern).toBe('fan-in');
    expect(connectionPatternOf(deployment("{name: t, image: 'public.ecr.aws/gravitational/teleport:11', ports: [{name: sshtun, containerPort: 3024}]}"), { catalog: cat }).source).toBe('default');
    // The built-in catalog itself is unchanged.
    expect(builtinCatalog().get('teleport-proxy')).toBeDefined();
  });
  test.each([
    [{ disable: ['no-such-entry'] }, '/disable/0', /unknown catalog entry "no-such-entry"/],
    [{ add: [{ ...extra, id: 'istiod' }] }, '/add/0/id', /already in the catalog/],
    [{ add: [{ ...extra, kind: 'fan-in' }] }, '/add/0/kind', /allowed values/],
    [{ add: [{ ...extra, source: [] }] }, '/add/0/source', /must NOT have fewer than 1 items/],
    [{ remove: ['istiod'] }, '', /unknown field "remove"/],
  ])('bad override %j is rejected at %s', (o, pointer, message) => {
    let err: unknown;
    try {
      builtinCatalog().withOverride(parseCatalogOverride(o));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogError);
    expect([(err as CatalogError).pointer, (err as CatalogError).message]).toEqual([pointer, expect.stringMatching(message)]);
  });
  test('matching caches per container object and does not depend on call order', () => {
    const cat = new Catalog(builtinCatalog().entries);
    const w = deployment("{name: c, image: 'quay.io/argoproj/argocd:v3', readinessProbe: {httpGet: {path: /healthz, port: 8080}}}");
    expect(cat.matchContainer(w.containers[0]).map((e) => e.id)).toEqual(['argocd-healthz']);
    expect(cat.matchContainer(w.containers[0], 'process-local-probe').map((e) => e.id)).toEqual(['argocd-healthz']);
    expect(cat.matchContainer(w.containers[0], 'peer-discovery')).toEqual([]);
  });
});

describe('registers-webhooks entries (review p26 item 4: Kyverno)', () => {
  const kyv = (container: string) => deployment(container);
  test('the Service its webhooks call: KYVERNO_SVC when set, else (unset or empty) the default; unknown from valueFrom or $(VAR)', () => {
    expect(runtimeWebhooks(kyv("{name: k, image: 'reg.kyverno.io/kyverno/kyverno:v1.15.0', env: [{name: KYVERNO_SVC, value: my-svc}]}"))).toMatchObject({ service: 'my-svc', serviceFrom: 'env KYVERNO_SVC' });
    expect(runtimeWebhooks(kyv("{name: k, image: 'ghcr.io/kyverno/kyverno:v1.10.0'}"))).toMatchObject({ service: 'kyverno-svc', serviceFrom: "the program's default" });
    expect(runtimeWebhooks(kyv("{name: k, image: 'reg.kyverno.io/kyverno/kyverno:v1.15.0', env: [{name: KYVERNO_SVC, value: ''}]}"))?.service).toBe('kyverno-svc');
    expect(runtimeWebhooks(kyv("{name: k, image: 'reg.kyverno.io/kyverno/kyverno:v1.15.0', env: [{name: KYVERNO_SVC, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}"))?.service).toBeUndefined();
    expect(runtimeWebhooks(kyv("{name: k, image: 'reg.kyverno.io/kyverno/kyverno:v1.15.0', env: [{name: KYVERNO_SVC, value: '$(SVC)'}]}"))?.service).toBeUndefined();
  });
  test.each([
    ['--forceFailurePolicyIgnore=true'],
    ['-forceFailurePolicyIgnore=1'],
    ['--forceFailurePolicyIgnore=True'],
    ['--serverIP=10.0.0.5'],
    ['--serverIP 10.0.0.5'],
  ])('%s: the webhooks do not fail closed on the Service, no match', (arg) => {
    expect(runtimeWebhooks(kyv(`{name: k, image: 'reg.kyverno.io/kyverno/kyverno:v1.15.0', args: ['${arg}']}`))).toBeUndefined();
  });
  test.each([['--forceFailurePolicyIgnore=false'], ['--serverIP='], ['--forceFailurePolicyIgnore=yes']])('%s still fails closed on the Service', (arg) => {
    expect(runtimeWebhooks(kyv(`{name: k, image: 'reg.kyverno.io/kyverno/kyverno:v1.15.0', args: ['${arg}']}`))?.entry.id).toBe('kyverno-admission-controller');
  });
  test.each([['reg.kyverno.io/kyverno/background-controller:v1.15.0'], ['reg.kyverno.io/kyverno/kyvernopre:v1.15.0'], ['example.com/kyverno-proxy:1']])('%s does not match', (image) => {
    expect(runtimeWebhooks(kyv(`{name: k, image: '${image}'}`))).toBeUndefined();
  });
  // Review round 35, report p56 item 3: the Datadog Cluster Agent registers datadog-webhook itself, fail-closed
  // only with DD_ADMISSION_CONTROLLER_ENABLED true and DD_ADMISSION_CONTROLLER_FAILURE_POLICY Fail (default Ignore).
  const dca = (env: string, image = 'registry.datadoghq.com/cluster-agent:7.81.1') => deployment(`{name: cluster-agent, image: '${image}', env: ${env}}`);
  const on = '{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "true"}, {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: Fail}';
  test.each([['registry.datadoghq.com/cluster-agent:7.81.1'], ['gcr.io/datadoghq/cluster-agent:7.60.0'], ['datadog/cluster-agent:7.60.0'], ['public.ecr.aws/datadog/cluster-agent:7'], ['datadoghq.azurecr.io/cluster-agent:7']])('the Datadog Cluster Agent %s, enabled with Fail: its Service from DD_ADMISSION_CONTROLLER_SERVICE_NAME, else datadog-admission-controller', (image) => {
    expect(runtimeWebhooks(dca(`[${on}, {name: DD_ADMISSION_CONTROLLER_SERVICE_NAME, value: dd-admission}]`, image))).toMatchObject({ entry: { id: 'datadog-cluster-agent-admission-controller' }, service: 'dd-admission', enabledBy: ['DD_ADMISSION_CONTROLLER_ENABLED=true', 'DD_ADMISSION_CONTROLLER_FAILURE_POLICY=Fail'] });
    expect(runtimeWebhooks(dca(`[${on}]`, image))).toMatchObject({ service: 'datadog-admission-controller', serviceFrom: "the program's default" });
  });
  test.each([
    ['the failure policy unset (its default Ignore)', '[{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "true"}]'],
    ['failure policy Ignore', '[{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "true"}, {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: Ignore}]'],
    ['a failure policy it reads as Ignore', '[{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "true"}, {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: Failure}]'],
    ['a failure policy from a ConfigMap (unknown)', '[{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "true"}, {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, valueFrom: {configMapKeyRef: {name: x, key: y}}}]'],
    ['the controller off', '[{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "false"}, {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: Fail}]'],
    ['the controller unset (off by default)', '[{name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: Fail}]'],
    ['mutation off', `[${on}, {name: DD_ADMISSION_CONTROLLER_MUTATION_ENABLED, value: "false"}]`],
    ['mutation from a ConfigMap (unknown)', `[${on}, {name: DD_ADMISSION_CONTROLLER_MUTATION_ENABLED, valueFrom: {configMapKeyRef: {name: x, key: y}}}]`],
  ])('the Datadog Cluster Agent with %s registers no fail-closed webhook', (_, env) => {
    expect(runtimeWebhooks(dca(env))).toBeUndefined();
  });
  test('the Datadog Cluster Agent: fail in any case is Fail; mutation true or empty keeps the webhooks; the node agent does not match', () => {
    expect(runtimeWebhooks(dca('[{name: DD_ADMISSION_CONTROLLER_ENABLED, value: "1"}, {name: DD_ADMISSION_CONTROLLER_FAILURE_POLICY, value: fail}, {name: DD_ADMISSION_CONTROLLER_MUTATION_ENABLED, value: "true"}]'))?.entry.id).toBe('datadog-cluster-agent-admission-controller');
    expect(runtimeWebhooks(dca(`[${on}, {name: DD_ADMISSION_CONTROLLER_MUTATION_ENABLED, value: ""}]`))?.entry.id).toBe('datadog-cluster-agent-admission-controller');
    expect(runtimeWebhooks(dca(`[${on}]`, 'gcr.io/datadoghq/agent:7.60.0'))).toBeUndefined();
  });
  test('a policy can add one; a bad failOpen regex or a missing service is rejected with its path', () => {
    const entry = (registersWebhooks: JsonObject) => ({ id: 'acme-guard', kind: 'registers-webhooks', title: 'ACME guard', match: { images: ['*/acme/guard'] }, registersWebhooks, why: 'registers its webhooks when it starts', source: ['ACME guard docs'] });
    const added = builtinCatalog().withOverride(parseCatalogOverride({ add: [entry({ service: { default: 'guard' }, rejects: 'every pod creation' })] }));
    expect(added.runtimeWebhooks(deployment("{name: g, image: 'acme/guard:2'}"))).toMatchObject({ service: 'guard' });
    expect(() => parseCatalogOverride({ add: [entry({ service: { default: 'guard' }, rejects: 'every pod creation', failOpen: { args: '(' } })] })).toThrow(/invalid regular expression/);
    expect(() => parseCatalogOverride({ add: [entry({ rejects: 'every pod creation' })] })).toThrow(CatalogError);
    expect(() => parseCatalogOverride({ add: [{ ...entry({ service: { default: 'guard' }, rejects: 'every pod creation' }), kind: 'single-version' }] })).toThrow(CatalogError);
  });
});
