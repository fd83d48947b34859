/**
 * Findings on a rendered chart mapped back to the template line that writes the reported key
 * (lib/helm/render.ts mapFindingsToTemplates): by key path (parent keys and sequence levels), so a
 * key that a `toYaml` block also writes (env `name:`, label keys) or that a false `if` branch writes
 * does not shift the line; the key alone when the path is not in the template.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { keyPaths, mapFindingsToTemplates, RENDERED_SUFFIX } from '../../lib/helm/render';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-map-findings-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const TEMPLATE = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  labels:
    {{- toYaml .Values.labels | nindent 4 }}
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.27
          {{- if .Values.debug }}
          args: [--debug]
          {{- end }}
          env:
            {{- toYaml .Values.env | nindent 12 }}
        - name: proxy
          image: example/proxy:1
          {{- if .Values.debug }}
          args: [--debug]
          {{- else }}
          args: [--quiet]
          {{- end }}
      initContainers:
        - name: migrate
          image: example/migrate:1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-conf
data:
  conf.yaml: |
    name: not-a-key
`;

const RENDERED = `---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rel-web
  labels:
    name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.27
          env:
            - name: A
              value: "1"
            - name: B
              value: "2"
        - name: proxy
          image: example/proxy:1
          args: [--quiet]
      initContainers:
        - name: migrate
          image: example/migrate:1
---
# Source: web/templates/deployment.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: rel-conf
data:
  conf.yaml: |
    name: not-a-key
`;

const FILE = 'chart/templates/deployment.yaml';
beforeAll(() => {
  fs.mkdirSync(path.join(work, 'chart/templates'), { recursive: true });
  fs.writeFileSync(path.join(work, FILE), TEMPLATE);
});

const renderedLines = RENDERED.split('\n');
const tplLines = TEMPLATE.split('\n');
/** The 1-based line of the rendered text that starts with `text` (after indentation), the n-th such. */
function renderedLine(text: string, nth = 0): number {
  const hits = renderedLines.flatMap((l, i) => (l.trim().startsWith(text) ? [i + 1] : []));
  return hits[nth];
}
function mapped(line: number): { line: number; text: string } {
  const [f] = mapFindingsToTemplates([{ file: `${FILE}${RENDERED_SUFFIX}`, line, column: 1 }], [{ file: `${FILE}${RENDERED_SUFFIX}`, text: RENDERED }], work);
  expect(f.file).toBe(FILE);
  return { line: f.line, text: tplLines[f.line - 1].slice(f.column - 1) };
}

test('keyPaths: parent keys and sequence levels by indentation; block scalars, comments and action-only lines have none', () => {
  const p = keyPaths(renderedLines);
  expect(p[renderedLine('- name: proxy') - 1]).toBe('spec\ntemplate\nspec\ncontainers\n-\nname');
  expect(p[renderedLine('- name: A') - 1]).toBe('spec\ntemplate\nspec\ncontainers\n-\nenv\n-\nname');
  expect(p[renderedLine('name: not-a-key') - 1]).toBeUndefined();
  expect(p[renderedLine('name: rel-conf') - 1]).toBe('metadata\nname');
  expect(p[renderedLine('# Source') - 1]).toBeUndefined();
  const t = keyPaths(tplLines, true);
  expect(t[tplLines.findIndex((l) => l.includes('toYaml .Values.env'))]).toBeUndefined();
  expect(t[tplLines.findIndex((l) => l.includes('- name: proxy'))]).toBe('spec\ntemplate\nspec\ncontainers\n-\nname');
});

test('a key also written by a toYaml block (env names, label keys) maps to its own template line', () => {
  // Counting `name:` lines alone, the second container's name is the 6th `name:` rendered (metadata,
  // label, web, A, B, proxy) but the 3rd in the template: it used to land on the template's 6th `name:`
  // line, inside the ConfigMap's block scalar.
  expect(mapped(renderedLine('- name: proxy'))).toEqual({ line: tplLines.findIndex((l) => l.includes('- name: proxy')) + 1, text: 'name: proxy' });
  expect(mapped(renderedLine('- name: migrate')).text).toBe('name: migrate');
  expect(mapped(renderedLine('name: rel-web')).text).toBe('name: {{ .Release.Name }}-web');
  expect(mapped(renderedLine('name: rel-conf')).text).toBe('name: {{ .Release.Name }}-conf');
});

