import { namedListenPort } from '../../lib/model/listen-ports';
import { JsonObject } from '../../lib/model/types';
import { ContainerView } from '../../lib/model/workload';

const container = (name: string, raw: JsonObject): ContainerView => ({ raw: { name, ...raw }, name, pointer: '/spec/containers/0', role: 'main', ports: [], image: 'x:1' });

describe('namedListenPort: a container whose own configuration names a port it listens on', () => {
  const named = (raw: JsonObject, port = 9443, others: string[] = []) => {
    const c = container('c', raw);
    return namedListenPort(c, port, [c, ...others.map((o) => container(o, {}))]);
  };
  test('env: the number, or a listen address', () => {
    expect(named({ env: [{ name: 'WEBHOOK_SERVER_PORT', value: '9443' }] })).toBe('env WEBHOOK_SERVER_PORT=9443');
    expect(named({ env: [{ name: 'PORT', value: 9443 }] })).toBe('env PORT=9443');
    for (const v of [':9443', '0.0.0.0:9443', '[::]:9443', '10.0.0.5:9443', '$(POD_IP):9443', '${POD_IP}:9443', '*:9443']) expect(named({ env: [{ name: 'LISTEN', value: v }] })).toBe(`env LISTEN=${v}`);
  });
  test('args and command: --*port*=N, --*=[host]:N, [host]:N, --*port* N, words of a shell command', () => {
    expect(named({ args: ['--webhook-port=9443'] })).toBe('arg --webhook-port=9443');
    expect(named({ args: ['--secure-listen-address=0.0.0.0:9443'] })).toBe('arg --secure-listen-address=0.0.0.0:9443');
    expect(named({ args: ['-listen', ':9443'] })).toBe('arg :9443');
    expect(named({ args: ['-port', '9443'] })).toBe('args -port 9443');
    expect(named({ args: ['--port', 9443] })).toBe('args --port 9443');
    expect(named({ command: ['sh', '-c', 'exec server --http-port=9443 --log=info'] })).toBe('arg --http-port=9443');
  });
  test("controller-runtime's bind flags (read by traffic.ts and probe-port for their own purposes) are of these forms", () => {
    expect(named({ args: ['--metrics-bind-address=:8080'] }, 8080)).toBe('arg --metrics-bind-address=:8080');
    expect(named({ args: ['--health-probe-bind-address=:8081'] }, 8081)).toBe('arg --health-probe-bind-address=:8081');
    expect(named({ args: ['--readiness-probe-port=6060'] }, 6060)).toBe('arg --readiness-probe-port=6060');
  });
  test('not a port the container calls, nor another number, nor a flag without "port" in its name', () => {
    expect(named({ env: [{ name: 'PORT', value: '9444' }] })).toBeUndefined();
    expect(named({ env: [{ name: 'X', value: '19443' }] })).toBeUndefined();
    expect(named({ args: ['--workers=9443'] })).toBeUndefined();
    expect(named({ args: ['--replicas', '9443'] })).toBeUndefined();
    for (const v of ['127.0.0.1:9443', 'localhost:9443', '[::1]:9443', 'postgres:9443', 'http://app:9443', 'https://0.0.0.0:9443']) expect(named({ env: [{ name: 'LISTEN', value: v }] })).toBeUndefined();
    for (const n of ['UPSTREAM_PORT', 'BACKEND_PORT', 'TARGET_PORT', 'REMOTE_PORT', 'CLIENT_PORT', 'APP_PORT', 'TYK_HTTP_INGRESS_PORT', 'EGRESS_PORT']) expect(named({ env: [{ name: n, value: '9443' }] })).toBeUndefined();
    expect(named({ args: ['--upstream=http://127.0.0.1:9443/'] })).toBeUndefined();
    expect(named({ args: ['--app-port', '9443'] })).toBeUndefined();
    expect(named({ args: ['--upstream-port=9443'] })).toBeUndefined();
    // Another container's name: the app's REDIS_PORT beside a redis container.
    expect(named({ env: [{ name: 'REDIS_PORT', value: '6379' }] }, 6379, ['redis'])).toBeUndefined();
    expect(named({ env: [{ name: 'REDIS_PORT', value: '6379' }] }, 6379)).toBe('env REDIS_PORT=6379');
    // A port beside the host it goes with names a server the container dials (review round 30:
    // Seldon Core v2's agent, SELDON_SCHEDULER_HOST=seldon-scheduler, SELDON_SCHEDULER_PORT=9005).
    const pair = (host: JsonObject, portName = 'SELDON_SCHEDULER_PORT') => named({ env: [host, { name: portName, value: '9005' }] }, 9005);
    expect(pair({ name: 'SELDON_SCHEDULER_HOST', value: 'seldon-scheduler' })).toBeUndefined();
    for (const h of ['SELDON_SCHEDULER_ADDR', 'SELDON_SCHEDULER_ADDRESS', 'seldon_scheduler_server', 'SELDON_SCHEDULER_HOSTNAME']) expect(pair({ name: h, value: 'scheduler.seldon.svc' })).toBeUndefined();
    expect(pair({ name: 'DBHOST', value: '10.1.2.3' }, 'DBPORT')).toBeUndefined();
    expect(pair({ name: 'DB_HOST', valueFrom: { secretKeyRef: { name: 'db', key: 'host' } } }, 'DB_PORT')).toBeUndefined();
    // A value from a Secret or ConfigMap is not read.
    expect(named({ env: [{ name: 'PORT', valueFrom: { configMapKeyRef: { name: 'c', key: 'port' } } }] })).toBeUndefined();
  });
  test('a port beside a host a server binds to (or of another prefix, or a bare PORT) still counts', () => {
    const pair = (host: JsonObject, portName = 'GRPC_PORT') => named({ env: [host, { name: portName, value: '9005' }] }, 9005);
    for (const v of ['', '0.0.0.0', '::', '[::]', '*', 'localhost', '127.0.0.1', '$(POD_IP)', '${POD_IP}']) expect(pair({ name: 'GRPC_HOST', value: v })).toBe('env GRPC_PORT=9005');
    expect(pair({ name: 'GRPC_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } })).toBe('env GRPC_PORT=9005');
    expect(pair({ name: 'GRPC_HOST', value: 'seldon-scheduler' }, 'HTTP_PORT')).toBe('env HTTP_PORT=9005');
    expect(pair({ name: 'GRPCHOST', value: 'seldon-scheduler' })).toBe('env GRPC_PORT=9005');
    expect(pair({ name: 'HOST', value: 'example.com' }, 'PORT')).toBe('env PORT=9005');
    // A listen address is read as before, beside any host.
    expect(named({ env: [{ name: 'GRPC_HOST', value: 'scheduler' }, { name: 'GRPC_PORT', value: ':9005' }] }, 9005)).toBe('env GRPC_PORT=:9005');
  });
  // Review round 15 (Tyk's operator: TYK_HTTP_INGRESS_PORT=8080 is the gateway's port, --metrics-bind-address=:8080 its own).
  test('the args are read before the env: the evidence cited is how the program is run', () => {
    expect(named({ env: [{ name: 'HTTP_PORT', value: '8080' }], args: ['--metrics-bind-address=:8080'] }, 8080)).toBe('arg --metrics-bind-address=:8080');
  });
  test('addressOnly (a mesh proxy): a listen address only', () => {
    const c = container('linkerd-proxy', { env: [{ name: 'LINKERD2_PROXY_INBOUND_PORTS', value: '8080' }, { name: 'LINKERD2_PROXY_INBOUND_LISTEN_ADDR', value: '0.0.0.0:4143' }] });
    expect(namedListenPort(c, 8080, [c], true)).toBeUndefined();
    expect(namedListenPort(c, 8080, [c])).toBe('env LINKERD2_PROXY_INBOUND_PORTS=8080');
    expect(namedListenPort(c, 4143, [c], true)).toBe('env LINKERD2_PROXY_INBOUND_LISTEN_ADDR=0.0.0.0:4143');
  });
});
