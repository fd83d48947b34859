/** A target Kubernetes version (minor, optionally patch) as given by --kube-version. */
export class KubeVersion {
  constructor(
    readonly major: number,
    readonly minor: number,
    /** Undefined when only X.Y was given. */
    readonly patch?: number,
  ) {}

  static parse(s: string): KubeVersion {
    const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(s.trim());
    if (!m) throw new Error(`invalid Kubernetes version "${s}": use X.Y or X.Y.Z, e.g. 1.31 or 1.35.4`);
    return new KubeVersion(Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3]));
  }

  /** True when this version is at or after major.minor(.patch). */
  atLeast(major: number, minor: number, patch = 0): boolean {
    if (this.major !== major) return this.major > major;
    if (this.minor !== minor) return this.minor > minor;
    return (this.patch ?? 0) >= patch;
  }

  toString(): string {
    return this.patch === undefined ? `${this.major}.${this.minor}` : `${this.major}.${this.minor}.${this.patch}`;
  }
}

/** The newest minor the rules know (graceful-termination.md Appendix A goes to 1.37). */
export const NEWEST_KNOWN = '1.37';
export const DEFAULT_KUBE_VERSION = KubeVersion.parse(NEWEST_KNOWN);

/** The oldest minor the rules know (the earliest gate of graceful-termination.md Appendix A). */
export const OLDEST_KNOWN = '1.20';

/** A --kube-version / kubernetesVersion value, refused outside the range the rules know. */
export function supportedKubeVersion(s: string, what = '--kube-version'): KubeVersion {
  if (s.trim() === '') throw new Error(`${what} is empty: give X.Y between ${OLDEST_KNOWN} and ${NEWEST_KNOWN}, e.g. ${NEWEST_KNOWN}`);
  const v = KubeVersion.parse(s);
  const lo = KubeVersion.parse(OLDEST_KNOWN);
  const hi = KubeVersion.parse(NEWEST_KNOWN);
  if (!v.atLeast(lo.major, lo.minor) || (v.major === hi.major ? v.minor > hi.minor : v.major > hi.major)) {
    const hint = v.major === 1 && v.minor < 10 ? `; did you mean 1.${v.minor}0?` : '';
    throw new Error(`${what} ${s} is outside the versions kubegrace knows (${OLDEST_KNOWN} to ${NEWEST_KNOWN})${hint}`);
  }
  return v;
}
