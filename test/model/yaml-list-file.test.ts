/**
 * A large `kind: List` YAML file (`kubectl get -A -o yaml`) is read item by item from its bytes
 * (fast-yaml.ts's parseYamlListFile), as a JSON List is: the document's text is never one string.
 * Before, 358 MB of corpus objects as one YAML List peaked at 2.4 GB (the text as Latin-1 and
 * decoded, and the values); now 0.8 GB, with the same findings at the same positions.
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { goYamlFolded, kubectlDump } from '../../bench/generate';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { parseYamlFile, parseYamlListFile } from '../../lib/model/fast-yaml';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { stampedFiles } from '../helpers/files';
import { ALL_RULES } from '../../lib/rules';
import { agreeWith } from '../helpers/parse-compare';

const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };

const { stamped } = stampedFiles('kg-yamllist-');

function list(items: JsonObject[]): JsonObject {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

describe('a YAML List read item by item (parseYamlListFile)', () => {
  test('a kubectl dump (folded strings, double-quoted ones, |+ blocks, non-ASCII), in both sequence layouts and chunk sizes: read item by item, and as parse.ts reads it, every pointer and finding', () => {
    const items = kubectlDump(600) as JsonObject[];
    items[5] = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'é-config', namespace: 'ns-1' }, data: { 'note.txt': 'café ☕\nsecond line\n', 'lead.txt': '  starts with blanks\n' } };
    for (const kubectlLayout of [true, false]) {
      const text = goYamlFolded(jsyaml.dump(list(items), { lineWidth: -1, noRefs: true, noArrayIndent: kubectlLayout }));
      expect(text).toMatch(/: \|\+\n/);
      expect(text).toMatch(/: "panic[^\n"]*\n/);
      const stamp = stamped(`dump-${kubectlLayout}.yaml`, text);
      const slow = parseText('dump.yaml', text);
      for (const [chunk, ahead] of [
        [4096, 64],
        [1 << 20, 1 << 20],
      ]) {
        const fast = parseYamlListFile('dump.yaml', stamp, chunk, undefined, ahead);
        expect(fast).toBeDefined();
        agreeWith(OPTS, fast!, slow, 'dump.yaml', { located: chunk === 4096 ? slow.objects.length : 40, findings: chunk === 4096 });
      }
    }
  });

  test('the layouts around the items: a `---` line, comments and other keys before `items:`, blank lines, an item whose node is on the next line, items as the last key', () => {
    const cm = (name: string) => `  kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: ${name}\n  data:\n    k: v\n`;
    const texts = [
      `---\n# a dump\napiVersion: v1\nkind: List\nitems:\n\n-${cm('a').slice(1)}\n-\n${cm('b')}\n\nmetadata: {}\n`,
      `apiVersion: v1\nkind: ConfigMapList\nmetadata:\n  resourceVersion: "1"\nitems:\n- ${cm('a').slice(2)}- ${cm('b').slice(2)}`,
      `apiVersion: v1\nitems:\n  - ${cm('a').trimStart().replace(/\n {2}/g, '\n    ')}  - ${cm('b').trimStart().replace(/\n {2}/g, '\n    ')}kind: List\n`,
    ];
    for (const [i, text] of texts.entries()) {
      const stamp = stamped(`layout-${i}.yaml`, text);
      const fast = parseYamlListFile('l.yaml', stamp, 64, undefined, 64);
      expect([i, fast?.objects.map((o) => o.name)]).toEqual([i, ['a', 'b']]);
      const slow = parseText('l.yaml', text);
      expect(slow.errors).toEqual([]);
      agreeWith(OPTS, fast!, slow, 'l.yaml', { located: 2 });
    }
  });

  test.each([
    ['a comment between items', 'apiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: a\n# between\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: b\nkind: List\n'],
    ['an alias of an anchor in another item (read alone, the item has no anchor for it)', 'apiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: &n a\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: *n\nkind: List\n'],
    ['a collection anchor in an item (js-yaml would share it)', 'apiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata: &m\n    name: a\nkind: List\n'],
    ['a second document', 'apiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: a\nkind: List\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n'],
    ['a List that is not the file\'s first document', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n---\napiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: a\nkind: List\n'],
    ['a second items key', 'apiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: a\nkind: List\nitems: []\n'],
    ['a line at an indented sequence\'s column that is no item', 'apiVersion: v1\nitems:\n  - kind: ConfigMap\n    apiVersion: v1\n    metadata:\n      name: a\n  x: 1\nkind: List\n'],
    ['a CR', 'apiVersion: v1\r\nitems:\r\n- kind: ConfigMap\r\n  apiVersion: v1\r\n  metadata:\r\n    name: a\r\nkind: List\r\n'],
    ['a Deployment (no items key at column 0 before nested lines)', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n'],
    ['no line feed at the end', 'apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: a'],
  ])('declines %s, and parseYamlFile then reads it as parse.ts does', (_name, text) => {
    const stamp = stamped('declined.yaml', text);
    expect(parseYamlListFile('d.yaml', stamp, 64, undefined, 64)).toBeUndefined();
    const slow = parseText('d.yaml', text);
    const fast = parseYamlFile('d.yaml', stamp, 64, undefined, 64);
    if (fast) agreeWith(OPTS, fast, slow, 'd.yaml', { findings: false });
    else expect(slow.errors.length + slow.objects.length).toBeGreaterThanOrEqual(0);
  });

  test('items quick-yaml declines that the in-memory reader reads (a tab in a block scalar, a scalar anchor and its alias, an alias of an anchor before items:) are read alone: the same objects, positions and findings as parse.ts', () => {
    // 26 s and 2.1 GB for a 37 MB dump with one Makefile in a ConfigMap before (the whole List
    // was read by yaml); 2.5 s and 290 MB now.
    const tabbed = 'apps: &apps apps/v1\n';
    const dep = (name: string, extra: string) =>
      `- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: ${name}\n    namespace: ns\n    labels:\n      app: &app ${name}\n  spec:\n    replicas: 3\n    selector:\n      matchLabels:\n        app: *app\n    template:\n      metadata:\n        labels:\n          app: ${name}\n      spec:\n        containers:\n        - name: app\n          image: reg/app:1\n          command:\n          - sh\n          - -c\n          - |\n            while true; do\n            \techo hi\n            done\n          ports:\n          - containerPort: 8080\n${extra}`;
    const svc = (name: string) => `- apiVersion: v1\n  kind: Service\n  metadata:\n    name: ${name}\n    namespace: ns\n  spec:\n    selector:\n      app: ${name}\n    ports:\n    - port: 80\n      targetPort: 8080\n`;
    const cm = '- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: make\n    namespace: ns\n  data:\n    Makefile: |\n      all:\n      \tgo build ./...\n';
    const aliased = '- apiVersion: *apps\n  kind: Deployment\n  metadata:\n    name: aliased\n    namespace: ns\n  spec:\n    replicas: 2\n';
    for (const indent of ['', '  ']) {
      const items = [dep('web', ''), svc('web'), cm, dep('api', '          readinessProbe:\n            tcpSocket:\n              port: 8080\n'), svc('api'), aliased].join('').replace(/^(?=.)/gm, indent);
      const text = `${tabbed}apiVersion: v1\nitems:\n${items}kind: List\nmetadata:\n  resourceVersion: ""\n`;
      const slow = parseText('t.yaml', text);
      expect(slow.errors).toEqual([]);
      expect(slow.objects.map((o) => o.name)).toEqual(['web', 'web', 'make', 'api', 'api', 'aliased']);
      for (const chunk of [64, 4096]) {
        const fast = parseYamlListFile('t.yaml', stamped(`tab-${indent.length}-${chunk}.yaml`, text), chunk, undefined, chunk);
        expect(fast).toBeDefined();
        agreeWith(OPTS, fast!, slow, 't.yaml', { located: 6 });
      }
    }
  });

  test('generated Lists (values of every kind the fast path reads, both layouts, chunk sizes): read as parse.ts reads them, or declined', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' lead', 'trail ', 'a\nb\n', 'x\n\n', '\ty\n', 'é😀', 'yes', '010', '- x', '#c', "it's", 'q"t'), fc.integer(), fc.boolean(), fc.constant(null));
    const value = fc.letrec((tie) => ({ v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b c', 'k.io/x', 'yes', '1'), tie('v'), { maxKeys: 3 })) })).v;
    let read = 0;
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.constantFrom('data', 'spec', 'extra'), value, { maxKeys: 3 }), { minLength: 1, maxLength: 6 }), fc.boolean(), fc.constantFrom(64, 4096), (bodies, kubectlLayout, chunk) => {
        const items = bodies.map((b, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, ...b }) as JsonObject);
        const text = goYamlFolded(jsyaml.dump(list(items), { lineWidth: -1, noRefs: true, noArrayIndent: kubectlLayout }));
        const stamp = stamped('gen.yaml', text);
        const fast = parseYamlListFile('g.yaml', stamp, chunk, undefined, chunk);
        if (!fast) return;
        read++;
        agreeWith(OPTS, fast, parseText('g.yaml', text), 'g.yaml', { findings: false });
      }),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 150), seed: 81 },
    );
    expect(read).toBeGreaterThan(60);
  });
});
