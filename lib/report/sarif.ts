import { createHash } from 'crypto';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { LintResult } from '../engine/run';
import { Finding, RuleMeta, Severity } from '../engine/types';
import { STDIN_NAME } from '../model/sources';
import { InputError, ObjectRef } from '../model/types';
import { DOCS_BASE_URL, ruleDocsUrl } from '../rules/docs-url';

/*
 * SARIF 2.1.0 (OASIS), the subset kubegrace writes. The shapes follow the official schema
 * (sarif-schema-2.1.0.json); the tests validate the output against it.
 */

export type SarifLevel = 'error' | 'warning' | 'note' | 'none';

export interface SarifMessage {
  text: string;
  markdown?: string;
}

export interface SarifArtifactLocation {
  uri: string;
  uriBaseId?: string;
  description?: SarifMessage;
}

export interface SarifRegion {
  startLine: number;
  startColumn: number;
}

export interface SarifPhysicalLocation {
  artifactLocation: SarifArtifactLocation;
  region: SarifRegion;
}

export interface SarifLogicalLocation {
  name: string;
  fullyQualifiedName: string;
  kind: string;
}

export interface SarifLocation {
  physicalLocation?: SarifPhysicalLocation;
  logicalLocations?: SarifLogicalLocation[];
}

export interface SarifSuppression {
  kind: 'inSource' | 'external';
  status: 'accepted';
  justification?: string;
}

export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: SarifMessage;
  locations: SarifLocation[];
  partialFingerprints: Record<string, string>;
  suppressions: SarifSuppression[];
  properties: { pointer: string; fixable: boolean };
}

export interface SarifReportingDescriptor {
  id: string;
  name: string;
  shortDescription: SarifMessage;
  fullDescription: SarifMessage;
  help?: SarifMessage;
  helpUri?: string;
  defaultConfiguration: { level: SarifLevel };
  properties: { tags: string[]; fixable: boolean; spec?: string; versionGate?: string };
}

export interface SarifNotification {
  level: SarifLevel;
  message: SarifMessage;
  locations: SarifLocation[];
  descriptor: { id: string };
}

export interface SarifInvocation {
  executionSuccessful: boolean;
  toolExecutionNotifications: SarifNotification[];
}

export interface SarifRun {
  tool: {
    driver: {
      name: string;
      informationUri: string;
      version: string;
      semanticVersion?: string;
      rules: SarifReportingDescriptor[];
    };
  };
  invocations: SarifInvocation[];
  originalUriBaseIds: Record<string, { uri: string; description?: SarifMessage }>;
  columnKind: 'utf16CodeUnits' | 'unicodeCodePoints';
  results: SarifResult[];
  properties: { kubernetesVersion: string };
}

export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: SarifRun[];
}

export interface SarifOptions {
  /** The working directory: artifact URIs are relative to it (`%SRCROOT%`). */
  cwd: string;
  /** kubegrace's own version (package.json). */
  toolVersion: string;
  /** Base URI of the repository the rule docs live in; `docs/rules/<id>.md` is appended. */
  docsBaseUri?: string;
}

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
export const DEFAULT_DOCS_BASE_URI = DOCS_BASE_URL;
const INFORMATION_URI = 'https://github.com/kubegrace/kubegrace';
/** The partialFingerprints key: bump the version if the hashed identity ever changes. */
export const FINGERPRINT_KEY = 'kubegrace/v1';
const SRCROOT = '%SRCROOT%';

const LEVEL: Record<Severity, SarifLevel> = { error: 'error', warning: 'warning', info: 'note' };

/** `grace-period-budget` -> `GracePeriodBudget` (SARIF's reportingDescriptor.name). */
export function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** The first paragraph of a rule's Markdown doc, unwrapped: a longer description than the one-liner. */
function firstParagraph(doc: string): string {
  const para = doc.trim().split(/\n\s*\n/)[0] ?? '';
  return para.replace(/\s*\n\s*/g, ' ').trim();
}

function descriptor(meta: RuleMeta, docsBase: string): SarifReportingDescriptor {
  const helpUri = ruleDocsUrl(meta.id, docsBase);
  const props: SarifReportingDescriptor['properties'] = {
    tags: ['kubernetes', 'graceful-termination', meta.spec],
    fixable: meta.fixable,
    spec: meta.spec,
  };
  if (meta.versionGate) props.versionGate = meta.versionGate;
  return {
    id: meta.id,
    name: pascalCase(meta.id),
    shortDescription: { text: meta.description },
    fullDescription: { text: firstParagraph(meta.doc) || meta.description },
    help: { text: meta.doc, markdown: `${meta.doc}\n\n[Rule documentation](${helpUri})` },
    helpUri,
    defaultConfiguration: { level: LEVEL[meta.defaultSeverity] },
    properties: props,
  };
}

/** A rule that reported but was not passed in `rules` (e.g. a policy's custom rule without meta). */
function minimalDescriptor(f: Finding): SarifReportingDescriptor {
  return {
    id: f.ruleId,
    name: pascalCase(f.ruleId),
    shortDescription: { text: f.ruleId },
    fullDescription: { text: f.ruleId },
    defaultConfiguration: { level: LEVEL[f.severity] },
    properties: { tags: ['kubernetes', 'graceful-termination'], fixable: f.fixable },
  };
}

