import { parseAllDocuments } from 'yaml';
import { ResolvedPolicy } from '../../lib/engine/policy';
import { Fix, FixEdit, Rule } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { CHART_REASON, fixSources, FixOptions, PROPOSAL_REASON, unifiedDiff } from '../../lib/fix';
import { Json, KObject } from '../../lib/model/types';
import { Source } from '../../lib/model/sources';
import { commentsOf } from '../helpers/fix-tester';

const POLICY: ResolvedPolicy = { name: 'test', rules: new Map(), customRules: [] };

/** A rule that fires on every object `when` accepts, carrying the fix `make` builds. */
function rule(id: string, when: (o: KObject) => boolean, make: (o: KObject) => Fix): Rule {
  return {
    meta: { id, spec: 'TEST', defaultSeverity: 'warning', severities: ['warning'], description: id, doc: id, fixable: true },
    check(ctx) {
      for (const o of ctx.graph.objects) if (when(o)) ctx.report({ object: o, pointer: '', message: `${id} fires`, fix: make(o) });
    },
  };
}

const data = (o: KObject, k: string): Json | undefined => (o.raw.data as Record<string, Json> | undefined)?.[k];

/** ConfigMaps whose data.x is not "ok" get data.x: "ok". */
const setX = (value: Json = 'ok', safety: Fix['safety'] = 'safe') =>
  rule(
    `set-x-${String(value)}`,
    (o) => o.kind === 'ConfigMap' && data(o, 'x') !== value,
    () => ({ description: `set data.x to ${String(value)}`, safety, edits: [{ op: 'set', pointer: '/data/x', value }] }),
  );

function fix(text: string | Source[], rules: Rule[], o: Partial<FixOptions> = {}) {
  const sources = typeof text === 'string' ? [{ file: 'f.yaml', text }] : text;
  return fixSources(sources, { rules, policy: POLICY, version: KubeVersion.parse('1.33'), verifyPiecewise: true, ...o });
}

function docsOf(text: string): unknown[] {
  return Array.from(parseAllDocuments(text) as unknown as Iterable<{ toJS(): unknown; errors: unknown[] }>).map((d) => d.toJS());
}

const MULTI = `# leading comment of the file
apiVersion: v1
kind: Service   # aligned   comment
metadata: {name: "svc"}
spec:
  selector: {app: web}
  ports: [ {port: 80} ]
---
# the config
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg # inline
  labels:
    'quoted': "double"
data:
  # before x
  x: "bad"    # x is wrong
  block: |
    line one
      # not a comment, block scalar text
    line three
  folded: >-
    folded text
  plain: on
---
apiVersion: v1
kind: Secret   # untouched
metadata: {name: s}
stringData: {k: 'v'}
`;

