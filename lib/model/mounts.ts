/**
 * Files a container reads from ConfigMaps of the input: the path as the container sees it, through
 * its volumeMounts (subPath included) and the pod's configMap volumes (or configMap sources of a
 * projected volume) with their `items`, to a key of a ConfigMap in the same namespace. Used where a
 * program's shutdown behaviour is set in a config file rather than in its args (CoreDNS's
 * Corefile). A file the input does not hold is reported as missing, with why: never guessed.
 */
import * as path from 'path';
import { ObjectGraph } from './graph';
import { isObject, JsonObject, KObject } from './types';
import { ContainerView, get, Workload } from './workload';

export interface MountedFile {
  text: string;
  configMap: KObject;
  key: string;
  /** For messages: `/etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)`. */
  where: string;
}

/** Why a file could not be read from the input. */
export interface MissingFile {
  missing: string;
}

/** The file at an absolute path in the container, when a ConfigMap of the input provides it. */
export function mountedConfigMapFile(graph: ObjectGraph, w: Workload, c: ContainerView, file: string): MountedFile | MissingFile {
  const target = path.posix.normalize(file);
  // The deepest mount that holds the path (a mount inside another one hides what is below it).
  let best: { mount: JsonObject; at: string; rel: string } | undefined;
  const mounts = get(c.raw, 'volumeMounts');
  for (const m of Array.isArray(mounts) ? mounts : []) {
    if (!isObject(m) || typeof m.mountPath !== 'string' || typeof m.name !== 'string') continue;
    const at = path.posix.normalize(m.mountPath).replace(/(.)\/$/, '$1');
    const rel = target === at ? '' : target.startsWith(at === '/' ? '/' : `${at}/`) ? target.slice(at === '/' ? 1 : at.length + 1) : undefined;
    if (rel === undefined) continue;
    if (!best || at.length >= best.at.length) best = { mount: m, at, rel };
  }
  if (!best) return { missing: `no volume is mounted at ${target}` };
  const { mount } = best;
  if (mount.subPathExpr !== undefined) return { missing: `the mount of volume ${String(mount.name)} uses subPathExpr, which is resolved only on the node` };
  const sub = typeof mount.subPath === 'string' ? mount.subPath.replace(/^\/+|\/+$/g, '') : '';
  const inVolume = [sub, best.rel].filter(Boolean).join('/');
  const vols = w.podSpec.volumes;
  const vol = (Array.isArray(vols) ? vols : []).find((v): v is JsonObject => isObject(v) && v.name === mount.name);
  if (!vol) return { missing: `the volume ${String(mount.name)} mounted at ${String(mount.mountPath)} is not declared in the pod` };
  // A configMap volume, or the configMap sources of a projected volume (each maps its own keys).
  const sources = configMapSources(vol);
  if (!sources.length) return { missing: `its volume ${String(vol.name)} is not a ConfigMap` };
  const named = (name: string) => (w.obj.namespace ? `${w.obj.namespace}/${name}` : name);
  let reason: string | undefined;
  for (const src of sources) {
    if (!isObject(src) || typeof src.name !== 'string') continue;
    const key = keyFor(src, inVolume);
    if (key === undefined) {
      reason ??= `its volume ${String(vol.name)} maps no key of ConfigMap ${src.name} to ${inVolume || '/'}`;
      continue;
    }
    const cm = graph.ofKindIn('ConfigMap', w.obj.namespace).find((o) => o.name === src.name);
    if (!cm) {
      reason ??= `ConfigMap ${named(src.name)} is not in the input: lint it with the workload to have the file read`;
      continue;
    }
    const text = get(cm.raw, 'data', key);
    if (typeof text !== 'string') {
      reason ??= `ConfigMap ${named(src.name)} has no key ${key}`;
      continue;
    }
    return { text, configMap: cm, key, where: `${target} (ConfigMap ${named(src.name)}, key ${key})` };
  }
  return { missing: reason ?? `its volume ${String(vol.name)} names no ConfigMap` };
}

/** A pod volume's ConfigMap sources: its `configMap`, or the `configMap` sources of a projected volume (each maps its own keys). */
export function configMapSources(vol: JsonObject): JsonObject[] {
  if (isObject(vol.configMap)) return [vol.configMap];
  const projected = get(vol, 'projected', 'sources');
  return Array.isArray(projected) ? projected.map((s) => get(s, 'configMap')).filter(isObject) : [];
}

/** The ConfigMap key a configMap volume (or projected source) puts at `inVolume`: its `items`, else the key of that name. */
function keyFor(src: JsonObject, inVolume: string): string | undefined {
  if (!inVolume) return undefined;
  const items = src.items;
  if (Array.isArray(items) && items.length) {
    const it = items.find((i) => isObject(i) && typeof i.path === 'string' && path.posix.normalize(i.path) === inVolume);
    return isObject(it) && typeof it.key === 'string' ? it.key : undefined;
  }
  return inVolume.includes('/') ? undefined : inVolume;
}
