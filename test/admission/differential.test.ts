/**
 * The exported admission policies agree with the linter (the comparison: ./differential.ts) on every
 * workload-bearing object of the corpus, of every rule table (test/rules/*.test.ts) and of a table
 * of edge cases of the readings the CEL re-implements.
 */
import { caseSubjects, check, corpusSubjects, exportFor, report, subjectsOf } from './differential';
import { collectTableCases } from './table-cases';

/** A Deployment with the given template annotations and containers (flow YAML), for the edge cases. */
function dep(name: string, containers: string, annotations = '{}', extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: ${annotations}
    spec:
${extra}      containers: ${containers}
`;
}

const exec = (cmd: string[], image = 'example/app:1') => `[{name: app, image: "${image}", lifecycle: {preStop: {exec: {command: ${JSON.stringify(cmd)}}}}}]`;

/** Edge cases of the readings the CEL re-implements: sleep arguments, shells, hints, sidecars, meshes. */
const EDGE_CASES: string[] = [
  dep('sleep-decimal-minutes', exec(['sleep', '1.5m']), '{}', '      terminationGracePeriodSeconds: 60\n'),
  dep('sleep-days', exec(['/bin/sleep', '1d'])),
  dep('sleep-go-duration', exec(['sleep', '1m30s']), '{}', '      terminationGracePeriodSeconds: 95\n'),
  dep('sleep-ms', exec(['sleep', '500ms'])),
  dep('sleep-zero', exec(['/usr/bin/sleep', '0'])),
  dep('sleep-garbage', exec(['sleep', 'abc'])),
  dep('sleep-three-args', exec(['sleep', '5', '6'])),
  dep('sh-only', exec(['sh', '-c', 'sleep 31'])),
  dep('sh-exec', exec(['/bin/sh', '-c', ' exec sleep 7; '])),
  dep('sh-semicolon-space', exec(['bash', '-c', 'sleep 40 ;'])),
  dep('sh-then', exec(['sh', '-c', 'sleep 25 && nginx -s quit'])),
  dep('sh-then-semicolon', exec(['ash', '-c', 'sleep 28;kill 1'])),
  dep('sh-cmd-then-sleep', exec(['sh', '-c', 'wget -O /dev/null 127.0.0.1:19000/healthcheck/fail; sleep 25']), '{}', '      terminationGracePeriodSeconds: 20\n'),
  dep('sh-cmd-and-sleep-unit', exec(['/bin/sh', '-c', 'curl -X POST localhost:9901/drain && sleep 1m ;']), '{}', '      terminationGracePeriodSeconds: 60\n'),
  dep('sh-cmd-then-sleep-tight', exec(['bash', '-c', 'echo bye;sleep 18']), '{}', '      terminationGracePeriodSeconds: 30\n'),
  dep('sh-tab', exec(['sh', '-c', 'sleep\t33'])),
  // Newlines as the shell reads them and quoted sleep arguments (review round 30: Seldon Core v2's Envoy hook).
  dep('sh-newline-quoted-sleep', exec(['/bin/sh', '-c', 'echo -ne "POST /healthcheck/fail HTTP/1.1\\r\\n\\r\\n" > /dev/tcp/localhost/9901\nsleep \'30\'\n']), '{}', '      terminationGracePeriodSeconds: 20\n'),
  dep('sh-only-double-quoted', exec(['sh', '-c', 'sleep "40"'])),
  dep('sh-newline-sleep-then', exec(['sh', '-c', "sleep '35'\r\n/app/drain"])),
  dep('sh-newline-and-continued', exec(['sh', '-c', 'curl localhost:9901/drain &&\n  sleep 31'])),
  dep('sh-newline-background', exec(['sh', '-c', '/app/drain &\nsleep 31'])),
  dep('sh-newline-or', exec(['sh', '-c', 'curl localhost:9901/drain ||\nsleep 31'])),
  dep('sh-newline-backslash', exec(['sh', '-c', 'echo a \\\nsleep 31'])),
  dep('sh-newline-split-sleep', exec(['sh', '-c', 'sleep\n31'])),
  dep('sh-newline-in-quotes', exec(['sh', '-c', 'echo "a\nsleep 31"'])),
  dep('sh-half-quoted', exec(['sh', '-c', "echo a; sleep '31"])),
  dep('exec-quoted-sleep', exec(['sleep', "'31'"])),
  // A script that signals the app before it sleeps: 0s, the sleep is the drain window (review round 33, report p39).
  dep('sh-stop-then-sleep', exec(['/bin/sh', '-c', 'killall -INT pgbouncer && sleep 120'])),
  dep('sh-stop-then-sleep-fits', exec(['/bin/sh', '-c', 'killall -INT pgbouncer && sleep 120']), '{}', '      terminationGracePeriodSeconds: 150\n'),
  dep('sh-stop-then-sleep-short', exec(['sh', '-c', 'kill -SIGTERM 1; sleep 15']), '{"kubegrace.dev/drain-seconds": "25"}'),
  dep('sh-stop-newline-sleep', exec(['sh', '-c', 'echo bye\nkill -s TERM 1\nsleep 40'])),
  dep('sh-sleep-stop-sleep', exec(['sh', '-c', 'sleep 10 && killall -INT pgbouncer && sleep 110'])),
  dep('sh-sleep-mid-stop-sleep', exec(['sh', '-c', 'echo a; sleep 5; kill 1; sleep 40'])),
  dep('sh-reload-then-sleep', exec(['sh', '-c', 'kill -HUP 1; sleep 40'])),
  dep('sh-quit-then-sleep', exec(['sh', '-c', 'kill -QUIT 1 && sleep 40'])),
  dep('sh-stop-then-sleep-hinted', exec(['sh', '-c', 'kill 1; sleep 40']), '{"kubegrace.dev/prestop-seconds": "35"}'),
  dep('sh-empty', exec(['sh', '-c', ''])),
  dep('sh-other', exec(['sh', '-c', 'echo bye'])),
  dep('teleport-wait', exec(['teleport', 'wait', 'duration', '30s'])),
  dep('teleport-wait-path', exec(['/usr/bin/teleport', 'wait', 'duration', '1m'])),
  dep('program-hinted', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "40"}'),
  dep('program-hinted-by-name', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "other=5, app = 45"}'),
  dep('program-hint-bad', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "app=soon"}'),
  dep('program-hint-empty-name', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "=5"}'),
  dep('sleep-then-hinted', exec(['sh', '-c', 'sleep 5; /app/drain']), '{"kubegrace.dev/prestop-seconds": "35s"}'),
  dep('httpget-hinted', '[{name: app, image: a, lifecycle: {preStop: {httpGet: {path: /drain, port: 8080}}}}]', '{"kubegrace.dev/prestop-seconds": "1m"}'),
  dep('sleep-action-hint-ignored', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 20}}}}]', '{"kubegrace.dev/prestop-seconds": "50"}'),
  dep('drain-hint-duration', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}]', '{"kubegrace.dev/drain-seconds": "25s"}'),
  dep('drain-hint-decimal', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}]', '{"kubegrace.dev/drain-seconds": "15.5"}'),
  dep('drain-hint-ms', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 19}}}}]', '{"kubegrace.dev/drain-seconds": "1500ms"}'),
  dep('drain-hint-garbage', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 15}}}}]', '{"kubegrace.dev/drain-seconds": "lots"}'),
  dep('drain-only-declared', '[{name: app, image: a}]', '{"kubegrace.dev/drain-seconds": "45"}'),
  dep(
    'native-sidecars',
    '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}]',
    '{"kubegrace.dev/sidecar-drain-seconds": "3, proxy=8, logs=0, bad"}',
    '      initContainers: [{name: proxy, image: p, restartPolicy: Always}, {name: logs, image: l, restartPolicy: Always}, {name: other, image: o, restartPolicy: Always}, {name: setup, image: s}]\n',
  ),
  dep('linkerd-native-injected', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"linkerd.io/inject": "enabled", "config.beta.linkerd.io/proxy-enable-native-sidecar": "true"}'),
  dep('linkerd-native-first-key-false', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"linkerd.io/inject": "enabled", "config.linkerd.io/proxy-enable-native-sidecar": "false", "config.alpha.linkerd.io/proxy-enable-native-sidecar": "true"}'),
  dep('istio-native-injected', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true", "kubegrace.dev/sidecar-drain-seconds": "istio-proxy=9"}'),
  dep('istio-gateway', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true", "inject.istio.io/templates": "gateway"}'),
  dep('distroless-exec-sleep', exec(['sleep', '5'], 'gcr.io/distroless/static:nonroot')),
  dep('distroless-debug', exec(['sleep', '5'], 'gcr.io/distroless/base:debug')),
  dep('chainguard-static-sh', exec(['sh', '-c', 'sleep 5'], 'cgr.dev/chainguard/static:latest')),
  // An exec sleep that cannot run in a shell-less image counts as no hook for grace-period-budget (review round 29).
  dep('oauth2-proxy-distroless-sleep', exec(['sh', '-c', 'sleep 60'], 'quay.io/oauth2-proxy/oauth2-proxy:v7.15.3'), '{}', '      terminationGracePeriodSeconds: 65\n'),
  dep('oauth2-proxy-alpine-sleep', exec(['sh', '-c', 'sleep 60'], 'quay.io/oauth2-proxy/oauth2-proxy:v7.15.3-alpine'), '{}', '      terminationGracePeriodSeconds: 65\n'),
  dep('zitadel-sleep-drain-declared', exec(['sleep', '60'], 'ghcr.io/zitadel/zitadel:v4.13.0'), '{"kubegrace.dev/drain-seconds": "80"}', '      terminationGracePeriodSeconds: 65\n'),
  dep('distroless-sleep-over-grace', exec(['sleep', '40'], 'gcr.io/distroless/static')),
  dep('suppressed', exec(['sleep', '40']), '{"kubegrace.dev/ignore": "prestop-handler, grace-period-budget"}'),
  dep('suppressed-all', exec(['sleep', '40']), '{"kubegrace.dev/ignore": "all"}'),
  // Catalog preStop programs (lib/catalog knownPreStopProgram): fixed delays, flags in the container's args or the hook, images with registries, tags and digests.
  dep('catalog-nginx-quit', exec(['nginx', '-s', 'quit'], 'nginx:1'), '{}', '      terminationGracePeriodSeconds: 5\n'),
  dep('catalog-nginx-quit-shell', exec(['sh', '-c', '/usr/sbin/nginx -s quit ;'], 'nginx:1'), '{}', '      terminationGracePeriodSeconds: 5\n'),
  // A catalog program before a trailing sleep: the program's delay (0 s), not the sleep's.
  dep('catalog-nginx-quit-then-sleep', exec(['/bin/sh', '-c', 'nginx -s quit; sleep 10'], 'nginx:1'), '{}', '      terminationGracePeriodSeconds: 8\n'),
  dep('catalog-haproxy-usr1-then-sleep', exec(['sh', '-c', 'kill -USR1 $(pidof haproxy) && sleep 20s;'], 'haproxytech/haproxy-alpine:3.0')),
  dep('sleep-nginx-quit-sleep', exec(['sh', '-c', 'sleep 10; nginx -s quit; sleep 5'], 'nginx:1')),
  dep('catalog-wait-shutdown-digest', '[{name: app, image: "registry.k8s.io/ingress-nginx/controller:v1.9@sha256:aa", args: ["--shutdown-grace-period=40"], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}]'),
  dep('catalog-wait-shutdown-space', '[{name: app, image: "registry.k8s.io/ingress-nginx/controller:v1.9", args: ["--shutdown-grace-period", "50"], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}]'),
  dep('catalog-wait-shutdown-bad', '[{name: app, image: "registry.k8s.io/ingress-nginx/controller", args: ["-shutdown-grace-period=abc"], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}]'),
  dep('catalog-wait-shutdown-default', '[{name: app, image: "REGISTRY.k8s.io/ingress-nginx/controller", lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}]', '{}', '      terminationGracePeriodSeconds: 5\n'),
  dep('catalog-wait-shutdown-other-image', '[{name: app, image: "example/controller", args: ["--shutdown-grace-period=40"], lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}}]'),
  dep('catalog-contour', exec(['/bin/contour', 'envoy', 'shutdown', '--check-delay=1m', '--drain-delay', '5s'], 'ghcr.io/projectcontour/contour:v1.28'), '{}', '      terminationGracePeriodSeconds: 60\n'),
  dep('catalog-contour-default', exec(['contour', 'envoy', 'shutdown'], 'projectcontour/contour'), '{}', '      terminationGracePeriodSeconds: 60\n'),
  // --check-delay defaults to 60s before Contour 1.22.0 (catalog contour-envoy-shutdown-before-1-22), 0s from it.
  dep('catalog-contour-before-1-22-default', exec(['/bin/contour', 'envoy', 'shutdown'], 'ghcr.io/projectcontour/contour:v1.21.3'), '{}', '      terminationGracePeriodSeconds: 45\n'),
  dep('catalog-contour-1-22-default', exec(['/bin/contour', 'envoy', 'shutdown'], 'ghcr.io/projectcontour/contour:v1.22.0'), '{}', '      terminationGracePeriodSeconds: 45\n'),
  dep('catalog-contour-1-33-drain-delay', exec(['/bin/contour', 'envoy', 'shutdown', '--drain-delay=50s'], 'ghcr.io/projectcontour/contour:v1.33.0'), '{}', '      terminationGracePeriodSeconds: 45\n'),
  dep('catalog-haproxy-soft-stop', exec(['/bin/sh', '-c', 'kill -USR1 $(pidof haproxy); while killall -0 haproxy; do sleep 1; done'], 'haproxytech/kubernetes-ingress:3.2'), '{}', '      terminationGracePeriodSeconds: 5\n'),
  dep('catalog-haproxy-killall', exec(['killall', '-SIGUSR1', 'haproxy'], 'haproxy:3.2'), '{}', '      terminationGracePeriodSeconds: 5\n'),
  dep('catalog-haproxy-sleep-first', exec(['sh', '-c', 'sleep 40 && kill -USR1 $(pidof haproxy)'], 'haproxy:3.2')),
  dep('catalog-kong-quit-chart', exec(['kong', 'quit', '--wait=15'], 'kong:3.9'), '{}', '      terminationGracePeriodSeconds: 20\n'),
  dep('catalog-kong-quit-over-grace', exec(['/usr/local/bin/kong', 'quit', '--wait', '40', '--timeout', '5'], 'kong/kong-gateway:3.10')),
  dep('catalog-kong-quit-default', exec(['kong', 'quit'], 'kong:3.9'), '{}', '      terminationGracePeriodSeconds: 5\n'),
  dep('catalog-kong-quit-short-flag', exec(['kong', 'quit', '-w', '40'], 'kong:3.9')),
  // linkerd-proxy-drain: rendered proxies (classic wait = its preStop, native), env over annotation, malformed values.
  dep('linkerd-rendered-classic', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}, {name: linkerd-proxy, image: l, lifecycle: {preStop: {exec: {command: [/bin/sleep, "45"]}}}, env: [{name: LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD, value: 1m}]}]', '{"kubegrace.dev/connection-pattern": "long-lived"}'),
  dep('linkerd-rendered-native', '[{name: app, image: a}]', '{"config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "20"}', '      initContainers: [{name: linkerd-proxy, image: l, restartPolicy: Always}]\n'),
  dep('linkerd-wait-over-grace', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 30}}}}]', '{"linkerd.io/inject": "enabled", "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "40", "kubegrace.dev/drain-seconds": "20"}'),
  dep('linkerd-wait-host-network', '[{name: app, image: a}]', '{"linkerd.io/inject": "enabled", "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "40"}', '      hostNetwork: true\n'),
  dep('linkerd-config-only', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 25}}}}]', '{"config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "20", "config.linkerd.io/shutdown-grace-period": "forever"}'),
  dep('linkerd-disabled', '[{name: app, image: a}]', '{"linkerd.io/inject": "disabled", "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "40"}'),
  // replicas-not-spread and recreate-strategy: node pinning, anti-affinity forms, claims.
  dep('spread-node-name', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      nodeName: n1\n').replace('spec:\n  selector', 'spec:\n  replicas: 3\n  selector'),
  dep('spread-pinned-affinity', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}, {matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n2]}]}]}}}\n').replace('spec:\n  selector', 'spec:\n  replicas: 3\n  selector'),
  dep('spread-half-pinned', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1, n2]}]}]}}}\n').replace('spec:\n  selector', 'spec:\n  replicas: 3\n  selector'),
  dep('spread-preferred-zone', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, podAffinityTerm: {topologyKey: failure-domain.beta.kubernetes.io/zone, labelSelector: {matchLabels: {app: spread-preferred-zone}}}}]}}\n').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  selector'),
  dep('spread-other-labels', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: other}}}]\n').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  selector'),
  // spread-blocks-surge: DoNotSchedule on reserved keys no node carries by default, for every workload kind; open namespaces; a non-string key.
  dep('spread-reserved-zone', '[{name: app, image: a}]', '{}', '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/zone, labelSelector: {matchLabels: {app: x}}}]\n').replace('kind: Deployment', 'kind: StatefulSet'),
  dep('spread-reserved-subdomain', '[{name: app, image: a}]', '{}', '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/rack, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: x}}}]\n').replace('kind: Deployment', 'kind: DaemonSet'),
  dep('spread-open-namespace', '[{name: app, image: a}]', '{}', '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: team.node.kubernetes.io/pool, labelSelector: {matchLabels: {app: x}}}, {maxSkew: 1, topologyKey: node-role.kubernetes.io/edge, labelSelector: {matchLabels: {app: x}}}]\n').replace('spec:\n  selector', 'spec:\n  replicas: 5\n  selector'),
  dep('spread-key-not-string', '[{name: app, image: a}]', '{}', '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: 5, labelSelector: {matchLabels: {app: x}}}]\n').replace('spec:\n  selector', 'spec:\n  replicas: 5\n  selector'),
  `apiVersion: batch/v1
kind: CronJob
metadata: {name: reserved-key-cron}
spec:
  schedule: "0 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: x}}}]
          containers: [{name: app, image: a}]
`,
  dep('recreate-served', '[{name: app, image: a}]', '{"kubegrace.dev/served": "true"}').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector'),
  dep('recreate-claim', '[{name: app, image: a, ports: [{containerPort: 80}]}]', '{}', '      volumes: [{name: d, persistentVolumeClaim: {claimName: d}}]\n').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector'),
  // An empty enum is the API default (SetDefaults_*: "" -> RollingUpdate / OrderedReady; review round 31, bitnami mysql's podManagementPolicy: "").
  dep('strategy-type-empty', '[{name: app, image: a, ports: [{containerPort: 80}]}]', '{"kubegrace.dev/served": "true"}').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: ""}\n  selector'),
  dep('sts-enums-empty', '[{name: app, image: a, ports: [{containerPort: 80}]}]').replace('kind: Deployment', 'kind: StatefulSet').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  serviceName: x\n  podManagementPolicy: ""\n  updateStrategy: {type: ""}\n  selector'),
  // readiness-probe-missing: the served containers of a workload alone, the Istio placeholder image.
  dep('readiness-lone-served', '[{name: app, image: a}]', '{"kubegrace.dev/served": "true"}'),
  dep('readiness-two-served-no-ports', '[{name: app, image: a}, {name: worker, image: w}]', '{"kubegrace.dev/served": "true"}'),
  dep('readiness-sidecar-port', '[{name: app, image: a, readinessProbe: {tcpSocket: {port: 8080}}, ports: [{containerPort: 8080}]}]', '{}', '      initContainers: [{name: proxy, image: p, restartPolicy: Always, ports: [{name: web, containerPort: 9000}]}]\n'),
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: auto-injected}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x, sidecar.istio.io/inject: "true"}}
    spec: {containers: [{name: istio-proxy, image: auto, ports: [{containerPort: 8080}]}, {name: app, image: auto, ports: [{containerPort: 80}]}]}
`,
  // rollout-full-outage: served status from declared ports, skips for claims and accelerators.
  dep('outage-metrics-only', '[{name: app, image: a, ports: [{name: http-metrics, containerPort: 9090}, {name: Admin, containerPort: 9000}]}]', '{}', ''),
  dep('outage-udp', '[{name: app, image: a, ports: [{name: dns, containerPort: 53, protocol: UDP}]}]'),
  dep('outage-mesh-proxy-port', '[{name: app, image: a}, {name: istio-proxy, image: p, ports: [{containerPort: 15090}]}]'),
  dep('outage-unnamed-port', '[{name: app, image: a, ports: [{containerPort: 8080}]}]'),
  dep('outage-hint-false', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{"kubegrace.dev/served": "False"}'),
  dep('outage-gpu-init-limit', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      initContainers: [{name: warm, image: w, resources: {limits: {"nvidia.com/gpu": "1"}}}]\n'),
  dep('outage-gpu-zero', '[{name: app, image: a, ports: [{containerPort: 8080}], resources: {requests: {"nvidia.com/gpu": "0"}, limits: {"nvidia.com/gpu": "1"}}}]'),
  dep('outage-claim', '[{name: app, image: a, ports: [{containerPort: 8080}]}]', '{}', '      volumes: [{name: d, persistentVolumeClaim: {claimName: d}}]\n'),
  // probe-port: hosts, grpc, quoted numbers, names declared by another container.
  dep('probe-host', '[{name: app, image: a, ports: [{containerPort: 8080}], readinessProbe: {httpGet: {port: web, host: other}}, livenessProbe: {httpGet: {port: 9999, host: ""}}}]'),
  dep('probe-quoted', '[{name: app, image: a, readinessProbe: {tcpSocket: {port: "8080"}}}]'),
  dep('probe-other-container', '[{name: app, image: a, readinessProbe: {httpGet: {port: admin}}}, {name: side, image: s, ports: [{name: admin, containerPort: 9000}]}]'),
  dep('probe-grpc', '[{name: app, image: a, ports: [{containerPort: 8080}], startupProbe: {grpc: {port: 9000}}}]'),
  // probe-port: the catalog's health check ports of known programs (ingress-nginx /healthz on 10254, otel collector on 13133).
  dep('probe-catalog-port', '[{name: c, image: "registry.k8s.io/ingress-nginx/controller:v1.11.2@sha256:abc", ports: [{containerPort: 80}], livenessProbe: {httpGet: {path: /healthz, port: 10254}}}]'),
  dep('probe-catalog-path', '[{name: c, image: "registry.k8s.io/ingress-nginx/controller:v1.11.2", ports: [{containerPort: 80}], livenessProbe: {httpGet: {path: /metrics, port: 10254}}}]'),
  dep('probe-catalog-any-path', '[{name: c, image: "otel/opentelemetry-collector-contrib:0.111.0", ports: [{containerPort: 4317}], readinessProbe: {httpGet: {port: 13133}}, livenessProbe: {tcpSocket: {port: 13133}}}]'),
  dep('probe-catalog-other-image', '[{name: c, image: "example/app:1", ports: [{containerPort: 80}], livenessProbe: {httpGet: {path: /healthz, port: 10254}}}]'),
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: owned, ownerReferences: [{apiVersion: example.com/v1, kind: App, name: x, uid: u, controller: true}]}
spec:
  selector: {matchLabels: {app: owned}}
  template:
    metadata: {labels: {app: owned}}
    spec: {terminationGracePeriodSeconds: 0, containers: [{name: app, image: a, lifecycle: {preStop: {tcpSocket: {port: 80}}}}]}
`,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: slow-start}
spec:
  minReadySeconds: 900
  selector: {matchLabels: {app: s}}
  template:
    metadata: {labels: {app: s}}
    spec:
      readinessGates: [{conditionType: "target-health.elbv2.k8s.aws/x"}]
      initContainers:
      - {name: proxy, image: p, restartPolicy: Always, startupProbe: {httpGet: {port: 1}, failureThreshold: 5}}
      - {name: logs, image: l, restartPolicy: Always, startupProbe: {exec: {command: [x]}, initialDelaySeconds: 7, periodSeconds: 2}}
      containers:
      - {name: a, image: a, startupProbe: {tcpSocket: {port: 1}, failureThreshold: 30}}
      - {name: b, image: b, startupProbe: {tcpSocket: {port: 1}, failureThreshold: 31, periodSeconds: 1}}
`,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: deadline-equal}
spec:
  minReadySeconds: 30
  progressDeadlineSeconds: 30
  selector: {matchLabels: {app: d}}
  template: {metadata: {labels: {app: d}}, spec: {containers: [{name: a, image: a}]}}
`,
  `apiVersion: batch/v1
kind: CronJob
metadata: {name: cron, annotations: {"kubegrace.dev/drain-seconds": "40"}}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: job, image: a, lifecycle: {preStop: {sleep: {seconds: 5}}}}]}
`,
  // daemonset-surge: image names, case, host ports, unreadable maxUnavailable.
  `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-agent}
