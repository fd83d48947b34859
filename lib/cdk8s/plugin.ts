import * as path from 'path';
import { Config, discoverConfig, loadConfig, loadPolicy, withOverrides } from '../engine/policy';
import { lintSources, LintResult, summarize } from '../engine/run';
import { Finding, Severity, SEVERITY_RANK } from '../engine/types';
import { DEFAULT_KUBE_VERSION, KubeVersion } from '../engine/version';
import { collectSources } from '../model/sources';
import { ALL_RULES, ruleById } from '../rules';
import { ruleDocsLink } from '../rules/docs-url';
import { RuleMeta } from '../engine/types';

/*
 * The cdk8s validation-plugin contract (cdk8s-cli lib/plugins/validation.d.ts), restated
 * structurally so that cdk8s-cli stays a development dependency of this package.
 */

/** A resource named in a violation; cdk8s adds its construct path from the synth metadata. */
export interface ValidationViolatingResource {
  readonly resourceName: string;
  readonly locations: readonly string[];
  readonly manifestPath: string;
}

export interface ValidationViolation {
  readonly ruleName: string;
  readonly recommendation: string;
  readonly fix: string;
  readonly violatingResources: readonly ValidationViolatingResource[];
}

/** What `cdk8s synth` hands a validation plugin. */
export interface ValidationContext {
  /** Paths of the synthesized manifests. */
  readonly manifests: readonly string[];
  /** Construct metadata by resource name (`metadata.name`). */
  readonly metadata?: { readonly [resourceName: string]: { readonly path: string } };
  readonly report: {
    addViolation(violation: ValidationViolation): void;
    submit(status: 'success' | 'failure', metadata?: { readonly [key: string]: string }): void;
  };
  readonly logger: { log(message: string): void };
}

/** The `properties` of the plugin in cdk8s.yaml. */
export interface KubegraceValidationProps {
  /**
   * `recommended`, `strict`, or a policy file (relative to the working directory).
   * @default - the config file's policy, else 'strict'
   */
  readonly policy?: string;
  /**
   * Target Kubernetes version (X.Y or X.Y.Z).
   * @default - the config file's kubernetesVersion, else the newest minor the rules know
   */
  readonly kubernetesVersion?: string;
  /**
   * The lowest severity that fails the synthesis: `error`, `warning`, `info` or `never`.
   * @default - the config file's failOn, else 'error'
   */
  readonly failOn?: Severity | 'never';
  /**
   * A `.kubegrace.yaml` config file (policy, version, rule overrides), relative to the working directory.
   * @default - discovered upward from the working directory, as the CLI does
   */
  readonly config?: string;
}

const FAIL_ON = ['error', 'warning', 'info', 'never'];

function fail(message: string): never {
  throw new Error(`kubegrace validation plugin: ${message}`);
}

/**
 * The kubegrace linter as a cdk8s validation plugin: `cdk8s synth` runs the same engine, rules and
 * policies as `kubegrace lint` over the synthesized manifests and fails on findings at or above
 * `failOn`. Every unsuppressed finding becomes a violation named by its rule ID, with the object,
 * JSON pointer and file:line:col; cdk8s adds the construct path.
 *
 * ```yaml
 * # cdk8s.yaml
 * validations:
 *   - package: ./node_modules/kubegrace
 *     version: 0.1.0
 *     class: KubegraceValidation
 *     properties: { policy: strict, failOn: error }
 * ```
 */
export class KubegraceValidation {
  readonly props: KubegraceValidationProps;

  constructor(props: KubegraceValidationProps = {}) {
    if (props === null || typeof props !== 'object') fail('properties must be a mapping');
    for (const k of Object.keys(props)) {
      if (!['policy', 'kubernetesVersion', 'failOn', 'config'].includes(k)) fail(`unknown property "${k}": use policy, kubernetesVersion, failOn or config`);
    }
    if (props.failOn !== undefined && !FAIL_ON.includes(props.failOn)) fail(`failOn must be error, warning, info or never (got "${String(props.failOn)}")`);
    if (props.kubernetesVersion !== undefined) KubeVersion.parse(String(props.kubernetesVersion));
    this.props = props;
  }

  /** Lints files with the plugin's settings, relative to `cwd`. */
  lint(files: readonly string[], cwd = process.cwd()): { result: LintResult; failOn: Severity | 'never'; policy: string; version: KubeVersion } {
    const configFile = this.props.config ? path.resolve(cwd, this.props.config) : discoverConfig(cwd);
    const config: Config = configFile ? loadConfig(configFile, ALL_RULES) : {};
    const policyName = this.props.policy ?? config.policy ?? 'strict';
    const policy = withOverrides(loadPolicy(policyName, ALL_RULES, cwd), config.rules);
    const versionRaw = this.props.kubernetesVersion ?? config.kubernetesVersion;
    const version = versionRaw !== undefined ? KubeVersion.parse(String(versionRaw)) : DEFAULT_KUBE_VERSION;
    const failOn = this.props.failOn ?? config.failOn ?? 'error';
    const { sources, errors } = collectSources([...files], { cwd });
    const result = lintSources(sources, { rules: ALL_RULES, policy, version }, errors);
    return { result, failOn, policy: policyName, version };
  }

