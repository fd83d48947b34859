/**
 * A file read from its bytes (as the CLI reads it: sources.ts utf8Source, the YAML fast path on
 * its Latin-1 reading) is repaired without decoding it whole (FileText.fromLatin1): its documents
 * are cut at `---` lines on the Latin-1 reading and decoded one by one. These tests hold that to
 * the repair of the same text given as a string: the same fixed text, slices, applied fixes and
 * report, over every corpus file and over texts built to tell the two readings apart (characters
 * outside ASCII and Latin-1, a BOM, CRLF, U+2028 and U+00A0 before the first marker, `...`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { FileText, markerSlices } from '../../lib/fix/pieces';
import { Source, utf8Source } from '../../lib/model/sources';
import { ALL_RULES } from '../../lib/rules';
import { yamlFiles } from '../helpers/files';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33'), proposals: true };

function view(src: Source) {
  const r = fixSources([src], OPTS);
  const f = r.files[0];
  // (The slices first: reading the text makes it whole.)
  const chunks = f.chunks().join('');
  return {
    chunks,
    text: f.text,
    original: f.original,
    changed: f.changed,
    applied: f.applied,
    skipped: r.skipped.map((s) => [s.finding.ruleId, s.finding.line, s.finding.column, s.reason]),
    findings: r.lint.findings.map((x) => [x.ruleId, x.line, x.column, x.message]),
    passes: r.passes,
  };
}

function both(file: string, text: string) {
  const asString = view({ file, text } as Source);
  const fromBytes = view(utf8Source(file, Buffer.from(text, 'utf8')));
  expect(asString.chunks).toBe(asString.text);
  return { asString, fromBytes };
}

const DEPLOY = (name: string, extra = '') =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  annotations:\n    note: "${extra}"\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: ${name}\n  template:\n    metadata:\n      labels:\n        app: ${name}\n    spec:\n      containers:\n        - name: web\n          image: web:1\n          ports:\n            - containerPort: 8080\n          readinessProbe:\n            httpGet:\n              path: /\n              port: 8080\n`;
const SERVICE = (name: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  selector:\n    app: ${name}\n  ports:\n    - port: 80\n      targetPort: 8080\n`;

describe('--fix on a file read from its bytes: the same repair as on its text', () => {
  const cases: Record<string, string> = {
    'characters outside Latin-1 in several documents': [DEPLOY('a', '🔐 über – ok'), SERVICE('a'), DEPLOY('b', 'plain'), SERVICE('b'), DEPLOY('c', 'é')].join('---\n'),
    'a BOM and CRLF': '\ufeff' + [DEPLOY('a', '€'), SERVICE('a')].join('---\n').replace(/\n/g, '\r\n'),
    'U+2028 in a value (the whole text is read)': [DEPLOY('a', 'x\u2028y'), SERVICE('a')].join('---\n'),
    'a no-break space on the lines before the first marker': `# héllo\n\u00a0\n---\n${DEPLOY('a', 'ü')}---\n${SERVICE('a')}`,
    'content before the first marker': `${DEPLOY('a', '日本')}---\n${SERVICE('a')}`,
    '`...` before `---`': `${DEPLOY('a', 'ß')}...\n---\n${SERVICE('a')}`,
    'no line feed at the end': [DEPLOY('a', 'ö'), SERVICE('a')].join('---\n').replace(/\n$/, ''),
    'nothing to fix': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "ü"\n`,
  };
  for (const [name, text] of Object.entries(cases)) {
    test(name, () => {
      const { asString, fromBytes } = both('in.yaml', text);
      expect(fromBytes).toEqual(asString);
    });
  }

  test('every corpus file', () => {
    const files = fs.existsSync(CORPUS) ? yamlFiles(CORPUS) : [];
    expect(files.length).toBeGreaterThan(30);
    let changed = 0;
    // The files with fixes were cut on their Latin-1 reading (the path under test), not read whole.
    const spy = jest.spyOn(FileText.prototype, 'latin1Documents');
    for (const abs of files) {
      const { asString, fromBytes } = both(path.basename(abs), fs.readFileSync(abs, 'utf8'));
      expect({ file: abs, ...fromBytes }).toEqual({ file: abs, ...asString });
      if (asString.changed) changed++;
    }
    expect(changed).toBeGreaterThan(25);
    expect(spy.mock.results.filter((r) => r.value !== undefined).length).toBeGreaterThan(25);
    spy.mockRestore();
  });
});

describe('FileText.fromLatin1', () => {
  const latin1 = (t: string) => Buffer.from(t, 'utf8').toString('latin1');
  test('its length is the UTF-16 length of the decoded text, without decoding it', () => {
    for (const t of ['', 'a', 'é', '€', '🔐', 'a🔐b€c\u00e9', 'x\u2028y']) {
      let decoded = 0;
      const ft = FileText.fromLatin1(latin1(t), () => (decoded++, t));
      expect(ft.length).toBe(t.length);
      expect(decoded).toBe(0);
      expect(ft.value).toBe(t);
    }
  });
  test('its documents are the marker slices of the decoded text, decoded alone; U+2028 or a `%` directive leaves it to the whole text', () => {
    const t = `# ü\n---\na: 🔐\n---\nb: é\n...\n---\nc: 1\n`;
    const ft = FileText.fromLatin1(latin1(t), () => t);
    const d = ft.latin1Documents()!;
    expect(d.texts.join('')).toBe(t);
    // (The comment before the first marker joins the first document.)
    expect(d.starts).toEqual(markerSlices(t));
    expect(d.starts).toEqual([0, t.indexOf('---\nb'), t.indexOf('---\nc')]);
    expect(d.starts.map((s, i) => t.slice(s, d.starts[i + 1] ?? t.length))).toEqual(d.texts);
    expect(FileText.fromLatin1(latin1('a: "x\u2028y"\n---\nb: 1\n'), () => '').latin1Documents()).toBeUndefined();
    expect(FileText.fromLatin1(latin1('%YAML 1.1\n---\nb: 1\n'), () => '').latin1Documents()).toBeUndefined();
  });
});
