/**
 * Containers of a pod that another container of the pod reaches over the loopback interface: a
 * web server that proxies to its application server in the same pod (nginx's `fastcgi_pass
 * 127.0.0.1:9000` to php-fpm), a DNS server that forwards to a local resolver (Pi-hole's upstream
 * `127.0.0.1#5053`, cloudflared). Every main container gets its stop signal when its own preStop
 * hook ends, so a backend without the front's delay stops while the front still accepts, and the
 * requests the front takes in that window fail at the backend (nginx answers 502).
 *
 * The evidence is explicit: a loopback address with a port, written in the front container's env
 * values, command or args, or in a file of a ConfigMap of the input that it mounts, where the port
 * is one the backend listens on (a declared container port, or a numeric port its probes check,
 * as php-fpm's tcpSocket 9000 in images that declare none) and not one of the front's own. Also a
 * bare port in an env var of the front named for its backend (`*_REMOTE_PORT`, `*_UPSTREAM_PORT`,
 * `*_BACKEND_PORT`) when a sibling declares that containerPort (and the front does not), and no
 * same-prefix host env names another host: a proxy that writes the loopback host itself, as the
 * KubeRay security proxy (`"http://localhost:" + HTTP_REMOTE_PORT`, review round 33, report p43).
 */
import * as path from 'path';
import { ObjectGraph } from './graph';
import { configMapSources } from './mounts';
import { isObject, JsonObject } from './types';
import { ContainerView, get, Workload } from './workload';

export interface LoopbackUse {
  /** The container the front reaches. */
  backend: ContainerView;
  port: number;
  /** For messages: `127.0.0.1:9000 in /etc/nginx/conf.d/default.conf (ConfigMap cloud/nc, key default.conf)`. */
  evidence: string;
}

/** A loopback address and port: `127.0.0.1:9000`, `localhost:8080`, `[::1]:9000`, dnsmasq's `127.0.0.1#5053`. */
export const LOOPBACK = /(?<![\w.-])(127\.0\.0\.1|localhost|\[::1\])(?::|#)(\d{1,5})(?!\d)/g;

/**
 * An env var that names the port of the front's backend: `HTTP_REMOTE_PORT`, `UPSTREAM_PORT`,
 * `APP_BACKEND_PORT`. The KubeRay security proxy reads HTTP_REMOTE_PORT and forwards to
 * `"http://localhost:" + httpRemotePort` (ray-project/kuberay @156391d3d^ experimental/cmd/main.go:23,99;
 * the chart sets it to the apiserver container's port, helm-chart/kuberay-apiserver/templates/deployment.yaml:80-81).
 */
const BACKEND_PORT_ENV = /(^|_)(REMOTE|UPSTREAM|BACKEND)_PORT$/i;
/** The host env of the same prefix (`HTTP_REMOTE_HOST` beside `HTTP_REMOTE_PORT`). */
const HOST_SUFFIXES = ['_HOST', '_HOSTNAME', '_ADDR', '_ADDRESS'];
/** A loopback host, alone. */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|::1|\[::1\])$/i;

/** Classic mesh proxies: the mesh rules judge how they stop (istio-proxy-drain, linkerd-proxy-drain). */
const MESH_PROXIES = new Set(['istio-proxy', 'linkerd-proxy']);

/**
 * PHP-FPM images: the official php `*-fpm` images (and those built on them, nextcloud's `*-fpm`,
 * wordpress's `*-fpm`) listen on 9000 without declaring it: docker-library/php's fpm Dockerfiles
 * write `listen = 9000` to php-fpm.d/zz-docker.conf.
 */
const PHP_FPM_IMAGE = /(^|[/:_.-])(php-)?fpm([_.:@-]|$)/i;

/**
 * Numeric ports a container listens on: declared, checked by its probes (named probe ports resolve
 * through the declared ones), or php-fpm's 9000 in an fpm image.
 */
function listenPorts(c: ContainerView): Set<number> {
  const out = new Set<number>();
  if (PHP_FPM_IMAGE.test(c.image)) out.add(9000);
  for (const p of c.ports) out.add(p.containerPort);
  for (const k of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
    for (const h of ['tcpSocket', 'httpGet', 'grpc']) {
      const port = get(c.raw, k, h, 'port');
      if (typeof port === 'number' && Number.isInteger(port)) out.add(port);
    }
  }
  return out;
}

/** The texts a container's configuration shows: env values, command and args, with where each comes from. */
function ownTexts(c: ContainerView): { text: string; where: string }[] {
  const out: { text: string; where: string }[] = [];
  const env = get(c.raw, 'env');
  for (const e of Array.isArray(env) ? env : []) {
    if (isObject(e) && typeof e.name === 'string' && typeof e.value === 'string') out.push({ text: e.value, where: `env ${e.name}` });
  }
  for (const k of ['command', 'args']) {
    const v = get(c.raw, k);
    if (Array.isArray(v)) v.forEach((a, i) => typeof a === 'string' && out.push({ text: a, where: `${k}[${i}]` }));
  }
  return out;
}

