/**
 * Property-style checks of `--fix` over every YAML file of the real-world corpus (rendered charts,
 * static manifests, and the raw chart sources, which are mostly unparseable templates): the output
 * parses, changes values only under the pointers the applied fixes edited (plus the documents they
 * added), never touches spec.selector, and a second run is a no-op.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { AppliedFix, changedPaths, fixSources, isUnder } from '../../lib/fix';
import { parseText, pointerSegments } from '../../lib/model/parse';
import { ALL_RULES } from '../../lib/rules';
import { yamlFiles } from '../helpers/files';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');

const FILES = fs.existsSync(CORPUS) ? yamlFiles(CORPUS) : [];
const POLICY = loadPolicy('recommended', ALL_RULES);

interface Doc {
  value: unknown;
  errors: number;
}

function docs(text: string): Doc[] {
  const t = text.replace(/^\ufeff/, '');
  return Array.from(parseAllDocuments(t) as unknown as Iterable<{ toJS(o: object): unknown; errors: unknown[]; contents: unknown }>).map((d) => {
    let value: unknown;
    try {
      value = d.errors.length ? undefined : d.toJS({ maxAliasCount: 100 });
    } catch {
      value = undefined;
    }
    return { value, errors: d.errors.length };
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  return changedPaths(a, b).length === 0;
}

/** The document pointers (segments) an applied fix may change, per original document index. */
function allowedPaths(text: string, file: string, applied: AppliedFix[]): Map<number, string[][]> {
  const objects = parseText(file, text.replace(/^\ufeff/, '')).objects;
  const out = new Map<number, string[][]>();
  for (const a of applied) {
    const targets = objects.filter((o) => o.kind === a.object.kind && o.name === a.object.name && o.namespace === a.object.namespace);
    expect({ fix: a.description, objectFound: targets.length > 0 }).toEqual({ fix: a.description, objectFound: true });
    for (const o of targets) {
      const list = out.get(o.docIndex) ?? [];
      for (const e of a.edits) {
        if (e.op === 'add-object') continue;
        const segs = pointerSegments(o.basePointer + e.pointer);
        list.push(segs);
        // Removing a sequence item renumbers the items after it.
        if (e.op === 'remove') list.push(segs.slice(0, -1));
      }
      out.set(o.docIndex, list);
    }
  }
  return out;
}

const VERSIONS = ['1.33', '1.29'];

describe('--fix over the corpus', () => {
  test('the corpus is there', () => {
    expect(FILES.length).toBeGreaterThan(100);
  });

  for (const version of VERSIONS) {
    describe(`Kubernetes ${version}, with proposals`, () => {
      const changed: string[] = [];
      const spliced: number[] = [];
      for (const abs of FILES) {
        const file = path.relative(CORPUS, abs);
        test(file, () => {
          const text = fs.readFileSync(abs, 'utf8');
          const opts = { rules: ALL_RULES, policy: POLICY, version: KubeVersion.parse(version), proposals: true, verifyPiecewise: true };
          const r = fixSources([{ file, text }], opts);
          const f = r.files[0];
          // The slices a writer takes (before anything makes the text whole) are the text.
          const chunks = f.chunks();
          expect(f.original).toBe(text);
          expect(chunks.join('')).toBe(f.text);
          expect(f.changed).toBe(f.text !== text);
          // The yaml Document route everywhere (no text splices) writes the same file and reports the same.
          if (version === VERSIONS[0]) {
            const routed = fixSources([{ file, text }], { ...opts, textSplice: false });
            expect(routed.files[0].text).toBe(f.text);
            expect(routed.files[0].applied).toEqual(f.applied);
            expect(routed.skipped.map((s) => [s.finding.ruleId, s.finding.line, s.reason])).toEqual(r.skipped.map((s) => [s.finding.ruleId, s.finding.line, s.reason]));
            spliced.push(r.work.documentsSpliced);
          }
          expect({ converged: r.converged, unconverged: r.skipped.filter((s) => /passes/.test(s.reason)).map((s) => s.finding.ruleId) }).toEqual({ converged: true, unconverged: [] });
          if (f.text === text) {
            expect(f.applied).toEqual([]);
            return;
          }
          expect(f.applied.length).toBeGreaterThan(0);
          changed.push(file);

          // No fix edits spec.selector.
          for (const a of f.applied) for (const e of a.edits) if (e.op !== 'add-object') expect(e.pointer.startsWith('/spec/selector')).toBe(false);

          // The output parses: documents that parsed still do, and none gained errors.
          const before = docs(text);
          const after = docs(f.text);
          const added = f.applied.flatMap((a) => a.edits.flatMap((e) => (e.op === 'add-object' ? [e.value] : [])));
          expect(after.length).toBe(before.length + added.length);
          expect(after.reduce((n, d) => n + d.errors, 0)).toBeLessThanOrEqual(before.reduce((n, d) => n + d.errors, 0));

          // Values change only under the edited pointers; the other documents are the added objects.
          const allowed = allowedPaths(text, file, f.applied);
          const pending = [...added];
          let i = 0;
          for (const d of after) {
            const k = pending.findIndex((v) => sameJson(v, d.value));
            if (i < before.length && (k < 0 || sameJson(before[i].value, d.value))) {
              const b = before[i];
              if (b.errors) expect(d.errors).toBeGreaterThan(0);
              else {
                expect(d.errors).toBe(0);
                const outside = changedPaths(b.value, d.value).filter((p) => !(allowed.get(i) ?? []).some((t) => isUnder(p, t)));
                expect({ document: i, outside: outside.map((p) => '/' + p.join('/')) }).toEqual({ document: i, outside: [] });
              }
              i++;
            } else {
              expect({ document: i, addedObjectFound: k >= 0 }).toEqual({ document: i, addedObjectFound: true });
              pending.splice(k, 1);
            }
          }
          expect(i).toBe(before.length);
          expect(pending).toEqual([]);

          // Idempotent.
          const again = fixSources([{ file, text: f.text }], opts);
          expect(again.files[0].applied.map((a) => `${a.ruleId}: ${a.description}`)).toEqual([]);
          expect(again.files[0].text).toBe(f.text);
        });
      }
      // Runs after the file tests (jest keeps the order): the properties were checked on real fixes.
      test('most rendered files had something to fix', () => {
        expect(changed.filter((f) => f.startsWith('rendered/')).length).toBeGreaterThanOrEqual(25);
      });
      if (version === VERSIONS[0]) {
        test('text splices wrote documents in most fixed files (compared with the Document route above)', () => {
          expect(spliced.filter((n) => n > 0).length).toBeGreaterThanOrEqual(20);
        });
      }
    });
  }
});
