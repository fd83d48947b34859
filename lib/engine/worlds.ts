/**
 * Variants: one object identity (API group, kind, namespace, name) in several input files.
 *
 * A cluster holds one object per identity, so two files that both define `Deployment/api` in the
 * same namespace are alternatives (an environment's copy, the HA rendering of a chart, an
 * overlay), never applied together. Linted as one set, their objects would be joined as if they
 * were: a Service would "mix the endpoints of 2 workloads (Deployment/api, Deployment/api)", a
 * budget would count the replicas of both copies, a webhook's single-replica backend would hide
 * behind the other copy's three replicas. Namespaces default to `default` when unset, so this is
 * the common layout of a repository with `dev/` and `prod/` manifests applied with `kubectl -n`.
 *
 * variantWorlds splits the objects into worlds in which no identity comes from two files:
 * - no identity in two files (the usual input): one world, every object, as before;
 * - otherwise each file that shares an identity with another file goes to one world, the first in
 *   which no file shares one with it, preferring the world holding the most files of its own
 *   directory (so `prod/deploy.yaml` joins `prod/service.yaml`, not `dev/service.yaml`); a new world
 *   when every world has a conflicting file;
 * - a file that shares no identity with any other file belongs to the worlds of the files of its
 *   directory that do (`dev/service-dev.yaml` stays with `dev/deploy.yaml`), or, when its directory
 *   has none, to every world.
 * The rules run in each world; a finding reported in several worlds (an object of a shared file
 * judged alike) is kept once (run.ts). Copies of one identity inside one file are not variants
 * (the file is one set of objects applied together) and stay together; nor are files that only
 * share a Namespace (each app directory declares the namespace it uses).
 */
import { KObject } from '../model/types';

/**
 * metadata.name, or undefined when the object has no name of its own (generateName, none) or is a
 * Namespace: every app directory that uses a namespace commonly declares it, so two files with
 * the same Namespace are two apps sharing it, not alternatives (no rule relates Namespaces).
 */
function nameOf(o: KObject): string | undefined {
  if (o.kind === 'Namespace') return undefined;
  const meta = o.raw.metadata;
  const name = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>).name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The identity of an object in a cluster (API group, kind, namespace, name), or undefined without a name of its own. */
export function clusterIdentity(o: KObject): string | undefined {
  const name = nameOf(o);
  return name === undefined ? undefined : `${groupOf(o.apiVersion)}\u0000${o.kind}\u0000${o.namespace ?? ''}\u0000${name}`;
}

function dirOf(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i < 0 ? '' : file.slice(0, i);
}

/** The worlds of `objects` (each in input order); `[objects]` when no identity is in two files. */
export function variantWorlds(objects: KObject[]): KObject[][] {
  // All from one file (one large dump, one chart): no variants.
  if (objects.every((o) => o.file === objects[0].file)) return [objects];
  const fileIndex = new Map<string, number>();
  const files: string[] = [];
  const conflicts = new Map<number, Set<number>>();
  const conflict = (a: number, b: number) => {
    let s = conflicts.get(a);
    if (!s) conflicts.set(a, (s = new Set()));
    s.add(b);
    let t = conflicts.get(b);
    if (!t) conflicts.set(b, (t = new Set()));
    t.add(a);
  };
  // Each object's file, and the names that occur in two files or more: only their objects can be
  // variants (a first pass with the names alone, whose hashes the strings keep, so that the
  // common input without variants costs little).
  const fileOf = new Int32Array(objects.length);
  const nameFile = new Map<string, number>();
  let lastFile: string | undefined;
  let f = -1;
  objects.forEach((o, k) => {
    if (o.file !== lastFile) {
      lastFile = o.file;
      let i = fileIndex.get(o.file);
      if (i === undefined) {
        fileIndex.set(o.file, (i = files.length));
        files.push(o.file);
      }
      f = i;
    }
    fileOf[k] = f;
    const name = nameOf(o);
    if (name === undefined) return;
    const seen = nameFile.get(name);
    if (seen === undefined) nameFile.set(name, f);
    else if (seen !== f) nameFile.set(name, -1);
  });
  /** The files of each identity whose name is in several files. */
  const filesOf = new Map<string, number[]>();
  objects.forEach((o, k) => {
    const name = nameOf(o);
    if (name === undefined || nameFile.get(name) !== -1) return;
    const id = clusterIdentity(o)!;
    const fs = filesOf.get(id);
    const g = fileOf[k];
    if (!fs) filesOf.set(id, [g]);
    else if (!fs.includes(g)) {
      for (const h of fs) conflict(h, g);
      fs.push(g);
    }
  });
  if (conflicts.size === 0) return [objects];
  const worlds: { files: number[]; dirs: Map<string, number> }[] = [];
  const worldOf = new Map<number, number>();
  for (let i = 0; i < files.length; i++) {
    const others = conflicts.get(i);
    if (!others) continue;
    const dir = dirOf(files[i]);
    let best = -1;
    let bestScore = -1;
    worlds.forEach((w, k) => {
      if (w.files.some((g) => others.has(g))) return;
      const score = w.dirs.get(dir) ?? 0;
      if (score > bestScore) {
        best = k;
        bestScore = score;
      }
    });
    if (best < 0) {
      best = worlds.length;
      worlds.push({ files: [], dirs: new Map() });
    }
    worlds[best].files.push(i);
    worlds[best].dirs.set(dir, (worlds[best].dirs.get(dir) ?? 0) + 1);
    worldOf.set(i, best);
  }
  // The worlds a file that shares nothing belongs to: those of its directory's files, else all.
  const dirWorlds = new Map<string, number[]>();
  for (const [i, k] of worldOf) {
    const dir = dirOf(files[i]);
    const ws = dirWorlds.get(dir);
    if (!ws) dirWorlds.set(dir, [k]);
    else if (!ws.includes(k)) ws.push(k);
  }
  const all = worlds.map((_, k) => k);
  const targets = files.map((file, i) => {
    const k = worldOf.get(i);
    return k !== undefined ? [k] : (dirWorlds.get(dirOf(file)) ?? all);
  });
  const out: KObject[][] = worlds.map(() => []);
  for (const o of objects) for (const k of targets[fileIndex.get(o.file)!]) out[k].push(o);
  return out;
}