  async validate(context: ValidationContext): Promise<void> {
    const { result, failOn, policy, version } = this.lint(context.manifests);
    let failed = result.errors.length > 0;
    for (const e of result.errors) {
      context.report.addViolation({
        ruleName: 'kubegrace/input-error',
        recommendation: e.message,
        fix: 'make the manifest valid YAML or JSON',
        violatingResources: [{ resourceName: '-', manifestPath: e.file, locations: [`${e.file}:${e.line}:${e.column}`] }],
      });
    }
    const shown = result.findings.filter((f) => !f.suppressed).sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
    const color = useColor();
    const lines: string[] = [];
    // cdk8s maps a violation to its construct by metadata.name alone (construct-metadata.json), so
    // a Deployment and its Service of the same name would both get the path of whichever came last.
    const named = new Map<string, number>();
    for (const o of result.parsed.flatMap((p) => p.objects)) named.set(o.name, (named.get(o.name) ?? 0) + 1);
    const ambiguous = new Set([...named].filter(([, n]) => n > 1).map(([name]) => name));
    for (const f of shown) {
      const fails = failOn !== 'never' && SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn];
      if (fails) failed = true;
      context.report.addViolation(violationOf(f, fails, failOn, ambiguous.has(f.object.name)));
      const ns = f.object.namespace ? `${f.object.namespace}/` : '';
      lines.push(`  ${paint(color, f.severity, f.severity.padEnd(7))} ${f.ruleId}  ${f.object.kind}/${ns}${f.object.name}  ${f.file}:${f.line}:${f.column}${fails ? '' : '  (does not fail the synth)'}`);
    }
    const s = summarize(result);
    context.logger.log(
      `kubegrace: ${plural(s.objects, 'object')} in ${plural(s.files, 'manifest')}: ${plural(s.error, 'error')}, ${plural(s.warning, 'warning')}, ${s.info} info, ${s.suppressed} suppressed (policy ${policy}, Kubernetes ${version.toString()}, fail on ${failOn})`,
    );
    if (lines.length) context.logger.log(lines.join('\n'));
    context.report.submit(failed ? 'failure' : 'success', {
      policy,
      kubernetesVersion: version.toString(),
      failOn,
      errors: String(s.error),
      warnings: String(s.warning),
      info: String(s.info),
      suppressed: String(s.suppressed),
    });
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Colour only on a terminal, never with NO_COLOR or FORCE_COLOR=0 (as the CLI does). */
function useColor(): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR === '0') return false;
  return process.stdout.isTTY === true || (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '');
}

const SEVERITY_COLOR: Record<Severity, string> = { error: '31', warning: '33', info: '36' };

function paint(on: boolean, severity: Severity, text: string): string {
  return on ? `\x1b[${SEVERITY_COLOR[severity]}m${text}\x1b[39m` : text;
}

/**
 * The "Fix" section of a rule's doc: its paragraph (`Fix: raise ...`, `**Fix:** ...`,
 * `Fix (proposed, not automatic):`) without Markdown emphasis, then the list or YAML example that
 * follows it (YAML kept as written, indented), and nothing after: the `--fix` notes are about the CLI.
 */
export function ruleFixText(meta: RuleMeta): string | undefined {
  const lines = meta.doc.split('\n');
  let i = lines.findIndex((l) => /^(?:\*\*)?Fix\b/.test(l.trim()));
  if (i < 0) return undefined;
  const para = (): string[] => {
    const out: string[] = [];
    while (i < lines.length && lines[i].trim() !== '' && !lines[i].trim().startsWith('```')) out.push(lines[i++].trim());
    return out;
  };
  const skipBlank = () => {
    while (i < lines.length && lines[i].trim() === '') i++;
  };
  const text = para()
    .join(' ')
    .replace(/\*\*/g, '')
    .replace(/^Fix\s*(\([^)]*\))?\s*:?\s*/, (_m, why: string | undefined) => (why ? `${why}: ` : ''))
    .trim();
  const parts: string[] = text ? [text] : [];
  skipBlank();
  if ((text === '' || text.endsWith(':')) && i < lines.length && !lines[i].trim().startsWith('```') && /^[-*] /.test(lines[i].trim())) {
    parts.push(para().join(' ').replace(/\*\*/g, ''));
    skipBlank();
  }
  if (i < lines.length && lines[i].trim().startsWith('```')) {
    const code: string[] = [];
    for (i++; i < lines.length && !lines[i].trim().startsWith('```'); i++) code.push(`    ${lines[i]}`);
    parts.push(code.join('\n'));
  }
  if (parts.length === 0) return undefined;
  // A section that is only an example starts on its own line, as the YAML is indented.
  return `${text ? '' : '\n'}${parts.join('\n')}`.replace(/:\s*$/, '').trimEnd();
}

/**
 * One finding as a cdk8s violation. `ambiguousName`: other objects share the object's name, so the
 * resource is named `Kind/name`, which cdk8s cannot map to a construct ("N/A") rather than to the
 * wrong one.
 */
function violationOf(f: Finding, fails: boolean, failOn: Severity | 'never', ambiguousName = false): ValidationViolation {
  const meta = ruleById(f.ruleId)?.meta;
  const ns = f.object.namespace ? `${f.object.namespace}/` : '';
  const how = f.fix ? f.fix.description : meta ? ruleFixText(meta) : undefined;
  const docs = meta ? ruleDocsLink(f.ruleId) : undefined;
  const fix = `${how ?? (meta ? meta.description : `custom rule ${f.ruleId} of the policy: see the policy file`)}${docs ? `\n  Rule doc: ${docs}` : ''}`;
  return {
    ruleName: f.ruleId,
    recommendation: `${f.severity}: ${f.message}${fails ? '' : ` (does not fail the synth: failOn is ${failOn})`}`,
    fix,
    violatingResources: [
      {
        resourceName: ambiguousName ? `${f.object.kind}/${f.object.name}` : f.object.name,
        manifestPath: f.file,
        locations: [`${f.object.kind}/${ns}${f.object.name} ${f.pointer || '/'} (${f.file}:${f.line}:${f.column})`],
      },
    ],
  };
}
