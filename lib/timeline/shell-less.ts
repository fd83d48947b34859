/**
 * Images without a shell or coreutils, in which an exec preStop that only sleeps (`["sleep", "10"]`,
 * `["sh", "-c", "sleep 10"]`) cannot run: the kubelet reports FailedPreStopHook and sends the stop
 * signal at once. prestop-sleep-action warns about such a hook (its param `shellLessImagePatterns`,
 * these by default), prestop-missing proposes no exec sleep for such an image before 1.30, and the
 * termination timeline and budget count such a hook as no delay (prestop.ts runningPreStopDelay).
 */

/**
 * Images without a shell or coreutils (regular expressions, matched against the image reference).
 * Distroless `:debug` tags ship a busybox shell, so they are excluded. Images built FROM scratch have
 * no recognisable name; add patterns for them (and for in-house minimal bases) in the policy, as
 * these do for well-known ones with the tags their projects' own builds publish. A pattern that
 * excludes tags does it with one leading `^(?!...)` without parentheses inside, the one lookaround
 * the admission export can turn into RE2 (lib/admission/catalog.ts imagePattern).
 */
export const DEFAULT_SHELL_LESS_IMAGE_PATTERNS = [
  '^(?!.*:debug)[^@]*distroless/',
  '(^|/)chainguard/static(:|@|$)',
  // The control plane's images are built on go-runner, which wraps gcr.io/distroless/static
  // (kubernetes build/common.sh: KUBE_APISERVER_BASE_IMAGE and its siblings default to
  // KUBE_GORUNNER_IMAGE; kubernetes/release images/build/go-runner); karmada's chart runs
  // registry.k8s.io/kube-apiserver (review round 26).
  '(^|/)(registry\\.k8s\\.io|k8s\\.gcr\\.io)/kube-(apiserver|controller-manager|scheduler)(:|@|$)',
  // oauth2-proxy from v7.6.0: `latest` and the version tags (and their per-arch `-amd64`, ... tags)
  // are built FROM gcr.io/distroless/static:nonroot; only `latest-alpine` and `<version>-alpine` have
  // a shell (oauth2-proxy/oauth2-proxy @14af2951 Makefile:61 DOCKER_BUILD_RUNTIME_IMAGE, :82-83
  // build-distroless, :86-87 build-alpine, :89-95 build-docker-all; Dockerfile:59 FROM
  // ${RUNTIME_IMAGE}). Distroless since #2295 (be84906f, first released in v7.6.0, CHANGELOG "V7.6.0");
  // v7.5.1 and older were alpine. No tag is `latest`; a bare digest does not say which, and is left
  // out. The oauth2-proxy chart's default image (review round 29).
  '^(?![^@]*:[^@/]*-alpine)(.*/)?oauth2-proxy/oauth2-proxy(:(latest|v7\\.([6-9]|[1-9][0-9])\\.|v([89]|[1-9][0-9])\\.)[^@/]*(@|$)|$)',
  // zitadel: the image is the `final` stage, FROM scratch with only /app/zitadel (zitadel/zitadel
  // apps/api/Dockerfile @05389905, build/Dockerfile @85afb596: `FROM scratch AS final`,
  // ENTRYPOINT ["/app/zitadel"]); the debug image is the debian `builder`/`artifact` stage, tagged
  // `<tag>-debug` (.github/workflows/container.yml @7f7487d6: Scratch target final with no suffix,
  // Debug target artifact with suffix -debug) or, in the newer release, pushed as zitadel-debug
  // (apps/api/docker-bake-release.hcl @191500d8); a bare digest does not say which, and is left out. Not
  // zitadel/zitadel-login (the Node.js login app). The zitadel chart's default image (review round 29).
  '^(?![^@]*:[^@/]*-debug)(.*/)?zitadel/zitadel(:[^@/]+(@|$)|$)',
];

/** A compiled image pattern; one that is not a valid regular expression matches literally. */
function imageMatcher(p: string): (image: string) => boolean {
  try {
    const re = new RegExp(p);
    return (image: string) => re.test(image);
  } catch {
    return (image: string) => image.includes(p);
  }
}

const compiled = new WeakMap<readonly string[], (image: string) => boolean>();

/**
 * Whether an image looks shell-less (no `sh`, no `sleep` binary) by `patterns` (prestop-sleep-action's
 * `shellLessImagePatterns`; the defaults when not given).
 */
export function shellLessImage(image: string | undefined, patterns: readonly string[] = DEFAULT_SHELL_LESS_IMAGE_PATTERNS): boolean {
  if (!image) return false;
  let m = compiled.get(patterns);
  if (!m) {
    const ms = patterns.map(imageMatcher);
    compiled.set(patterns, (m = (i: string) => ms.some((x) => x(i))));
  }
  return m(image);
}

/** prestop-sleep-action's `shellLessImagePatterns` from its params (the defaults when absent or not a list of strings). */
export function shellLessPatterns(params: Record<string, unknown> | undefined): readonly string[] {
  const p = params?.shellLessImagePatterns;
  return Array.isArray(p) && p.every((x) => typeof x === 'string') ? (p as string[]) : DEFAULT_SHELL_LESS_IMAGE_PATTERNS;
}