spec:
  selector: {matchLabels: {app: n}}
  updateStrategy: {rollingUpdate: {maxSurge: "0%"}}
  template: {metadata: {labels: {app: n}}, spec: {containers: [{name: agent, image: "registry.local:5000/mesh/Envoy:v1.30@sha256:00"}]}}
`,
  `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: traefik}
spec:
  selector: {matchLabels: {app: t}}
  template: {metadata: {labels: {app: t}}, spec: {containers: [{name: t, image: t, ports: [{containerPort: 80, hostPort: 80}]}]}}
`,
  `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: kong}
spec:
  selector: {matchLabels: {app: k}}
  updateStrategy: {rollingUpdate: {maxUnavailable: "1"}}
  template: {metadata: {labels: {app: k}}, spec: {containers: [{name: k, image: k}]}}
`,
  // rollout-full-outage on DaemonSets: "100%" with leading zeros, an empty type (the default), maxSurge "00%"; an absolute 100 is not judged.
  `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: all-nodes}
spec:
  selector: {matchLabels: {app: a}}
  updateStrategy: {type: "", rollingUpdate: {maxSurge: "00%", maxUnavailable: "0100%"}}
  template: {metadata: {labels: {app: a}}, spec: {containers: [{name: a, image: a, ports: [{containerPort: 8080}]}]}}
