import type { Catalog } from '../catalog';
import { ObjectGraph } from '../model/graph';
import { Json, JsonObject, KObject, ObjectRef, Position } from '../model/types';
import { KubeVersion } from './version';

export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

/** A rule's metadata: the single source for `kubegrace rules`, the docs and SARIF. */
export interface RuleMeta {
  /** Stable public ID (RULES.md). */
  id: string;
  /** The spec section in graceful-termination.md, e.g. TERM-001. */
  spec: string;
  /** The usual severity in the recommended policy. */
  defaultSeverity: Severity;
  /** Every severity the rule can report, per condition. */
  severities: Severity[];
  /** One line: what it catches. */
  description: string;
  /** Long documentation (Markdown): why, the conditions, the fix. */
  doc: string;
  /** Whether `--fix` can repair it. */
  fixable: boolean;
  /** Human-readable version gate, if the rule's behaviour depends on the target version. */
  versionGate?: string;
  /** JSON Schema of the rule's params (policy `params`), with defaults. */
  paramsSchema?: Record<string, unknown>;
  /** Default params. */
  defaults?: Record<string, unknown>;
  /** Primary sources, as cited by the spec. */
  references?: string[];
}

export interface Report {
  object: KObject;
  /** JSON pointer relative to the object, e.g. /spec/template/spec/containers/0/lifecycle. */
  pointer: string;
  message: string;
  /** The condition's severity, when it differs from the rule's default. */
  severity?: Severity;
  /** The repair, when the rule can make one for this condition (RULES.md "fix" column). */
  fix?: Fix;
  /**
   * The finding concludes that something is missing from the linted set (no pod template for a
   * Service, no workload for a budget, no budget for a workload): not reported for an object of a
   * Helm chart rendered without some of its templates (the missing thing may be in them), and
   * reported at most as info, saying why, for an object of a file with a document that could
   * not be read (a YAML syntax error: the missing thing may be in it).
   */
  absence?: true;
}

/**
 * One edit of a fix. Pointers are JSON pointers relative to the finding's object (the same
 * space as `Report.pointer`); the fixer maps them onto the YAML Document and edits it in place.
 */
export type FixEdit =
  /** Sets the value at pointer, creating missing parent mappings; replaces what is there. */
  | { op: 'set'; pointer: string; value: Json }
  /** Appends to the sequence at pointer, creating the sequence if it is missing. */
  | { op: 'append'; pointer: string; value: Json }
  /** Removes the value at pointer (no-op when absent). */
  | { op: 'remove'; pointer: string }
  /** Adds a new object as a new YAML document right after the document of the finding's object. */
  | { op: 'add-object'; value: JsonObject };

/**
 * A rule's repair for one finding. `safe` repairs are the auto-fix set of
 * graceful-termination.md section 12 and are applied by `--fix`; `proposal` repairs (new
 * objects such as PDBs, mesh annotations, moving containers) are applied only when the user
 * asks for proposals too (`--fix-proposals`).
 */
export interface Fix {
  /** One line, imperative: "set terminationGracePeriodSeconds to 45". */
  description: string;
  safety: 'safe' | 'proposal';
  edits: FixEdit[];
}

export interface RuleContext {
  readonly graph: ObjectGraph;
  /** The catalog of well-known workloads (lib/catalog) with the policy's overrides applied. */
  readonly catalog: Catalog;
  readonly version: KubeVersion;
  /** The rule's params: defaults merged with the policy's. */
  readonly params: Record<string, unknown>;
  /**
   * Another rule's params in this run (its defaults, when it is one of the run's rules, merged with
   * the policy's), whether or not it is on: for a rule that must agree with it on a fact (which
   * images are shell-less: prestop-sleep-action's shellLessImagePatterns).
   */
  paramsOf(ruleId: string): Record<string, unknown>;
  /**
   * Reports a finding; false when the run already has it (the same finding of an object that is
   * in several worlds of variants: engine/worlds.ts), which is then not reported again.
   */
  report(r: Report): boolean;
  /**
   * Whether the run reports rule `ruleId` on `object` when it applies: the policy does not turn it
   * off and the object does not suppress it (`kubegrace.dev/ignore`). A repair that also does
   * another rule's repair asks first (zero-grace-period adds the hooks prestop-missing asks for).
   */
  active(ruleId: string, object: KObject): boolean;
}

export interface Rule {
  meta: RuleMeta;
  check(ctx: RuleContext): void;
}

export interface Finding extends Position {
  ruleId: string;
  severity: Severity;
  message: string;
  file: string;
  object: ObjectRef;
  pointer: string;
  suppressed: boolean;
  /** Why it was suppressed (`kubegrace.dev/ignore-reason`), when it was. */
  suppressionReason?: string;
  /** Whether this finding carries a repair (`fix`); the rule's `meta.fixable` says whether it ever can. */
  fixable: boolean;
  /** The repair for this finding, if the rule made one (not part of the JSON output). */
  fix?: Fix;
}