test('a key written in an if/else maps into the right container; a key only in a toYaml block lands on the block\'s key', () => {
  // The proxy's args: the template has three `args:` lines, the first in the web container's false branch.
  const args = mapped(renderedLine('args: [--quiet]'));
  expect(tplLines.slice(0, args.line).filter((l) => l.includes('- name:')).pop()).toContain('name: proxy');
  const env = { line: tplLines.findIndex((l) => l.trim() === 'env:') + 1, text: 'env:' };
  expect(mapped(renderedLine('value: "1"'))).toEqual(env);
  expect(mapped(renderedLine('- name: B'))).toEqual(env);
  // A label key from toYaml: the template's `labels:` of the same document.
  expect(mapped(renderedLine('name: web'))).toEqual({ line: tplLines.findIndex((l) => l.trim() === 'labels:') + 1, text: 'labels:' });
});

test('a key nowhere in the template, not even an ancestor: the key alone, else line 1', () => {
  const other = 'chart/templates/other.yaml';
  fs.writeFileSync(path.join(work, other), '{{- /* values */ -}}\nkind: X\ndata:\n  {{- toYaml .Values.data | nindent 2 }}\n');
  const at = (text: string, line: number) => mapFindingsToTemplates([{ file: `${other}${RENDERED_SUFFIX}`, line, column: 1 }], [{ file: `${other}${RENDERED_SUFFIX}`, text }], work)[0];
  const head = '---\n# Source: web/templates/other.yaml\nkind: X\n';
  // Under data (the ancestor the template writes).
  expect(at(`${head}data:\n  a: "1"\n`, 5)).toMatchObject({ file: other, line: 3, column: 1 });
  // items.data: no ancestor in the template; the key alone finds data.
  expect(at(`${head}items:\n  - data: 1\n`, 5)).toMatchObject({ file: other, line: 3, column: 1 });
  // Nothing: line 1.
  expect(at(`${head}spec:\n  zzz: 1\n`, 5)).toMatchObject({ file: other, line: 1, column: 1 });
});

test("a template holding several objects: helm's kind order in the output does not move a finding to another object's lines", () => {
  // helm template sorts a file's documents by kind: the PodDisruptionBudget, then the Service, then
  // the Deployment, while the template writes the Deployment first.
  const multi = 'chart/templates/all.yaml';
  const tpl = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: {{ .Release.Name }}-web',
    'spec:',
    '  selector:',
    '    matchLabels: {app: web}',
    '---',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: {{ .Release.Name }}-svc',
    'spec:',
    '  selector:',
    '    app: wbe',
    '{{- if .Values.pdb }}',
    '---',
    'apiVersion: policy/v1',
    'kind: PodDisruptionBudget',
    'metadata:',
    '  name: {{ .Release.Name }}-pdb',
    'spec:',
    '  selector:',
    '    matchLabels: {app: web}',
    '{{- end }}',
  ];
  fs.mkdirSync(path.join(work, 'chart/templates'), { recursive: true });
  fs.writeFileSync(path.join(work, multi), tpl.join('\n'));
  const rendered = [
    '---',
    '# Source: web/templates/all.yaml',
    'apiVersion: policy/v1',
    'kind: PodDisruptionBudget',
    'metadata:',
    '  name: r-pdb',
    'spec:',
    '  selector:',
    '    matchLabels: {app: web}',
    '---',
    '# Source: web/templates/all.yaml',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: r-svc',
    'spec:',
    '  selector:',
    '    app: wbe',
    '---',
    '# Source: web/templates/all.yaml',
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: r-web',
    'spec:',
    '  selector:',
    '    matchLabels: {app: web}',
    '',
  ].join('\n');
  const map = (line: number) => mapFindingsToTemplates([{ file: `${multi}${RENDERED_SUFFIX}`, line, column: 1 }], [{ file: `${multi}${RENDERED_SUFFIX}`, text: rendered }], work)[0];
  const lines = rendered.split('\n');
  const nth = (text: string, n: number) => lines.flatMap((l, i) => (l === text ? [i + 1] : []))[n];
  // The Service's selector (the 2nd rendered `selector:`) is the template's 2nd, in the Service.
  expect(map(nth('  selector:', 1))).toMatchObject({ file: multi, line: 14 });
  // The PDB's spec and selector (rendered first) are the PDB's own, not the Deployment's.
  expect(map(nth('spec:', 0))).toMatchObject({ file: multi, line: 22 });
  expect(map(nth('  selector:', 0))).toMatchObject({ file: multi, line: 23 });
  // The Deployment's (rendered last) are its own.
  expect(map(nth('  selector:', 2))).toMatchObject({ file: multi, line: 6 });
});
