/**
 * A `kubectl get -A -o yaml` dump is one `kind: List` document holding every object: the YAML fast
 * path reads it like the same dump as JSON (issue 16, "speed at cluster scale"). Before, items
 * were located by walking the List from its first item for every finding (10k objects: 2.7 s),
 * and a List of more than 1.25M nodes went to `yaml` (92k objects: 21 s and 2.1 GB; 185k objects:
 * 48 s and 4 GB, then refused at parse.ts's 5M-node limit, which JSON never had).
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as jsyaml from 'js-yaml';
import * as os from 'os';
import * as path from 'path';
import { lintSources } from '../../lib/engine/run';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { parseYamlFast, parseYamlFile } from '../../lib/model/fast-yaml';
import { MAX_NODES, parseText } from '../../lib/model/parse';
import { readQuick } from '../../lib/model/quick-yaml';
import { JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { goYamlFolded } from '../../bench/generate';
import { agreeWith } from '../helpers/parse-compare';

const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };

/** A cluster dump: per app a Deployment, its two ReplicaSets and three Pods (owned), a Service, ConfigMaps. */
function dump(apps: number): JsonObject {
  const items: JsonObject[] = [];
  for (let d = 0; d < apps; d++) {
    const ns = `ns-${d % 7}`;
    const name = `app-${d}`;
    const labels = { app: name };
    const spec = { containers: [{ name: 'app', image: `reg/app:${d % 3}`, ports: [{ name: 'http', containerPort: 8080 }], ...(d % 4 ? { readinessProbe: { httpGet: { path: '/ready', port: 'http' } } } : {}) }] };
    items.push({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns, uid: `u-${d}`, managedFields: [{ manager: 'kubectl', operation: 'Update' }] }, spec: { replicas: 1 + (d % 3), selector: { matchLabels: labels }, template: { metadata: { labels }, spec } }, status: { replicas: 1 } });
    for (const h of ['a', 'b']) {
      const rs = `${name}-${h}`;
      const owned = { ...labels, 'pod-template-hash': h };
      items.push({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: rs, namespace: ns, labels: owned, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: `u-${d}`, controller: true }] }, spec: { replicas: h === 'b' ? 3 : 0, selector: { matchLabels: owned }, template: { metadata: { labels: owned }, spec } } });
      if (h === 'b') for (let p = 0; p < 3; p++) items.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${rs}-${p}`, namespace: ns, labels: owned, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `r-${d}`, controller: true }] }, spec: { ...spec, nodeName: `node-${p}` }, status: { phase: 'Running' } });
    }
    items.push({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { selector: labels, ports: [{ port: 80, targetPort: 'http' }] } });
    items.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config`, namespace: ns }, data: { 'config.yaml': 'key: value\nother: 1\n' } });
  }
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
}

