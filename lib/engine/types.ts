import { ObjectGraph } from '../model/graph';
import { KObject, ObjectRef, Position } from '../model/types';
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
}

export interface RuleContext {
  readonly graph: ObjectGraph;
  readonly version: KubeVersion;
  /** The rule's params: defaults merged with the policy's. */
  readonly params: Record<string, unknown>;
  report(r: Report): void;
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
  fixable: boolean;
}
