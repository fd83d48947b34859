import { ContainerView, Workload } from '../model/workload';
import { plainScalarJson } from '../model/yaml11';

/** "terminationGracePeriodSeconds 30s" or "the default grace period (30s)", for messages. */
export function graceMessageRef(w: Workload): string {
  return w.graceSet ? `terminationGracePeriodSeconds (${w.grace}s)` : `the default grace period (${w.grace}s)`;
}

/** Where to point a grace-period finding: the field if written, else the container. */
export function gracePointer(w: Workload, c?: ContainerView): string {
  if (w.graceSet) return `${w.podSpecPointer}/terminationGracePeriodSeconds`;
  return c ? c.pointer : w.podSpecPointer;
}

/** "Deployment/web", for messages about other objects. */
export function nameOf(w: Pick<Workload, 'kind' | 'obj'>): string {
  return `${w.kind}/${w.obj.name}`;
}

/** A label value as a flow-YAML scalar: quoted when a plain one would read as something else (`"true"`, `"5"`, `""`). */
export function flowValue(v: string): string {
  return /^[A-Za-z0-9][-A-Za-z0-9_./]*$/.test(v) && plainScalarJson(v) === v ? v : JSON.stringify(v);
}
