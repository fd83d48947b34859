import { Document, DOMImplementation, Element, XMLSerializer } from '@xmldom/xmldom';
import { LintResult } from '../engine/run';
import { Finding, Severity, SEVERITY_RANK } from '../engine/types';
import { InputError, ObjectRef } from '../model/types';
import { escapeControl, jsonInert } from './escape';

/*
 * JUnit XML for test dashboards: one <testsuite> per file, one <testcase> per object checked,
 * one <failure> per unsuppressed finding at or above --fail-on; findings below it and suppressed
 * findings go to the testcase's <system-out>; input errors are <error> testcases. The `failures`
 * and `errors` counts are of testcases (as Surefire counts them), so tests - failures - errors passed.
 *
 * The document is built with @xmldom/xmldom and serialized by its XMLSerializer, which escapes
 * `&`, `<`, `>`, `"` and, in attributes, TAB/LF/CR as character references, so messages survive
 * a round trip through any conforming parser (attribute-value normalization would otherwise turn
 * newlines into spaces).
 */

interface Case {
  name: string;
  failures: Finding[];
  out: string[];
  error?: InputError;
}

interface Suite {
  file: string;
  cases: Case[];
}

/** Characters outside the XML 1.0 Char production cannot be written at all, not even as references. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xmlSafe(s: string): string {
  // C1 controls and DEL are XML characters but would reach a terminal raw: shown as \u009b.
  // (In attributes the serializer writes CR, LF and tab as character references.)
  return jsonInert(s.replace(NOT_XML_CHAR, '\uFFFD'));
}

/** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects. */
export function caseName(o: ObjectRef): string {
  return o.namespace !== undefined ? `${o.kind}/${o.namespace}/${o.name}` : `${o.kind}/${o.name}`;
}

function identity(file: string, o: ObjectRef): string {
  return JSON.stringify([file, o.apiVersion, o.kind, o.namespace ?? null, o.name]);
}

function findingLine(f: Finding): string {
  return `${f.file}:${f.line}:${f.column} ${f.severity} ${f.ruleId} ${f.message}`;
}

function isFailure(f: Finding, failOn: Severity | 'never'): boolean {
  return !f.suppressed && failOn !== 'never' && SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn];
}

function collect(result: LintResult, failOn: Severity | 'never'): Suite[] {
  const suites = new Map<string, Suite>();
  const suite = (file: string): Suite => {
    let s = suites.get(file);
    if (!s) suites.set(file, (s = { file, cases: [] }));
    return s;
  };
  // The objects checked, in input order; an identity may repeat (the same object twice in a file).
  const byIdentity = new Map<string, Array<{ line: number; c: Case }>>();
  for (const p of result.parsed) {
    if (p.objects.length === 0) continue;
    const s = suite(p.file);
    for (const obj of p.objects) {
      const c: Case = { name: caseName(obj), failures: [], out: [] };
      s.cases.push(c);
      const key = identity(obj.file, obj);
      const list = byIdentity.get(key) ?? [];
      list.push({ line: obj.line, c });
      byIdentity.set(key, list);
    }
  }
  for (const e of result.errors) suite(e.file).cases.push({ name: `input error at ${e.line}:${e.column}`, failures: [], out: [], error: e });
  for (const f of result.findings) {
    const candidates = byIdentity.get(identity(f.file, f.object));
    let c: Case;
    if (candidates) {
      // With duplicates, the finding belongs to the last object that starts at or before it.
      const before = candidates.filter((x) => x.line <= f.line);
      c = (before.length ? before[before.length - 1] : candidates[0]).c;
    } else {
      // Not among the parsed objects (should not happen): still reported, under its own case.
      c = { name: caseName(f.object), failures: [], out: [] };
      suite(f.file).cases.push(c);
      byIdentity.set(identity(f.file, f.object), [{ line: 0, c }]);
    }
    if (isFailure(f, failOn)) c.failures.push(f);
    else c.out.push(f.suppressed ? `${findingLine(f)} (suppressed${f.suppressionReason !== undefined ? `: ${f.suppressionReason}` : ''})` : findingLine(f));
  }
  return [...suites.values()];
}

class Builder {
  constructor(readonly doc: Document) {}

  el(name: string, attrs: Record<string, string | number>, text?: string): Element {
    const e = this.doc.createElement(name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, xmlSafe(String(v)));
    if (text !== undefined) e.appendChild(this.doc.createTextNode(xmlSafe(text)));
    return e;
  }

  /** Appends element children with indentation (whitespace only between elements, never in text). */
  append(parent: Element, children: Element[], depth: number): void {
    if (!children.length) return;
    for (const child of children) {
      parent.appendChild(this.doc.createTextNode(`\n${'  '.repeat(depth + 1)}`));
      parent.appendChild(child);
    }
    parent.appendChild(this.doc.createTextNode(`\n${'  '.repeat(depth)}`));
  }
}

/** The lint result as a JUnit XML document. Pure: no I/O. */
export function toJunit(result: LintResult, failOn: Severity | 'never'): string {
  const suites = collect(result, failOn);
  const doc = new DOMImplementation().createDocument(null, 'testsuites', null);
  const b = new Builder(doc);
  const root = doc.documentElement!;
  const count = (cases: Case[]) => ({
    tests: cases.length,
    failures: cases.filter((c) => c.failures.length > 0 && !c.error).length,
    errors: cases.filter((c) => c.error).length,
  });
  const all = count(suites.flatMap((s) => s.cases));
  for (const [k, v] of Object.entries({ name: 'kubegrace', tests: all.tests, failures: all.failures, errors: all.errors })) root.setAttribute(k, String(v));

  const suiteEls = suites.map((s) => {
    const n = count(s.cases);
    const se = b.el('testsuite', { name: s.file, tests: n.tests, failures: n.failures, errors: n.errors, skipped: 0 });
    const caseEls = s.cases.map((c) => {
      const ce = b.el('testcase', { classname: s.file, name: c.name });
      const kids: Element[] = [];
      if (c.error) {
        const e = c.error;
        kids.push(b.el('error', { message: e.message, type: 'input-error' }, escapeControl(`${e.file}:${e.line}:${e.column} error ${e.message}`)));
      }
      for (const f of c.failures) kids.push(b.el('failure', { message: f.message, type: f.ruleId }, escapeControl(findingLine(f))));
      // One line per finding: text from manifests cannot add lines of its own.
      if (c.out.length) kids.push(b.el('system-out', {}, c.out.map(escapeControl).join('\n')));
      b.append(ce, kids, 2);
      return ce;
    });
    b.append(se, caseEls, 1);
    return se;
  });
  b.append(root, suiteEls, 0);
  const xml = new XMLSerializer().serializeToString(doc, { requireWellFormed: true });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml}\n`;
}