describe('fixSources: formatting and comments', () => {
  test('only the edited value changes; every other byte, comment and document stays', () => {
    const r = fix(MULTI, [setX()]);
    const out = r.files[0].text;
    expect(out).toBe(MULTI.replace('  x: "bad"    # x is wrong', '  x: "ok"    # x is wrong'));
    expect(r.files[0].applied.map((a) => [a.ruleId, a.line, a.description])).toEqual([['set-x-ok', 10, 'set data.x to ok']]);
  });

  test('documents without edits are byte-identical, even when yaml would reformat them', () => {
    const odd = `apiVersion: v1\nkind:    Service\nmetadata:\n    name:   odd      # four-space indent\nspec:\n    ports:\n        -   port: 80\n`;
    const text = `${odd}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: bad}\n---\n${odd}`;
    const out = fix(text, [setX()]).files[0].text;
    const parts = out.split('---\n');
    expect(parts[0]).toBe(odd);
    expect(parts[2]).toBe(odd);
    expect(parts[1]).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: ok}\n');
  });

  test('adding keys keeps comments byte-for-byte and follows the document\'s indentation', () => {
    const text = `apiVersion: v1
kind: ConfigMap
metadata:
    name: c   # four spaces here
    # trailing comment of metadata
data:
    a: '1'
`;
    const add = rule('add', (o) => data(o, 'x') === undefined, () => ({ description: 'add', safety: 'safe', edits: [{ op: 'set', pointer: '/data/x', value: 'ok' }, { op: 'set', pointer: '/metadata/annotations/team', value: 'core' }] }));
    const out = fix(text, [add]).files[0].text;
    expect(out).toBe(`apiVersion: v1
kind: ConfigMap
metadata:
    name: c   # four spaces here
    annotations:
        team: core
    # trailing comment of metadata
data:
    a: '1'
    x: ok
`);
    for (const l of commentsOf(text).lines) expect(out.split('\n')).toContain(l);
  });

  test('flow style and quoting of the edited collection are kept', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: 'single', x: "bad", z: plain}\n`;
    expect(fix(text, [setX()]).files[0].text).toBe(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: 'single', x: "ok", z: plain}\n`);
  });

  test('strings Kubernetes would read as another type (YAML 1.1) are written quoted', () => {
    for (const v of ['y', 'no', 'on', '010', '0x1F', '1_000', '~']) {
      const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: b\n`;
      const out = fix(text, [setX(v)]).files[0].text;
      expect(out).toBe(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: b\n  x: ${JSON.stringify(v)}\n`);
    }
  });

  test('an empty flow mapping that gains keys becomes a block mapping', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  {}\n`;
    expect(fix(text, [setX()]).files[0].text).toBe(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x: ok\n`);
  });

  test('CRLF line endings are kept, also on inserted lines', () => {
    const text = 'apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c # crlf\r\ndata:\r\n  a: b\r\n';
    const out = fix(text, [setX()]).files[0].text;
    expect(out).toBe('apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: c # crlf\r\ndata:\r\n  a: b\r\n  x: ok\r\n');
    expect(out.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  test('a byte-order mark and a missing final newline are kept', () => {
    const text = '\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x: bad';
    expect(fix(text, [setX()]).files[0].text).toBe('\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x: ok');
  });

  test('documents that mix sequence indentation keep each region\'s style', () => {
    const text = `apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  finalizers:
    - one
    - two
data:
  list:
  - a
  x: bad
`;
    const out = fix(text, [setX()]).files[0].text;
    expect(out).toBe(text.replace('  x: bad', '  x: ok'));
  });

  test('insertions inside sequences of both indentation styles add lines and change none', () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: app
          env:
          - name: A
            value: "1"   # aligned
          ports:
          - containerPort: 80

`;
    const two = rule('two', (o) => o.kind === 'Deployment' && !JSON.stringify(o.raw).includes('preStop'), () => ({
      description: 'two',
      safety: 'safe',
      edits: [
        { op: 'append', pointer: '/spec/template/spec/topologySpreadConstraints', value: { maxSkew: 1 } },
        { op: 'set', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', value: { sleep: { seconds: 5 } } },
      ] as FixEdit[],
    }));
    const out = fix(text, [two]).files[0].text;
    expect(out).toBe(
      text.replace(
        '          - containerPort: 80\n',
        '          - containerPort: 80\n          lifecycle:\n            preStop:\n              sleep:\n                seconds: 5\n      topologySpreadConstraints:\n      - maxSkew: 1\n',
      ),
    );
  });

  test('a scalar is replaced where it stands, in its quoting', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x:    'bad'   # spaced\n  w: "keep"\n`;
    expect(fix(text, [setX("it's")]).files[0].text).toBe(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x:    'it''s'   # spaced\n  w: "keep"\n`);
  });

  test('remove moves a removed key\'s leading comment to the next key', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  # about the next keys\n  gone: 1\n  kept: 2\n`;
    const rm = rule('rm', (o) => data(o, 'gone') !== undefined, () => ({ description: 'rm', safety: 'safe', edits: [{ op: 'remove', pointer: '/data/gone' }] }));
    expect(fix(text, [rm]).files[0].text).toBe(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  # about the next keys\n  kept: 2\n`);
  });
});

describe('fixSources: Lists, JSON and new documents', () => {
  test('List items are edited in place; the other items are untouched', () => {
    const text = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: ok}
  data: {x: ok}   # already fine
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: bad}
  data: {x: bad}
`;
    const r = fix(text, [setX()]);
    expect(r.files[0].text).toBe(text.replace('data: {x: bad}', 'data: {x: ok}'));
    expect(r.files[0].applied.map((a) => a.object.name)).toEqual(['bad']);
  });

  test('JSON stays valid JSON with its indentation', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }, null, 4) + '\n';
    const out = fix([{ file: 'c.json', text }], [setX()]).files[0].text;
    expect(JSON.parse(out)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b', x: 'ok' } });
    expect(out).toBe(JSON.stringify(JSON.parse(out), null, 4) + '\n');
  });

  test('a value in one-line JSON is replaced in place', () => {
    const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"bad","z":1}}';
    expect(fix([{ file: 'c.json', text }], [setX()]).files[0].text).toBe(text.replace('"x":"bad"', '"x":"ok"'));
  });

  const addPdb = rule(
    'add-pdb',
    (o) => o.kind === 'Deployment',
    (o) => ({
      description: 'add pdb',
      safety: 'proposal',
      edits: [{ op: 'add-object', value: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: o.name }, spec: { maxUnavailable: 1 } } }],
    }),
  );
  // Fires only while the PDB is missing, like pdb-missing.
  const addPdbOnce: Rule = {
    meta: addPdb.meta,
    check(ctx) {
      const pdbs = new Set(ctx.graph.objects.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => o.name));
      addPdb.check({ ...ctx, report: (r) => (pdbs.has(r.object.name) ? false : ctx.report(r)) });
    },
  };
  const dep = (name: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec: {}\n`;

  test('a new object is a new document right after its object\'s document', () => {
    const text = `# first\n${dep('a')}---\n# next doc's comment\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n`;
    const r = fix(text, [addPdbOnce], { proposals: true });
    expect(r.files[0].text).toBe(
      `# first\n${dep('a')}---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: a\nspec:\n  maxUnavailable: 1\n---\n# next doc's comment\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n`,
    );
    expect(fix(r.files[0].text, [addPdbOnce], { proposals: true }).files[0].applied).toEqual([]);
  });

  test('after a document closed with "..." the next document still starts on its own', () => {
    const text = `${dep('a')}...\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n`;
    const out = fix(text, [addPdbOnce], { proposals: true }).files[0].text;
    expect(docsOf(out).map((d) => (d as { kind: string }).kind)).toEqual(['Deployment', 'PodDisruptionBudget', 'ConfigMap']);
    expect(out.startsWith(`${dep('a')}...\n---\n`)).toBe(true);
  });

  test('proposals are applied only when asked; safe fixes always', () => {
    const r = fix(dep('a'), [addPdbOnce]);
    expect(r.files[0].text).toBe(dep('a'));
    expect(r.skipped.map((s) => s.reason)).toEqual([PROPOSAL_REASON]);
  });

  test('a fix that would write a number Kubernetes cannot take (1e+23, 2.5) is skipped with a reason, and the file is left as it is', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: "1"}\n';
    for (const value of [1e23, 2.5]) {
      const r = fix(text, [setX(value)]);
      expect(r.files[0].text).toBe(text);
      expect(r.skipped.map((s) => s.reason)).toEqual([`the fix would write ${String(value)} to /data/x, which is no integer Kubernetes accepts; fix it by hand`]);
    }
  });

  test('a JSON file cannot take a second document: the fix is skipped with a reason', () => {
    const text = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'a' }, spec: {} });
    const r = fix([{ file: 'd.json', text }], [addPdbOnce], { proposals: true });
    expect(r.files[0].text).toBe(text);
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('JSON file')]);
  });
});