/** Percent-encodes each path segment, so spaces, `#`, `?`, `%` and `:` stay a valid URI reference. */
function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

/**
 * The artifact for a displayed file name: relative to `%SRCROOT%` (the working directory) when
 * under it, an absolute file URI when outside, and a non-resolving `stdin` for standard input.
 */
export function artifactLocation(file: string, cwd: string): SarifArtifactLocation {
  if (file === STDIN_NAME) return { uri: 'stdin', description: { text: 'standard input' } };
  const abs = path.resolve(cwd, file);
  const rel = path.relative(cwd, abs);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  if (inside) return { uri: encodePath(rel.split(path.sep).join('/')), uriBaseId: SRCROOT };
  return { uri: pathToFileURL(abs).href };
}

function region(p: { line: number; column: number }): SarifRegion {
  return { startLine: Math.max(1, Math.trunc(p.line) || 1), startColumn: Math.max(1, Math.trunc(p.column) || 1) };
}

/** `namespace/Kind/name`, or `Kind/name` for cluster-scoped objects. */
export function qualifiedName(o: ObjectRef): string {
  return o.namespace !== undefined ? `${o.namespace}/${o.kind}/${o.name}` : `${o.kind}/${o.name}`;
}

/**
 * A fingerprint that survives edits elsewhere in the file: the rule, the file, the object's identity
 * and the JSON pointer, never line numbers or the message (which carries numbers that change).
 */
export function fingerprint(f: Pick<Finding, 'ruleId' | 'file' | 'object' | 'pointer'>, occurrence = 0): string {
  const key = [f.ruleId, f.file, f.object.kind, f.object.namespace ?? '', f.object.name, f.pointer];
  if (occurrence > 0) key.push(String(occurrence));
  return createHash('sha256').update(JSON.stringify(key)).digest('hex');
}

function notification(e: InputError, cwd: string): SarifNotification {
  return {
    level: 'error',
    message: { text: e.message },
    locations: [{ physicalLocation: { artifactLocation: artifactLocation(e.file, cwd), region: region(e) } }],
    descriptor: { id: 'input-error' },
  };
}

function fileUriOfDir(dir: string): string {
  const href = pathToFileURL(dir).href;
  return href.endsWith('/') ? href : `${href}/`;
}

/** The lint result as a SARIF 2.1.0 log with one run. Pure: no I/O. */
export function toSarif(result: LintResult, rules: RuleMeta[], opts: SarifOptions): SarifLog {
  const docsBase = (opts.docsBaseUri ?? DEFAULT_DOCS_BASE_URI).replace(/\/*$/, '/');
  const descriptors: SarifReportingDescriptor[] = [];
  const index = new Map<string, number>();
  for (const meta of rules) {
    if (index.has(meta.id)) continue;
    index.set(meta.id, descriptors.length);
    descriptors.push(descriptor(meta, docsBase));
  }
  for (const f of result.findings) {
    if (index.has(f.ruleId)) continue;
    index.set(f.ruleId, descriptors.length);
    descriptors.push(minimalDescriptor(f));
  }

  // Two findings with the same identity (same rule, object and pointer) get distinct fingerprints
  // by their order of occurrence, which does not depend on line numbers either.
  const seen = new Map<string, number>();
  const results = result.findings.map((f): SarifResult => {
    const base = fingerprint(f);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    const suppressions: SarifSuppression[] = [];
    if (f.suppressed) {
      const s: SarifSuppression = { kind: 'inSource', status: 'accepted' };
      if (f.suppressionReason !== undefined) s.justification = f.suppressionReason;
      suppressions.push(s);
    }
    return {
      ruleId: f.ruleId,
      ruleIndex: index.get(f.ruleId)!,
      level: LEVEL[f.severity],
      message: { text: f.message },
      locations: [
        {
          physicalLocation: { artifactLocation: artifactLocation(f.file, opts.cwd), region: region(f) },
          logicalLocations: [{ name: f.object.name, fullyQualifiedName: qualifiedName(f.object), kind: 'object' }],
        },
      ],
      partialFingerprints: { [FINGERPRINT_KEY]: n === 0 ? base : fingerprint(f, n) },
      // An empty array states "evaluated, not suppressed" (SARIF 3.27.23); absence would mean unknown.
      suppressions,
      properties: { pointer: f.pointer, fixable: f.fixable },
    };
  });

  const driver: SarifRun['tool']['driver'] = {
    name: 'kubegrace',
    informationUri: INFORMATION_URI,
    version: opts.toolVersion,
    rules: descriptors,
  };
  if (/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(opts.toolVersion)) driver.semanticVersion = opts.toolVersion;

  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver },
        invocations: [
          {
            executionSuccessful: result.errors.length === 0,
            toolExecutionNotifications: result.errors.map((e) => notification(e, opts.cwd)),
          },
        ],
        originalUriBaseIds: { [SRCROOT]: { uri: fileUriOfDir(path.resolve(opts.cwd)), description: { text: 'the working directory kubegrace ran in' } } },
        // The yaml library counts columns in UTF-16 code units (JavaScript string offsets).
        columnKind: 'utf16CodeUnits',
        results,
        properties: { kubernetesVersion: result.kubernetesVersion },
      },
    ],
  };
}
