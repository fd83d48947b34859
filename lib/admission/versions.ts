import { KubeVersion } from '../engine/version';

/**
 * The admissionregistration.k8s.io versions a target Kubernetes version serves (primary sources:
 * kubernetes/website feature-gates ValidatingAdmissionPolicy.md (stable 1.30) and
 * MutatingAdmissionPolicy.md (alpha 1.32, beta 1.34, both off by default); kubernetes/kubernetes
 * PR #136039 "Promote MutatingAdmissionPolicy to v1 (GA)" for 1.36; KEP-3962 kep.yaml milestones
 * alpha v1.32, beta v1.34, stable v1.36).
 */
export interface AdmissionApis {
  /** ValidatingAdmissionPolicy: admissionregistration.k8s.io/v1 from 1.30. */
  validating?: string;
  /** MutatingAdmissionPolicy: v1alpha1 1.32-1.33, v1beta1 1.34-1.35, v1 from 1.36. */
  mutating?: string;
  /** What the cluster must enable before the mutating policies work, when not on by default. */
  mutatingNote?: string;
}

export const MIN_VALIDATING = KubeVersion.parse('1.30');
export const MIN_MUTATING = KubeVersion.parse('1.32');

export function admissionApis(v: KubeVersion): AdmissionApis {
  const out: AdmissionApis = {};
  if (v.atLeast(1, 30)) out.validating = 'admissionregistration.k8s.io/v1';
  if (v.atLeast(1, 36)) out.mutating = 'admissionregistration.k8s.io/v1';
  else if (v.atLeast(1, 34)) {
    out.mutating = 'admissionregistration.k8s.io/v1beta1';
    out.mutatingNote = 'beta and off by default on 1.34-1.35: start kube-apiserver with --feature-gates=MutatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1beta1=true';
  } else if (v.atLeast(1, 32)) {
    out.mutating = 'admissionregistration.k8s.io/v1alpha1';
    out.mutatingNote = 'alpha and off by default on 1.32-1.33: start kube-apiserver with --feature-gates=MutatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1alpha1=true';
  }
  return out;
}