describe('fixSources: safety', () => {
  test('an unparseable document is left byte-for-byte; the others are fixed', () => {
    const bad = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\ndata: [x: bad\n`;
    const text = `${bad}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: bad}\n`;
    const out = fix(text, [setX()]).files[0].text;
    expect(out.startsWith(bad)).toBe(true);
    expect(out.endsWith('data: {x: ok}\n')).toBe(true);
  });

  test('sources rendered from a Helm chart are never written', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: bad}\n`;
    const r = fix([{ file: 'chart/templates/cm.yaml (rendered)', text, chart: 'chart' }], [setX()]);
    expect(r.files[0].text).toBe(text);
    expect(r.files[0].applied).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual([CHART_REASON]);
  });

  test('suppressed findings are not fixed', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations: {kubegrace.dev/ignore: set-x-ok}\ndata: {x: bad}\n`;
    const r = fix(text, [setX()]);
    expect(r.files[0].text).toBe(text);
    expect(r.skipped).toEqual([]);
  });

  test('an edit through an anchor that is aliased elsewhere is refused, not written', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: &d {x: bad}\nbinaryData: *d\n`;
    const r = fix(text, [setX()]);
    expect(r.files[0].text).toBe(text);
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/cannot apply the fix: the edit would also change \/binaryData\/x/)]);
  });

  test('a key that may come from a merge key is not shadowed', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nbase: &b {x: bad}\ndata:\n  <<: *b\n`;
    const r = fix(text, [setX()]);
    expect(r.files[0].text).toBe(text);
    expect(r.skipped[0].reason).toMatch(/merge key/);
  });

  test('fixes never edit spec.selector', () => {
    const sel = rule('sel', (o) => o.kind === 'Deployment', () => ({ description: 'sel', safety: 'safe', edits: [{ op: 'set', pointer: '/spec/selector/matchLabels/x', value: 'ok' }] }));
    const text = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  selector: {matchLabels: {app: a}}\n`;
    const r = fix(text, [sel]);
    expect(r.files[0].text).toBe(text);
    expect(r.skipped[0].reason).toMatch(/spec\.selector/);
  });

  test('a fix that changes nothing while its rule still fires is reported, not looped', () => {
    const stubborn = rule('stubborn', (o) => o.kind === 'ConfigMap', () => ({ description: 'noop', safety: 'safe', edits: [{ op: 'set', pointer: '/data/x', value: 'bad' }] }));
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: bad}\n`;
    const r = fix(text, [stubborn]);
    expect(r.files[0].text).toBe(text);
    expect(r.converged).toBe(true);
    expect(r.skipped[0].reason).toMatch(/already in place/);
  });
});

describe('fixSources: passes and convergence', () => {
  const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x: bad\n`;

  test('idempotent: a second run changes nothing', () => {
    const first = fix(text, [setX()]);
    const second = fix(first.files[0].text, [setX()]);
    expect(second.files[0].text).toBe(first.files[0].text);
    expect(second.files[0].applied).toEqual([]);
    expect(second.passes).toBe(0);
  });

  test('two fixes to the same pointer in one pass: the first wins, the next pass re-lints', () => {
    const setA: Rule = setX('a');
    const setAlsoA: Rule = { ...setX('a'), meta: { ...setX('a').meta, id: 'also-a' } };
    const r = fix(text, [setA, setAlsoA]);
    // Findings at one position are ordered by rule ID.
    expect(r.files[0].applied.map((a) => a.ruleId)).toEqual(['also-a']);
    expect(r.converged).toBe(true);
    expect(r.files[0].text).toContain('x: a');
  });

  test('fixes that depend on each other reach a fixed point over several passes', () => {
    // y is added only once x is right.
    const setY = rule('set-y', (o) => o.kind === 'ConfigMap' && data(o, 'x') === 'ok' && data(o, 'w') === undefined, () => ({ description: 'set y', safety: 'safe', edits: [{ op: 'set', pointer: '/data/w', value: 'z' } as FixEdit] }));
    const r = fix(text, [setX(), setY]);
    expect(r.passes).toBe(2);
    expect(r.converged).toBe(true);
    expect(r.files[0].text).toBe(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  x: ok\n  w: z\n`);
  });

  test('the line of an applied fix is its line in the written text, also when a later pass inserted lines above it', () => {
    const two = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: bad\n`;
    const onlyB: Rule = { ...setX(), check: (ctx) => setX().check({ ...ctx, report: (r) => (r.object.name === 'b' ? ctx.report(r) : false) }) };
    // Labels for a, three lines above b, only once b is fixed: a second pass.
    const labelA = rule(
      'label-a',
      (o) => o.name === 'a' && !(o.raw.metadata as Record<string, Json> | undefined)?.labels,
      () => ({ description: 'label a', safety: 'safe', edits: [{ op: 'set', pointer: '/metadata/labels', value: { tier: 'web', team: 'core' } }] }),
    );
    const gated: Rule = { meta: labelA.meta, check: (ctx) => (ctx.graph.objects.some((o) => o.name === 'b' && data(o, 'x') === 'ok') ? labelA.check(ctx) : undefined) };
    const r = fix(two, [onlyB, gated]);
    expect(r.passes).toBe(2);
    const out = r.files[0].text;
    expect(out).toBe(two.replace('  name: a\n', '  name: a\n  labels:\n    tier: web\n    team: core\n').replace('x: bad', 'x: ok'));
    const lines = out.split('\n');
    expect(r.files[0].applied.map((a) => [a.ruleId, a.line, lines[a.line - 1]])).toEqual([
      ['set-x-ok', 11, 'apiVersion: v1'],
      ['label-a', 1, 'apiVersion: v1'],
    ]);
    // b starts on line 11 now; the first pass found it on line 8.
    expect(lines.slice(10, 13)).toEqual(['apiVersion: v1', 'kind: ConfigMap', 'metadata:']);
  });

  test('rules undoing each other stop after maxPasses and are reported as not converged', () => {
    const r = fix(text, [setX('1'), setX('2')], { maxPasses: 3 });
    expect(r.passes).toBe(3);
    expect(r.converged).toBe(false);
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('still reported after 3 fix passes')]);
    expect(docsOf(r.files[0].text)).toHaveLength(1);
  });

  test('the graph spans files: a fix decided from another file applies to its own file', () => {
    const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: bad}\n`;
    const flag = `apiVersion: v1\nkind: Namespace\nmetadata: {name: flag}\n`;
    const needsFlag: Rule = {
      meta: { ...setX().meta, id: 'needs-flag' },
      check(ctx) {
        if (!ctx.graph.objects.some((o) => o.kind === 'Namespace')) return;
        setX().check(ctx);
      },
    };
    const r = fix(
      [
        { file: 'a.yaml', text: cm },
        { file: 'b.yaml', text: flag },
      ],
      [needsFlag],
    );
    expect(r.files.map((f) => [f.file, f.text !== f.original])).toEqual([
      ['a.yaml', true],
      ['b.yaml', false],
    ]);
    expect(fix([{ file: 'a.yaml', text: cm }], [needsFlag]).files[0].applied).toEqual([]);
  });
});

describe('fixSources: removing sequence items', () => {
  const containers = (o: KObject): { name?: string; image?: string }[] => ((o.raw.spec as { template?: { spec?: { containers?: { name?: string }[] } } } | undefined)?.template?.spec?.containers ?? []) as { name?: string }[];
  const at = (o: KObject, name: string) => containers(o).findIndex((c) => c.name === name);
  /** Removes the container `name` (its index as the lint sees it), plus `more` edits. */
  const removeContainer = (name: string, more: FixEdit[] = []) =>
    rule(`rm-${name}`, (o) => at(o, name) >= 0, (o) => ({ description: `remove ${name}`, safety: 'safe', edits: [{ op: 'remove', pointer: `/spec/template/spec/containers/${at(o, name)}` }, ...more] }));
  /** Sets the image of container `name` to `image`, by its index as the lint sees it. */
  const setImage = (name: string, image: string) =>
    rule(`set-${name}`, (o) => at(o, name) >= 0 && containers(o)[at(o, name)].image !== image, (o) => ({ description: `image of ${name}`, safety: 'safe', edits: [{ op: 'set', pointer: `/spec/template/spec/containers/${at(o, name)}/image`, value: image }] }));

  const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: &v {version: "1"}
spec:
  template:
    spec:
      containers:
      # first
      - name: a
        image: a:1
      # the one to drop
      - name: b
        image: b:1   # old
      # third, after the removed one
      - name: c
        image: c:1   # pinned
        ports:
        - containerPort: 80   # http
      - {name: d, image: d:1}  # flow item
`;

  test('removing a middle container keeps the later ones, and their comments, byte for byte', () => {
    const r = fix(DEPLOY, [removeContainer('b')]);
    expect(r.skipped).toEqual([]);
    // The removed item's leading comment stays, above the item that takes its place.
    expect(r.files[0].text).toBe(DEPLOY.replace('      - name: b\n        image: b:1   # old\n', ''));
  });

  test('a fix that removes item 0 and, through an anchor, also changes item 1 is refused', () => {
    const shared = DEPLOY.replace('      - name: b\n        image: b:1   # old\n', '      - name: b\n        labels: *v\n');
    const relabel: FixEdit = { op: 'set', pointer: '/metadata/labels/version', value: '2' };
    const r = fix(shared, [removeContainer('a', [relabel])]);
    expect(r.files[0].text).toBe(shared);
    // b moved to index 0 and is compared with what it was at index 1: its labels changed.
    expect(r.skipped.map((s) => s.reason)).toEqual(['cannot apply the fix: the edit would also change /spec/template/spec/containers/0/labels/version (shared through a YAML anchor or merge key); fix it by hand']);
    // The same fix without the alias is applied: the refusal is about the change, not the shift.
    expect(fix(DEPLOY, [removeContainer('a', [relabel])]).files[0].applied.map((a) => a.ruleId)).toEqual(['rm-a']);
  });

  test('a fix aimed at a shifted item waits for the next lint; one before the removed index does not', () => {
    // One pass: rm-b applies first (rule IDs order findings at one position); set-c, computed for
    // index 2, would now hit d, so it waits; set-a (index 0) keeps its meaning and applies.
    const r = fix(DEPLOY, [removeContainer('b'), setImage('c', 'c:2'), setImage('a', 'a:2')]);
    expect(r.passes).toBe(2);
    expect(r.converged).toBe(true);
    expect(r.files[0].applied.map((a) => a.ruleId)).toEqual(['rm-b', 'set-a', 'set-c']);
    expect(r.files[0].text).toBe(DEPLOY.replace('      - name: b\n        image: b:1   # old\n', '').replace('image: a:1', 'image: a:2').replace('image: c:1', 'image: c:2'));
  });
});