describe('a kubectl get -o yaml dump (one List document)', () => {
  test('the same findings as the same dump as JSON, each at the position parse.ts gives it', () => {
    const list = dump(60);
    const yaml = jsyaml.dump(list, { lineWidth: -1, noRefs: true });
    const fromYaml = lintSources([{ file: 'dump.yaml', text: yaml }], OPTS);
    const fromJson = lintSources([{ file: 'dump.json', text: JSON.stringify(list, null, 4) }], OPTS);
    expect(fromYaml.errors).toEqual([]);
    expect(fromYaml.parsed[0].objects[0].constructor.name).toBe('YamlObjectView');
    const what = (fs: typeof fromYaml.findings) => fs.map((f) => [f.ruleId, f.severity, f.object, f.pointer, f.message]);
    expect(what(fromYaml.findings)).toEqual(what(fromJson.findings));
    expect(fromYaml.findings.length).toBeGreaterThan(60);
    // Located item by item, in the order the rules reported them (not the file's): as parse.ts locates them.
    const slow = parseText('dump.yaml', yaml).objects;
    for (const f of fromYaml.findings) {
      const o = slow.find((x) => x.kind === f.object.kind && x.name === f.object.name && x.namespace === f.object.namespace)!;
      expect([f.ruleId, f.object.name, f.pointer, f.line, f.column]).toEqual([f.ruleId, f.object.name, f.pointer, o.locate(f.pointer).line, o.locate(f.pointer).column]);
    }
  });

  test('read in chunks from its file (as a large file is): each item\'s positions from its own lines, every pointer of every object as parse.ts locates it, in the order asked', () => {
    const list = dump(40);
    // An item whose text has a character outside ASCII, and a comment between items.
    (list.items as JsonObject[])[3] = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'é-config', namespace: 'ns-1' }, data: { 'note.txt': 'café ☕\nsecond line\n' } };
    const yaml = jsyaml.dump(list, { lineWidth: -1, noRefs: true }).replace('\n- apiVersion: apps/v1\n', '\n# a comment between items\n- apiVersion: apps/v1\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-listdump-'));
    try {
      const p = path.join(dir, 'dump.yaml');
      fs.writeFileSync(p, yaml);
      const st = fs.statSync(p);
      const slow = parseText('dump.yaml', yaml);
      for (const [chunk, ahead] of [
        [4096, 64],
        [1 << 20, 1 << 20],
      ]) {
        const fast = parseYamlFile('dump.yaml', { path: p, size: st.size, mtimeMs: st.mtimeMs }, chunk, undefined, ahead)!;
        expect(fast).toBeDefined();
        agreeWith(OPTS, fast, slow, 'dump.yaml', { located: slow.objects.length, findings: chunk === 4096 });
        // Asked for last item first, then the others backwards: the same.
        const again = parseYamlFile('dump.yaml', { path: p, size: st.size, mtimeMs: st.mtimeMs }, chunk, undefined, ahead)!;
        for (let i = again.objects.length - 1; i >= 0; i -= 7) expect([i, again.objects[i].locate('/metadata/name')]).toEqual([i, slow.objects[i].locate('/metadata/name')]);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('strings folded as go-yaml folds them (plain, single- and double-quoted) read and locate as parse.ts reads them', () => {
    // (A word with a tab or a line feed makes the string double-quoted, as go-yaml writes it.)
    const word = fc.constantFrom('nodes', 'are', 'available:', '0/3', 'Insufficient', 'cpu.', "it's", '#7', 'preemption', 'x'.repeat(30), 'é', 'a-b', '', '\tat', 'main.go:12\n', 'q"t', 'back\\slash');
    const text = fc.array(word, { minLength: 12, maxLength: 40 }).map((ws) => ws.join(' '));
    let read = 0;
    let quick = 0;
    /** Read by quick-yaml with a double-quoted string folded over lines. */
    let doubleQuoted = 0;
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), fc.boolean(), (strings, kubectlLayout) => {
        // js-yaml picks plain or quoted as go-yaml does (plain where it can be); goYamlFolded folds as go-yaml.
        const items = strings.map((v, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, annotations: { 'example.com/note': v } }, data: { message: v, other: 'value' } }));
        const yaml = goYamlFolded(jsyaml.dump({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, { lineWidth: -1, noRefs: true, noArrayIndent: kubectlLayout }));
        const fast = parseYamlFast('f.yaml', yaml);
        const slow = parseText('f.yaml', yaml);
        if (!fast) return;
        read++;
        // (Read by quick-yaml, whose documents are located off the text: the case this is about.)
        if (readQuick(yaml, { maxKey: 200, maxDepth: 100, maxNodes: 1e7 }) !== undefined) {
          quick++;
          if (/: "(?:[^"\\\n]|\\.)*\n/.test(yaml)) doubleQuoted++;
        }
        agreeWith(OPTS, fast, slow, 'f.yaml', { located: slow.objects.length, findings: false });
      }),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 200), seed: 80 },
    );
    expect(read).toBeGreaterThan(150);
    expect(quick).toBeGreaterThan(150);
    expect(doubleQuoted).toBeGreaterThan(50);
  });

  test('a List of more nodes than parse.ts reads (MAX_NODES) is read by the fast path, as JSON of any size is', () => {
    const text = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n${'- x\n'.repeat(MAX_NODES + 1000)}`;
    const r = parseYamlFast('big.yaml', text);
    expect(r).toBeDefined();
    expect(r!.errors).toEqual([]);
    expect(r!.objects.map((o) => `${o.kind}/${o.name} ${o.basePointer}`)).toEqual(['ConfigMap/c /items/0']);
    expect(r!.objects[0].locate('/metadata/name')).toEqual({ line: 7, column: 5 });
  });
});
