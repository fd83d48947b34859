import { ObjectGraph } from '../model/graph';
import { Workload } from '../model/workload';
import { Addend } from './budget';

/**
 * Shutdown costs outside the app that the grace period must also cover (mesh proxy drain,
 * load balancer deregistration): the "M" of TERM-001. The mesh and LB rules of the full catalog
 * contribute here; with neither present the addend is zero.
 */
export function shutdownAddends(_graph: ObjectGraph, _w: Workload): Addend[] {
  return [];
}