describe('unifiedDiff', () => {
  test('a/ b/ headers and hunks; empty when nothing changed', () => {
    const d = unifiedDiff('dir/f.yaml', 'a: 1\nb: 2\n', 'a: 1\nb: 3\n');
    expect(d).toBe('--- a/dir/f.yaml\n+++ b/dir/f.yaml\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n+b: 3\n');
    expect(unifiedDiff('f', 'x', 'x')).toBe('');
  });

  test('an absolute path gets git-style headers too (a/abs/path, not a//abs/path)', () => {
    expect(unifiedDiff('/srv/deploy/f.yaml', 'a: 1\n', 'a: 2\n').split('\n').slice(0, 2)).toEqual(['--- a/srv/deploy/f.yaml', '+++ b/srv/deploy/f.yaml']);
  });
});

describe('fixSources: what is read again', () => {
  const cm = (name: string, x: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  x: ${x}\n`;

  test('files without a fix to apply are never parsed again; a fixed YAML file is read back one edited document at a time', () => {
    const fixed = `# three documents\n${cm('a', 'bad')}---\n${cm('b', 'ok')}---\n${cm('c', 'bad')}`;
    const untouched = cm('d', 'ok');
    const json = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e' }, data: { x: 'ok' } });
    const r = fix(
      [
        { file: 'fixed.yaml', text: fixed },
        { file: 'untouched.yaml', text: untouched },
        { file: 'untouched.json', text: json },
      ],
      [setX()],
    );
    expect(r.files.map((f) => f.applied.length)).toEqual([2, 0, 0]);
    expect(r.files[0].text).toBe(fixed.replace(/x: bad/g, 'x: ok'));
    // The lint's own reading served every file: nothing was parsed whole again; the two documents
    // to edit were edited by text splices, without yaml Documents, and only they were read back.
    expect(r.work).toEqual({ fileParses: {}, documentsParsed: 0, documentsReadBack: 2, wholeReadBacks: 0, documentsSpliced: 2 });
    // On the Document route, only the two documents to edit are parsed with yaml (or handed over,
    // when the YAML fast path had parsed them for a position).
    const routed = fix(
      [
        { file: 'fixed.yaml', text: fixed },
        { file: 'untouched.yaml', text: untouched },
        { file: 'untouched.json', text: json },
      ],
      [setX()],
      { textSplice: false },
    );
    expect(routed.files.map((f) => f.text)).toEqual(r.files.map((f) => f.text));
    expect(routed.work).toEqual({ fileParses: {}, documentsParsed: expect.any(Number), documentsReadBack: 2, wholeReadBacks: 0, documentsSpliced: 0 });
    expect(routed.work.documentsParsed).toBeLessThanOrEqual(2);
    // The last lint is of the fixed texts: the report of what remains can be taken from it.
    expect(r.lint.findings).toEqual([]);
    expect(r.lint.parsed.map((p) => p.objects.map((o) => `${o.name}:${o.line}`))).toEqual([['a:2', 'b:9', 'c:16'], ['d:1'], ['e:1']]);
  });

  test('a document the YAML fast path parsed with yaml for a position is handed over, not parsed again', () => {
    // A flow sequence over two lines makes the fast path ask yaml for positions (quick-yaml reads
    // multi-line plain and quoted scalars, and the text locator serves those).
    const flow = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  note: [one,\n    two]\n  x: bad\n`;
    const text = `${flow('a')}---\n${flow('b')}`;
    // A finding at /data/x: its position is asked for.
    const setXAt: Rule = {
      meta: setX().meta,
      check(ctx) {
        for (const o of ctx.graph.objects) {
          if (data(o, 'x') !== 'ok') ctx.report({ object: o, pointer: '/data/x', message: 'x', fix: { description: 'set x', safety: 'safe', edits: [{ op: 'set', pointer: '/data/x', value: 'ok' }] } });
        }
      },
    };
    const r = fix(text, [setXAt], { textSplice: false });
    expect(r.files[0].text).toBe(text.replace(/x: bad/g, 'x: ok'));
    expect(r.work).toEqual({ fileParses: {}, documentsParsed: 0, documentsReadBack: 2, wholeReadBacks: 0, documentsSpliced: 0 });
    // By text splices, no document is needed at all.
    const spliced = fix(text, [setXAt]);
    expect(spliced.files[0].text).toBe(r.files[0].text);
    expect(spliced.work).toEqual({ fileParses: {}, documentsParsed: 0, documentsReadBack: 2, wholeReadBacks: 0, documentsSpliced: 2 });
  });

  test('a JSON file the fast path read is parsed as a YAML document only when it has a fix to apply', () => {
    const json = (name: string, x: string) => `${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { x } }, null, 2)}\n`;
    const r = fix(
      [
        { file: 'bad.json', text: json('a', 'bad') },
        { file: 'ok.json', text: json('b', 'ok') },
      ],
      [setX()],
    );
    expect(r.files[0].text).toBe(json('a', 'ok'));
    // (JSON documents are never spliced: surgical.ts writes JSON's flow mappings.)
    expect(r.work).toEqual({ fileParses: {}, documentsParsed: 1, documentsReadBack: 1, wholeReadBacks: 0, documentsSpliced: 0 });
  });

  test('files with `...` not before a `---`, directives or a broken document are read back whole, with the same result', () => {
    const cases = [
      // (`...` then `---` is read back piecewise: test/fix/end-markers.test.ts.)
      `${cm('a', 'bad')}...\n${cm('b', 'bad')}`,
      `%YAML 1.1\n---\n${cm('a', 'bad')}---\n${cm('b', 'bad')}`,
      `${cm('a', 'bad')}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\n---\n${cm('b', 'bad')}`,
    ];
    for (const text of cases) {
      const r = fix(text, [setX()]);
      expect(r.files[0].text).toBe(text.replace(/x: bad/g, 'x: ok'));
      expect(r.work.wholeReadBacks).toBe(1);
      expect(r.work.fileParses['f.yaml']).toBeGreaterThanOrEqual(1);
    }
  });

  test('findings of the last lint are at their lines in the fixed text, below lines a fix added', () => {
    const grow = rule('grow', (o) => o.kind === 'ConfigMap' && o.name === 'a' && data(o, 'w') === undefined, () => ({
      description: 'add w',
      safety: 'safe',
      edits: [{ op: 'set', pointer: '/data/w', value: { p: 1, q: 2 } } as FixEdit],
    }));
    const report = rule('report-b', (o) => o.name === 'b', () => ({ description: 'nothing', safety: 'proposal', edits: [] }));
    const text = `${cm('a', 'ok')}---\n${cm('b', 'ok')}`;
    const r = fix(text, [grow, report]);
    const out = r.files[0].text;
    expect(out).toBe(`${cm('a', 'ok')}  w:\n    p: 1\n    q: 2\n---\n${cm('b', 'ok')}`);
    expect(r.files[0].applied.map((a) => a.line)).toEqual([1]);
    expect(r.lint.findings.map((f) => [f.ruleId, f.line])).toEqual([['report-b', out.split('\n').indexOf('---') + 2]]);
  });
});