/** The ConfigMap files of the input that a container mounts (whole configMap volumes, their items, subPath mounts, projected sources). */
function mountedTexts(graph: ObjectGraph, w: Workload, c: ContainerView): { text: string; where: string }[] {
  const out: { text: string; where: string }[] = [];
  const mounts = get(c.raw, 'volumeMounts');
  const vols = w.podSpec.volumes;
  for (const m of Array.isArray(mounts) ? mounts : []) {
    if (!isObject(m) || typeof m.mountPath !== 'string' || typeof m.name !== 'string') continue;
    const vol = (Array.isArray(vols) ? vols : []).find((v): v is JsonObject => isObject(v) && v.name === m.name);
    if (!vol) continue;
    const sub = typeof m.subPath === 'string' ? m.subPath.replace(/^\/+|\/+$/g, '') : '';
    for (const src of configMapSources(vol)) {
      if (typeof src.name !== 'string') continue;
      const cm = graph.ofKindIn('ConfigMap', w.obj.namespace).find((o) => o.name === src.name);
      const data = cm && get(cm.raw, 'data');
      if (!cm || !isObject(data)) continue;
      // Each key and the path it has in the volume (`items` maps some keys only).
      const items = Array.isArray(src.items) && src.items.length ? src.items.filter(isObject).map((i) => ({ key: i.key, at: i.path })) : Object.keys(data).map((k) => ({ key: k, at: k }));
      for (const { key, at } of items) {
        if (typeof key !== 'string' || typeof at !== 'string' || typeof data[key] !== 'string') continue;
        if (sub && path.posix.normalize(at) !== sub) continue;
        const file = sub ? m.mountPath : path.posix.join(m.mountPath, at);
        out.push({ text: data[key] as string, where: `${file} (ConfigMap ${w.obj.namespace ? `${w.obj.namespace}/` : ''}${src.name}, key ${key})` });
      }
    }
  }
  return out;
}

/**
 * The other main containers of `front`'s pod that it reaches over loopback, each once (the first
 * evidence found: env, command and args first, then mounted files, then backend-port env vars).
 */
export function loopbackBackends(graph: ObjectGraph, w: Workload, front: ContainerView): LoopbackUse[] {
  const others = w.containers.filter((c) => c !== front && c.role === 'main' && !MESH_PROXIES.has(c.name));
  if (!others.length) return [];
  const own = listenPorts(front);
  const byPort = new Map<number, ContainerView>();
  for (const c of others) for (const p of listenPorts(c)) if (!own.has(p) && !byPort.has(p)) byPort.set(p, c);
  if (!byPort.size) return [];
  const found = new Map<ContainerView, LoopbackUse>();
  for (const { text, where } of [...ownTexts(front), ...mountedTexts(graph, w, front)]) {
    LOOPBACK.lastIndex = 0;
    for (let m = LOOPBACK.exec(text); m; m = LOOPBACK.exec(text)) {
      const port = Number(m[2]);
      const backend = byPort.get(port);
      if (!backend || found.has(backend)) continue;
      found.set(backend, { backend, port, evidence: `${m[0]} in ${where}` });
    }
  }
  for (const use of backendPortEnvs(front, others, own)) if (!found.has(use.backend)) found.set(use.backend, use);
  return [...found.values()];
}

/**
 * Bare ports in the front's backend-port env vars (BACKEND_PORT_ENV) that a sibling declares as a
 * containerPort and the front itself does not: `env HTTP_REMOTE_PORT=8888 (port "http" of container
 * "kuberay-apiserver-container")`. Not when a same-prefix host env (`HTTP_REMOTE_HOST`) is set to
 * anything but a loopback host, or comes from elsewhere (valueFrom): the port is then another host's.
 */
function backendPortEnvs(front: ContainerView, others: ContainerView[], own: Set<number>): LoopbackUse[] {
  const env = get(front.raw, 'env');
  const entries = (Array.isArray(env) ? env : []).filter((e): e is JsonObject => isObject(e) && typeof e.name === 'string');
  const out: LoopbackUse[] = [];
  for (const e of entries) {
    const name = e.name as string;
    if (!BACKEND_PORT_ENV.test(name) || typeof e.value !== 'string' || !/^\d{1,5}$/.test(e.value.trim())) continue;
    const port = Number(e.value.trim());
    if (own.has(port)) continue;
    const prefix = name.slice(0, -'_PORT'.length);
    const hosts = entries.filter((h) => HOST_SUFFIXES.some((sfx) => h.name === `${prefix}${sfx}`));
    if (hosts.some((h) => typeof h.value !== 'string' || !LOOPBACK_HOST.test(h.value.trim()))) continue;
    for (const c of others) {
      const p = c.ports.find((x) => x.containerPort === port);
      if (!p) continue;
      out.push({ backend: c, port, evidence: `env ${name}=${port}, ${p.name ? `port "${p.name}"` : 'a port'} of container "${c.name}"` });
      break;
    }
  }
  return out;
}