`,
  `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: hundred-nodes}
spec:
  selector: {matchLabels: {app: h}}
  updateStrategy: {rollingUpdate: {maxUnavailable: 100}}
  template: {metadata: {labels: {app: h}}, spec: {containers: [{name: h, image: h, ports: [{containerPort: 8080}]}]}}
`,
  `apiVersion: v1
kind: Pod
metadata: {name: bare, annotations: {"kubegrace.dev/served": "true"}}
spec: {terminationGracePeriodSeconds: 20, containers: [{name: app, image: a, lifecycle: {preStop: {exec: {command: [sleep, "20"]}}}}]}
`,
];

describe('exported admission policies agree with the linter', () => {
  test('hand-written edge cases of the readings the CEL re-implements', () => {
    const subjects = EDGE_CASES.flatMap((y, i) => subjectsOf(y, `edge case ${i}`, '1.34'));
    expect(subjects.length).toBe(EDGE_CASES.length);
    const { divergences, stats } = check(subjects);
    expect(report(divergences)).toEqual([]);
    expect(stats.fired).toBeGreaterThan(30);
    process.stdout.write(`edge cases: ${JSON.stringify(stats)}\n`);
  });

  test('every workload-bearing object of the corpus', () => {
    const subjects = corpusSubjects();
    expect(subjects.length).toBeGreaterThan(140);
    const { divergences, stats } = check(subjects);
    expect(report(divergences)).toEqual([]);
    // The comparison is not vacuous: policies fire and repair on the corpus.
    expect(stats.fired).toBeGreaterThan(0);
    process.stdout.write(`corpus: ${JSON.stringify(stats)}\n`);
  });

  test('every workload-bearing object of every rule table case', () => {
    const cases = collectTableCases();
    expect(cases.length).toBeGreaterThan(100);
    const { divergences, stats, perPolicy } = check(caseSubjects(cases));
    expect(report(divergences)).toEqual([]);
    // Not vacuous: every exported validation both fires and stays silent on some table case.
    for (const m of exportFor({ origin: '', raw: {}, version: '1.34' }).mutations) if (!perPolicy.has(`${m.ruleId} (repair)`)) perPolicy.set(`${m.ruleId} (repair)`, { fired: 0, silent: 1 });
    const vacuous = [...perPolicy].filter(([, c]) => c.fired === 0 || c.silent === 0).map(([k, c]) => `${k}: fired ${c.fired}, silent ${c.silent}`);
    expect(vacuous).toEqual([]);
    process.stdout.write(`per policy: ${[...perPolicy].map(([k, c]) => `${k} ${c.fired}/${c.fired + c.silent}`).join(', ')}\n`);
    expect(stats.fired).toBeGreaterThan(20);
    expect(stats.repaired).toBeGreaterThan(0);
    process.stdout.write(`tables: ${cases.length} cases, ${JSON.stringify(stats)}\n`);
  });
});
