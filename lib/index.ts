/**
 * kubegrace: graceful-termination constructs for cdk8s, the linter engine and its cdk8s
 * validation plugin. Everything an app repository needs is exported from here.
 */

// cdk8s constructs (GracefulDeployment, GracefulStatefulSet, GracefulDaemonSet, ...) and their props.
export * from './constructs';

// The cdk8s validation plugin (`class: KubegraceValidation` in cdk8s.yaml).
export * from './cdk8s';

// The linter as a library: the same engine the CLI and the plugin run.
export { exitCode, lintSources, summarize } from './engine/run';
export type { LintOptions, LintResult, Summary } from './engine/run';
export { loadConfig, loadPolicy, PolicyError, withOverrides } from './engine/policy';
export type { Config, ResolvedPolicy } from './engine/policy';
export { DEFAULT_KUBE_VERSION, KubeVersion, NEWEST_KNOWN } from './engine/version';
export type { Finding, Rule, RuleContext, RuleMeta, Severity } from './engine/types';
export { ALL_RULES, ruleById } from './rules';

// The termination timeline and reconnect model the rules and the constructs share.
export { containerBudget, DEFAULT_DRAIN_SECONDS, GRACE_MARGIN_SECONDS, recommendedGrace } from './timeline/budget';
export type { Addend, ContainerBudget } from './timeline/budget';
export { classifyPreStop, preStopDelay } from './timeline/prestop';
export type { PreStopDelay } from './timeline/prestop';
export { estimateReconnect, formatBackoff, parseBackoff, reconnectProbabilityWithin } from './timeline/reconnect';
export type { Backoff, ReconnectEstimate } from './timeline/reconnect';

// The catalog of well-known workloads and programs (docs/catalog.md): matching and the hint-aware helpers.
export { builtinCatalog, Catalog, catalogMatches, connectionPatternOf, dependencyProbe, isProcessLocalProbe, knownPreStopProgram, needsPeerDiscovery } from './catalog';
export type { CatalogEntry, CatalogKind, CatalogOverride, ConnectionPatternResult, KnownPreStop, PeerDiscoveryResult } from './catalog';

// Repairs (`kubegrace lint --fix`): fixes applied to the YAML in place, comments kept.
export { fixSources, unifiedDiff } from './fix';
export type { AppliedFix, FixedFile, FixOptions } from './fix';
export type { Fix, FixEdit } from './engine/types';

// Explain and simulate: the termination timeline model, its text and SVG renderings, and the
// section 11 reconnect model over a whole rollout.
export { explainWorkload, simulateRollout, timelinesSvg, timelinesText } from './explain';
export type { Simulation, SimulateInput, Timeline } from './explain';

// Helm charts from synthesized manifests, reproducible packages and a repository index.
export { generateChart } from './helm/generate';
export type { ChartSpec, GeneratedChart } from './helm/generate';
export { packageChart } from './helm/package';
export { writeRepoIndex } from './helm/repo-index';
