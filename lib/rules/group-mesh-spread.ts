import { Rule } from '../engine/types';
import { daemonsetSurge } from './daemonset-surge';
import { istioProxyDrain } from './istio-proxy-drain';
import { linkerdProxyDrain } from './linkerd-proxy-drain';
import { nativeSidecar } from './native-sidecar';
import { nativeSidecarGraceBudget } from './native-sidecar-grace-budget';
import { replicasNotSpread } from './replicas-not-spread';
import { spreadBlocksSurge } from './spread-blocks-surge';

/** SIDE-*, MESH-* and SPREAD-* rules (one file each, listed here). */
export const MESH_SPREAD_RULES: Rule[] = [
  nativeSidecar,
  nativeSidecarGraceBudget,
  linkerdProxyDrain,
  istioProxyDrain,
  daemonsetSurge,
  replicasNotSpread,
  spreadBlocksSurge,
];
