/**
 * prestop-missing on a container that a served container of the same pod reaches over loopback
 * (model/loopback.ts; review round 30: the nextcloud chart's fpm flavour, nginx in front of php-fpm
 * on 127.0.0.1:9000; pihole forwarding to cloudflared on 127.0.0.1#5053): the backend must not stop
 * before the front stops accepting.
 */
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { Source } from '../../lib/model/sources';
import { ALL_RULES } from '../../lib/rules';
import { prestopMissing } from '../../lib/rules/prestop-missing';
import { runRule } from '../helpers/rule-tester';

const NGINX_CONF = `apiVersion: v1
kind: ConfigMap
metadata: {name: nginx-conf, namespace: cloud}
data:
  default.conf: |
    upstream php-handler {
        server 127.0.0.1:9000;
    }
    server {
        listen 80;
        location ~ \\.php(?:$|/) { fastcgi_pass php-handler; }
    }
`;

function nextcloud(o: { nginxHook?: string; fpmHook?: string; fpm?: string; mount?: string; extra?: string } = {}): string {
  const nginxHook = o.nginxHook ?? '        lifecycle: {preStop: {sleep: {seconds: 10}}}\n';
  return `${NGINX_CONF}---
apiVersion: v1
kind: Service
metadata: {name: nc, namespace: cloud}
spec:
  selector: {app: nextcloud}
  ports: [{name: http, port: 8080, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: nc, namespace: cloud}
spec:
  replicas: 3
  selector: {matchLabels: {app: nextcloud}}
  template:
    metadata: {labels: {app: nextcloud}}
    spec:
      containers:
      - name: nextcloud
        image: nextcloud:34.0.1-fpm
${o.fpm ?? '        readinessProbe: {tcpSocket: {port: 9000}}\n'}${o.fpmHook ?? ''}      - name: nextcloud-nginx
        image: nginx:alpine
        ports: [{name: http, containerPort: 80}]
${nginxHook}        readinessProbe: {httpGet: {path: /status.php, port: 80}}
        volumeMounts: [{name: nginx-config, mountPath: ${o.mount ?? '/etc/nginx/conf.d/'}}]
${o.extra ?? ''}      volumes:
      - name: nginx-config
        configMap: {name: nginx-conf}
`;
}

const PIHOLE = (cloudflaredHook = '') => `apiVersion: v1
kind: Service
metadata: {name: pihole-dns, namespace: dns}
spec:
  selector: {app: pihole}
  ports: [{name: dns-udp, port: 53, targetPort: dns-udp, protocol: UDP}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pihole, namespace: dns}
spec:
  replicas: 2
  selector: {matchLabels: {app: pihole}}
  template:
    metadata: {labels: {app: pihole}}
    spec:
      terminationGracePeriodSeconds: 50
      containers:
      - name: cloudflared
        image: crazymax/cloudflared:latest
        ports: [{containerPort: 5053, name: cloudflared-udp, protocol: UDP}]
${cloudflaredHook}      - name: pihole
        image: pihole/pihole:2026.07.2
        env:
        - {name: FTLCONF_dns_upstreams, value: "127.0.0.1#5053"}
        lifecycle: {preStop: {sleep: {seconds: 35}}}
        ports: [{containerPort: 53, name: dns-udp, protocol: UDP}]
`;

const loopback = (yaml: string, version?: string) => runRule(prestopMissing, yaml, version).filter((f) => /over loopback/.test(f.message));

