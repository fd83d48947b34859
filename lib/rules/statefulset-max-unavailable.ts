import { Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { parseIntOrPercent } from '../model/intstr';
import { fmtIntOrPercent } from './rollout-util';
import { stsStrategy } from './lb-util';

/** `MaxUnavailableStatefulSet` on the target version: on, off, or (1.35 without a patch) unknown. */
export type GateState = 'on' | 'off' | 'depends-on-patch';

/**
 * The gate's history (graceful-termination.md STS-003, Appendix A): alpha (off) 1.24–1.34; beta on
 * 1.35.0–1.35.3; beta off again 1.35.4–1.36.x (kubernetes/kubernetes#137409, #137904); on from 1.37.
 */
export function maxUnavailableGate(v: KubeVersion): GateState {
  if (!v.atLeast(1, 35)) return 'off';
  if (v.major === 1 && v.minor === 35) {
    if (v.patch === undefined) return 'depends-on-patch';
    return v.patch <= 3 ? 'on' : 'off';
  }
  if (v.major === 1 && v.minor === 36) return 'off';
  return 'on';
}

export const statefulsetMaxUnavailable: Rule = {
  meta: {
    id: 'statefulset-max-unavailable',
    spec: 'STS-003',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'maxUnavailable 0, or set on a version where the gate is off (silently ignored)',
    doc: `\`updateStrategy.rollingUpdate.maxUnavailable\` lets a StatefulSet update more than one pod at a time. It exists
only under the \`MaxUnavailableStatefulSet\` feature gate (KEP-961), whose default has an unusual history:

| Kubernetes | gate |
|---|---|
| 1.24 – 1.34 | alpha, **off** |
| 1.35.0 – 1.35.3 | beta, **on** |
| 1.35.4 – 1.36.x | beta, **off again** (a regression broke \`Parallel\` pod management: kubernetes/kubernetes#137409, #137904) |
| >= 1.37 | beta, **on** |

When the gate is off, the API server drops the field: updates go one pod at a time, with no error or warning.

**Conditions:**

- **error:** the value resolves to 0 (\`0\` or \`"0%"\`; percentages round **up**, so any non-zero percentage gives
  at least 1). The API rejects it whenever the gate is on; with the gate off it is dropped today and rejected after
  an upgrade that turns the gate on. A negative value, a percentage above 100% or a string that is not a percentage
  is rejected the same way.
- **warning:** the field is set and the target version has the gate off, so it is silently ignored. Not when it
  resolves to 1 (\`1\`, or a percentage of \`spec.replicas\` that rounds up to 1, without an HPA): that is what the
  StatefulSet does without it, so dropping it changes nothing. With
  \`--kube-version 1.35\` (no patch release) the state depends on the patch release (on in 1.35.0–1.35.3, off from
  1.35.4): also a warning, saying so; give the full version (e.g. \`1.35.2\`) to decide.

Semantics when it works: the budget counts every unavailable pod in \`[0, replicas)\` (including pods not yet
\`minReadySeconds\` old); with a partition it applies only to the staged ordinals; with \`OrderedReady\` it is not
applied until the set has fully scaled up.

**Fix:** omit the field unless the target version is known to enable the gate, and set \`minReadySeconds\` together
with it:

\`\`\`yaml
spec:
  minReadySeconds: 10
  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 2     # only on versions with MaxUnavailableStatefulSet on (1.35.0-1.35.3, >= 1.37)
\`\`\``,
    fixable: false,
    versionGate: 'MaxUnavailableStatefulSet: alpha (off) 1.24–1.34; beta on 1.35.0–1.35.3; off 1.35.4–1.36.x; on from 1.37',
    references: [
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/MaxUnavailableStatefulSet.md',
      'kubernetes/enhancements keps/sig-apps/961-maxunavailable-for-statefulset/README.md',
      'https://github.com/kubernetes/kubernetes/pull/137904',
      'https://github.com/kubernetes/kubernetes/pull/139466',
      'https://github.com/kubernetes/kubernetes/issues/137409',
    ],
  },
  check(ctx) {
    const gate = maxUnavailableGate(ctx.version);
    const v = ctx.version.toString();
    for (const w of ctx.graph.workloads) {
      if (w.kind !== 'StatefulSet') continue;
      const s = stsStrategy(w);
      if (s.maxUnavailable === undefined) continue;
      const mu = parseIntOrPercent(s.maxUnavailable)!;
      const pointer = '/spec/updateStrategy/rollingUpdate/maxUnavailable';
      const shown = fmtIntOrPercent(mu);
      const invalid =
        mu.kind === 'invalid' ? 'is not an integer or a percentage' : mu.value === 0 ? 'resolves to 0' : mu.value < 0 ? 'is negative' : mu.kind === 'percent' && mu.value > 100 ? 'is above 100%' : undefined;
      if (invalid) {
        const today =
          gate === 'on'
            ? `the API server rejects the StatefulSet on ${v}`
            : gate === 'off'
              ? `on ${v} the gate is off and the field is dropped, but the API rejects it wherever MaxUnavailableStatefulSet is on (1.35.0-1.35.3, >= 1.37)`
              : `on 1.35.0-1.35.3 the API rejects it (on 1.35.4+ the gate is off and the field is dropped)`;
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'error',
          message: `updateStrategy.rollingUpdate.maxUnavailable ${shown} ${invalid}: it must be at least 1 (percentages round up); ${today}; remove it, or set 1 or more`,
        });
        continue;
      }
      if (gate === 'on') continue;
      // 1 (or a percentage of the replicas that rounds up to 1) is what the StatefulSet does without the
      // field: dropping it changes nothing (the Tyk chart writes 1; review round 14). With an HPA the
      // replicas vary, so a percentage is judged as written.
      const resolved = mu.kind === 'int' ? mu.value : mu.kind === 'percent' && w.replicas !== undefined && !ctx.graph.hpaFor(w) ? Math.ceil((mu.value * w.replicas) / 100) : undefined;
      if (resolved === 1) continue;
      const why =
        gate === 'off'
          ? `the MaxUnavailableStatefulSet gate is off on ${v}, so the API server drops the field and updates go one pod at a time`
          : `on 1.35 it depends on the patch release: MaxUnavailableStatefulSet is on in 1.35.0-1.35.3 and off from 1.35.4, where the field is dropped and updates go one pod at a time`;
      ctx.report({
        object: w.obj,
        pointer,
        severity: 'warning',
        message: `updateStrategy.rollingUpdate.maxUnavailable ${shown} is set, but ${why}; remove it unless every target cluster enables the gate (1.35.0-1.35.3, >= 1.37)${gate === 'depends-on-patch' ? ', or lint with the full version, e.g. --kube-version 1.35.4' : ''}`,
      });
    }
  },
};