describe('prestop-missing: a loopback backend of a served container', () => {
  test('php-fpm behind nginx (fastcgi_pass 127.0.0.1:9000 in the mounted ConfigMap) stops at 0s while nginx accepts for 10s: a warning on php-fpm with a safe repair', () => {
    const [f, ...rest] = loopback(nextcloud());
    expect(rest).toEqual([]);
    expect(f.severity).toBe('warning');
    expect(f.pointer).toBe('/spec/template/spec/containers/0');
    expect(f.message).toContain('container "nextcloud": container "nextcloud-nginx" of the same pod reaches it over loopback (127.0.0.1:9000 in /etc/nginx/conf.d/default.conf (ConfigMap cloud/nginx-conf, key default.conf)) and keeps accepting for 10s');
    expect(f.message).toContain('add lifecycle: {preStop: {sleep: {seconds: 10}}} to it');
    expect(f.fix?.safety).toBe('safe');
    expect(f.fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', value: { sleep: { seconds: 10 } } }]);
  });

  test('a subPath mount of the one file, and an exec sleep before 1.30 (a proposal)', () => {
    const [f] = loopback(nextcloud({ mount: '/etc/nginx/conf.d/default.conf\n          subPath: default.conf' }).replace('mountPath: /etc/nginx/conf.d/default.conf\n          subPath: default.conf}]', 'mountPath: /etc/nginx/conf.d/default.conf, subPath: default.conf}]'), '1.29');
    expect(f.message).toContain('127.0.0.1:9000 in /etc/nginx/conf.d/default.conf (ConfigMap cloud/nginx-conf, key default.conf)');
    expect(f.fix?.safety).toBe('proposal');
  });

  test('an fpm image listens on 9000 without declaring it (the nextcloud chart declares no port or probe on its fpm container)', () => {
    const [f] = loopback(nextcloud({ fpm: '' }));
    expect(f.message).toContain('container "nextcloud": container "nextcloud-nginx" of the same pod reaches it over loopback (127.0.0.1:9000');
  });

  test('Pi-hole forwarding to cloudflared (env 127.0.0.1#5053, a UDP port): cloudflared needs the 35s too, and the grace period holds it', () => {
    const [f] = loopback(PIHOLE());
    expect(f.message).toContain('container "cloudflared": container "pihole" of the same pod reaches it over loopback (127.0.0.1#5053 in env FTLCONF_dns_upstreams) and keeps accepting for 35s');
    expect(f.fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', value: { sleep: { seconds: 35 } } }]);
  });

  test('a shorter hook on the backend is reported at the hook, and its repair lengthens it (a proposal)', () => {
    const [f] = loopback(PIHOLE('        lifecycle: {preStop: {sleep: {seconds: 5}}}\n'));
    expect(f.pointer).toBe('/spec/template/spec/containers/0/lifecycle/preStop');
    expect(f.message).toContain('stops after its own preStop (5s)');
    expect(f.fix?.safety).toBe('proposal');
  });

  test('not reported: the backend waits as long, the front has no delay yet (its own finding comes first), the port is the front\'s own or nobody\'s, the backend is a mesh proxy, or its hook has no known length', () => {
    expect(loopback(nextcloud({ fpmHook: '        lifecycle: {preStop: {sleep: {seconds: 10}}}\n' }))).toEqual([]);
    expect(loopback(PIHOLE('        lifecycle: {preStop: {sleep: {seconds: 40}}}\n'))).toEqual([]);
    // No hook on nginx: prestop-missing reports nginx; php-fpm is judged once nginx has its delay.
    const noFront = runRule(prestopMissing, nextcloud({ nginxHook: '' }));
    expect(noFront.map((f) => f.message.slice(0, 40))).toEqual(['container "nextcloud-nginx": serves port']);
    // A backend that listens on nothing the input shows (no port, no probe port, not an fpm image): no evidence of 9000.
    expect(loopback(nextcloud({ fpm: '' }).replace('image: nextcloud:34.0.1-fpm', 'image: nextcloud:34.0.1-apache'))).toEqual([]);
    // The front's own port (nginx listens on 127.0.0.1:80 too) is not a backend's.
    expect(loopback(nextcloud({ fpm: '        readinessProbe: {tcpSocket: {port: 80}}\n' }).replace('server 127.0.0.1:9000', 'server 127.0.0.1:80'))).toEqual([]);
    expect(loopback(PIHOLE().replace('name: cloudflared\n', 'name: istio-proxy\n'))).toEqual([]);
    expect(loopback(nextcloud({ fpmHook: '        lifecycle: {preStop: {exec: {command: [/usr/local/bin/drain.sh]}}}\n' }))).toEqual([]);
  });

  test('a backend that also serves a Service port is reported once, for the Service, naming the front and asking at least its delay (OpenFaaS Pro: the gateway calls its provider on 127.0.0.1:8081; review report p28)', () => {
    const yaml = (gatewayDelay: number) => `apiVersion: v1
kind: Service
metadata: {name: gateway, namespace: openfaas}
spec:
  selector: {app: gateway}
  ports: [{name: http, port: 8080, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata:
  name: gateway-provider
  namespace: openfaas
  annotations: {prometheus.io/scrape: "true", prometheus.io/port: "8081"}
spec:
  selector: {app: gateway}
  ports: [{name: provider, port: 8081, targetPort: 8081}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gateway, namespace: openfaas}
spec:
  replicas: 1
  selector: {matchLabels: {app: gateway}}
  template:
    metadata: {labels: {app: gateway}}
    spec:
      containers:
      - name: gateway
        image: ghcr.io/openfaasltd/gateway:0.5.20
        lifecycle: {preStop: {sleep: {seconds: ${gatewayDelay}}}}
        readinessProbe: {httpGet: {path: /healthz, port: 8080}}
        env: [{name: functions_provider_url, value: "http://127.0.0.1:8081/"}]
        ports: [{name: http, containerPort: 8080}]
      - name: operator
        image: ghcr.io/openfaasltd/faas-netes:0.5.93
        ports: [{name: provider, containerPort: 8081}]
`;
    const fs = runRule(prestopMissing, yaml(10));
    expect(fs).toHaveLength(1);
    expect(fs[0].pointer).toBe('/spec/template/spec/containers/1');
    expect(fs[0].message).toContain('container "operator": serves port 8081 for Service gateway-provider but has no preStop hook');
    expect(fs[0].message).toContain('container "gateway" of the same pod also reaches it over loopback (127.0.0.1:8081 in env functions_provider_url) and keeps accepting for 10s');
    expect(fs[0].message).toContain('Add lifecycle: {preStop: {sleep: {seconds: 10}}}');
    // A front that waits longer than the default 10s: the delay asked is the front's (and the grace period holds it).
    const [f] = runRule(prestopMissing, yaml(20));
    expect(f.message).toContain('Add lifecycle: {preStop: {sleep: {seconds: 20}}}');
    expect(f.message).toContain('raise terminationGracePeriodSeconds to 35');
    expect(f.fix?.edits).toEqual([
      { op: 'set', pointer: '/spec/template/spec/containers/1/lifecycle/preStop', value: { sleep: { seconds: 20 } } },
      { op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 35 },
    ]);
  });

  test('--fix gives nginx its delay, then php-fpm the same in the next pass, and the pod lints clean of it', () => {
    const opts = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };
    const r = fixSources([{ file: 'nc.yaml', text: nextcloud({ nginxHook: '' }) } as Source], opts);
    expect(r.converged).toBe(true);
    expect(r.files[0].applied.map((a) => a.description)).toEqual(expect.arrayContaining(['add preStop sleep 10s to container "nextcloud-nginx"', 'add preStop sleep 10s to container "nextcloud"']));
    const after = lintSources([{ file: 'nc.yaml', text: r.files[0].text }], opts);
    expect(after.findings.filter((f) => f.ruleId === 'prestop-missing')).toEqual([]);
  });
});

describe('prestop-missing: a loopback backend named by a bare port env (review round 33, report p43, item 3)', () => {
  // The KubeRay apiserver chart: the security proxy forwards to "http://localhost:" + HTTP_REMOTE_PORT
  // (ray-project/kuberay @156391d3d^ experimental/cmd/main.go:23,99); the apiserver catches only
  // os.Interrupt (apiserver/cmd/main.go:71), so without a hook it dies at t=0 while the proxy sleeps 10s.
  const kuberay = (env: string, apiserverPorts = '[{containerPort: 8888, name: http}, {containerPort: 8887, name: grpc}]') => `apiVersion: v1
kind: Service
metadata: {name: kuberay-apiserver-service, namespace: kuberay}
spec:
  selector: {app: kuberay-apiserver}
  ports: [{name: http, port: 8888, targetPort: 8988}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kuberay-apiserver, namespace: kuberay}
spec:
  replicas: 1
  selector: {matchLabels: {app: kuberay-apiserver}}
  template:
    metadata: {labels: {app: kuberay-apiserver}}
    spec:
      containers:
      - name: kuberay-apiserver-container
        image: quay.io/kuberay/apiserver:nightly
        ports: ${apiserverPorts}
        readinessProbe: {httpGet: {path: /healthz, port: http}}
      - name: security-proxy-container
        image: quay.io/kuberay/security-proxy:nightly
        ports: [{name: http, containerPort: 8988}, {name: grpc, containerPort: 8987}]
        lifecycle: {preStop: {sleep: {seconds: 10}}}
        readinessProbe: {tcpSocket: {port: 8988}}
        env:
${env}`;
  const KUBERAY_ENV = `        - {name: HTTP_LOCAL_PORT, value: "8988"}
        - {name: GRPC_LOCAL_PORT, value: "8987"}
        - {name: HTTP_REMOTE_PORT, value: "8888"}
        - {name: GRPC_REMOTE_PORT, value: "8887"}
`;

  test('HTTP_REMOTE_PORT=8888, the apiserver container\'s declared port: the apiserver needs the proxy\'s 10s', () => {
    const [f, ...rest] = loopback(kuberay(KUBERAY_ENV));
    expect(rest).toEqual([]);
    expect(f.severity).toBe('warning');
    expect(f.pointer).toBe('/spec/template/spec/containers/0');
    expect(f.message).toContain('container "kuberay-apiserver-container": container "security-proxy-container" of the same pod reaches it over loopback (env HTTP_REMOTE_PORT=8888, port "http" of container "kuberay-apiserver-container") and keeps accepting for 10s');
    expect(f.fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', value: { sleep: { seconds: 10 } } }]);
  });

  test('not reported: the port is only probed (not declared), another name (*_LOCAL_PORT, DB_PORT), the front\'s own port, or a same-prefix host env names another host', () => {
    expect(loopback(kuberay(KUBERAY_ENV, '[]'))).toEqual([]);
    expect(loopback(kuberay('        - {name: HTTP_LOCAL_PORT, value: "8888"}\n        - {name: DB_PORT, value: "8888"}\n'))).toEqual([]);
    expect(loopback(kuberay('        - {name: UPSTREAM_PORT, value: "8988"}\n'))).toEqual([]);
    expect(loopback(kuberay('        - {name: UPSTREAM_HOST, value: api.example.com}\n        - {name: UPSTREAM_PORT, value: "8888"}\n'))).toEqual([]);
    expect(loopback(kuberay('        - {name: UPSTREAM_HOST, valueFrom: {configMapKeyRef: {name: x, key: host}}}\n        - {name: UPSTREAM_PORT, value: "8888"}\n'))).toEqual([]);
    // A loopback host beside it is the same evidence.
    expect(loopback(kuberay('        - {name: APP_BACKEND_HOST, value: "127.0.0.1"}\n        - {name: APP_BACKEND_PORT, value: "8888"}\n'))).toHaveLength(1);
  });
});
