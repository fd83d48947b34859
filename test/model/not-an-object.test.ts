/**
 * A document or List item that reads like a Kubernetes object but is none (not-an-object.ts):
 * `Kind: Deployment`, a kind or apiVersion left out, a `kubectl get -o yaml` dump cut short at a
 * line (kubectl writes `kind: List` after the items). Before, each was skipped like a values file:
 * the workload went unchecked and the lint passed (a dump of 44,441 items cut short: "No
 * problems", exit 0). Now each is an input error at the document or item, the same from every
 * reader as from parse.ts; files that are no objects (values files, Chart.yaml) are still skipped.
 */
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { kubectlDump } from '../../bench/generate';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { parseJsonFast, parseJsonListBytes, parseJsonListFile, ParsedObjects } from '../../lib/model/fast-json';
import { parseYamlFast, parseYamlFile, parseYamlListFile } from '../../lib/model/fast-yaml';
import { parseSource } from '../../lib/engine/run';
import { fixSources } from '../../lib/fix';
import { isList, listItem, notAnObject } from '../../lib/model/not-an-object';
import { utf8Source } from '../../lib/model/sources';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { stampedFiles } from '../helpers/files';
import { agreeWith } from '../helpers/parse-compare';

const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };
const { stamped } = stampedFiles('kg-notobject-');

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } } };

describe('documents that read like objects but are none (not-an-object.ts)', () => {
  test.each([
    ['a key in the wrong case', { apiVersion: 'apps/v1', Kind: 'Deployment', metadata: { name: 'web' }, spec: {} }, 'object "web": no kind (there is "Kind": keys are case-sensitive); the API server refuses it ("Object \'Kind\' is missing"), so kubegrace checks nothing in it; rename "Kind" to kind'],
    ['no apiVersion', { kind: 'Deployment', metadata: { name: 'api' } }, 'object "api": no apiVersion; the API server refuses it ("Object \'apiVersion\' is missing"), so kubegrace checks nothing in it; add apiVersion'],
    ['neither, in the wrong case', { ApiVersion: 'v1', Kind: 'Service', spec: {} }, 'this document: no kind (there is "Kind": keys are case-sensitive), no apiVersion (there is "ApiVersion": keys are case-sensitive); the API server refuses it ("Object \'Kind\' is missing"), so kubegrace checks nothing in it; rename "Kind" to kind and rename "ApiVersion" to apiVersion'],
    ['a kind that is no string', { apiVersion: 'v1', kind: 5, metadata: { name: 'odd' } }, 'object "odd": kind is the number 5, not a non-empty string; the API server refuses it, so kubegrace checks nothing in it; set kind'],
    ['an empty kind', { apiVersion: 'v1', kind: '', metadata: {} }, 'this document: kind is the string "", not a non-empty string; the API server refuses it, so kubegrace checks nothing in it; set kind'],
    ['a List cut short', { apiVersion: 'v1', items: [{ apiVersion: 'v1', kind: 'Pod' }, {}] }, 'a List without kind: kubectl writes "kind: List" after the items, so this file was probably cut short (an interrupted kubectl get -o yaml); the API server refuses it, so kubegrace checks none of the 2 items read; write the file again'],
  ])('%s', (_name, value, message) => {
    expect(notAnObject(value)).toBe(message);
  });

  test.each([
    ['objects only', [DEPLOYMENT, DEPLOYMENT], 'a sequence of 2 objects at the top level'],
    ['objects among other items', [DEPLOYMENT, 3, 'x'], 'a sequence at the top level holding 1 object among 3 items'],
    ['an object without kind', [{ apiVersion: 'v1' }], 'a sequence of 1 object at the top level'],
  ])('a sequence at the top level: %s', (_name, value, start) => {
    expect(notAnObject(value)).toBe(`${start}: kubectl reads a document as one object and refuses a sequence ("cannot unmarshal array"), so kubegrace checks none of them; put them under items: of a List (apiVersion: v1, kind: List), or write them as separate documents`);
    // (A List's items are never such a sequence.)
    expect(notAnObject(value, { item: 0 })).toBeUndefined();
  });

  test('a List item is named by its index', () => {
    expect(notAnObject({ apiVersion: 'v1', metadata: { name: 'cm' } }, { item: 3 })).toBe('List item 3 ("cm"): no kind; the API server refuses it ("Object \'Kind\' is missing"), so kubegrace checks nothing in it; add kind');
    // A List holds only objects: an item with metadata or a spec but neither key is one written wrong
    // (a document like it is a values file, say).
    expect(notAnObject({ metadata: { name: 'cm' }, data: {} }, { item: 0 })).toBe('List item 0 ("cm"): no kind, no apiVersion; the API server refuses it ("Object \'Kind\' is missing"), so kubegrace checks nothing in it; add kind and add apiVersion');
    expect(notAnObject({ metadata: { name: 'cm' }, data: {} })).toBeUndefined();
    expect(notAnObject({ name: 'x', port: 80 }, { item: 0 })).toBeUndefined();
  });

  test.each([
    ['a Chart.yaml', { apiVersion: 'v2', name: 'web', version: '1.0.0', dependencies: [{ name: 'redis' }] }],
    ['a values file that picks a kind', { kind: 'DaemonSet', image: { repository: 'fluent/fluent-bit' }, resources: {} }],
    ['a kustomization without kind', { resources: ['deployment.yaml'], metadata: { name: 'x' } }],
    ['a kustomize patch list', [{ op: 'replace', path: '/spec/replicas', value: 3 }]],
    ['a sequence of numbers', [1, 2]],
    ['a scalar', 'just text'],
    ['an object', DEPLOYMENT],
  ])('%s is no object written wrong', (_name, value) => {
    expect(notAnObject(value)).toBeUndefined();
  });

  test('every reader reports them where parse.ts does, and reads the other objects as it does (YAML documents, Lists in both layouts, JSON)', () => {
    const objects: JsonObject[] = [
      DEPLOYMENT,
      ({ apiVersion: 'v1', Kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }),
      ({ kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }),
      ({ apiVersion: 'v2', name: 'chart', version: '1.0.0' }),
      { ...DEPLOYMENT, metadata: { name: 'api', namespace: 'shop' } },
    ];
    const yaml = objects.map((o) => jsyaml.dump(o, { noRefs: true })).join('---\n');
    const list = { apiVersion: 'v1', kind: 'List', items: objects, metadata: { resourceVersion: '' } };
    const texts: [string, string][] = [
      ['docs.yaml', yaml],
      ['list.yaml', jsyaml.dump(list, { noRefs: true, noArrayIndent: true })],
      ['list-indented.yaml', jsyaml.dump(list, { noRefs: true })],
      ['list.json', JSON.stringify(list, null, 2)],
      ['list4.json', `${JSON.stringify(list, null, 4)}\n`],
      ['one.json', JSON.stringify(objects[1], null, 2)],
      // A sequence at the top level (`jq -s`): kubectl refuses it.
      ['array.json', JSON.stringify(objects, null, 2)],
      ['array.yaml', `# objects\n${jsyaml.dump(objects, { noRefs: true })}`],
    ];
    for (const [name, text] of texts) {
      const slow = parseText(name, text);
      expect(slow.errors.length).toBeGreaterThan(0);
      const json = name.endsWith('.json');
      const readings: (ParsedObjects | undefined)[] = json ? [parseJsonFast(name, text)] : [parseYamlFast(name, text), parseYamlFile(name, stamped(`file-${name}`, text), 64, undefined, 64)];
      // The List readers, item by item.
      if (name.startsWith('list')) readings.push(json ? parseJsonListBytes(name, Buffer.from(text)) : parseYamlListFile(name, stamped(`list-${name}`, text), 64, undefined, 64));
      if (name === 'list.json' || name === 'list4.json') readings.push(parseJsonListFile(name, stamped(`list-${name}`, text), 64));
      // None of them declines these: each reports the errors itself.
      const read = readings.filter((r): r is ParsedObjects => r !== undefined);
      expect(read).toHaveLength(readings.length);
      for (const r of read) agreeWith(OPTS, r, slow, name, { located: 5 });
    }
  });

  test('a kubectl dump cut short at a line: one error, from the streamed reader as from parse.ts, in both layouts and at any line', () => {
    const items = kubectlDump(60) as JsonObject[];
    fc.assert(
      fc.property(fc.boolean(), fc.double({ min: 0.05, max: 0.98, noNaN: true }), (kubectlLayout, at) => {
        const full = jsyaml.dump({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, { lineWidth: -1, noRefs: true, noArrayIndent: kubectlLayout });
        const lines = full.split('\n');
        const text = `${lines.slice(0, Math.max(3, Math.floor(lines.length * at))).join('\n')}\n`;
        const slow = parseText('cut.yaml', text);
        // (Each reading its own file: a file written again is one its views no longer read from.)
        const streamed = parseYamlListFile('cut.yaml', stamped('cut-list.yaml', text), 4096, undefined, 4096);
        const whole = parseYamlFile('cut.yaml', stamped('cut-file.yaml', text), 4096, undefined, 4096);
        expect(slow.objects).toEqual([]);
        expect(slow.errors).toHaveLength(1);
        for (const r of [streamed, whole, parseYamlFast('cut.yaml', text)]) if (r) agreeWith(OPTS, r, slow, 'cut.yaml');
        // kubectl's layout (items before kind): the reader that streams a large dump reports it itself.
        if (kubectlLayout) {
          expect(slow.errors[0].message).toMatch(/^a List without kind: .* none of the \d+ items read/);
          expect(streamed).toBeDefined();
        }
      }),
      { numRuns: 40, seed: 27 },
    );
  });

  test('random objects with apiVersion or kind deleted or renamed, as documents and List items: every reader agrees with parse.ts', () => {
    const pool = kubectlDump(40) as JsonObject[];
    const damage = fc.constantFrom('none', 'no-kind', 'no-apiVersion', 'Kind', 'apiVersion-number', 'empty-kind');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(pool.length - 1), damage), { minLength: 1, maxLength: 6 }), fc.constantFrom('docs', 'list', 'list-indented', 'json'), (picks, form) => {
        const objs = picks.map(([i, d]) => {
          const o: JsonObject = { ...pool[i] };
          if (d === 'no-kind') delete o.kind;
          if (d === 'no-apiVersion') delete o.apiVersion;
          if (d === 'Kind') {
            o.Kind = o.kind;
            delete o.kind;
          }
          if (d === 'apiVersion-number') o.apiVersion = 1;
          if (d === 'empty-kind') o.kind = '';
          return o;
        });
        const list = { apiVersion: 'v1', kind: 'List', items: objs };
        const text = form === 'docs' ? objs.map((o) => jsyaml.dump(o, { lineWidth: -1, noRefs: true })).join('---\n') : form === 'json' ? JSON.stringify(list, null, 2) : jsyaml.dump(list, { lineWidth: -1, noRefs: true, noArrayIndent: form === 'list' });
        const name = form === 'json' ? 'r.json' : 'r.yaml';
        const slow = parseText(name, text);
        expect(slow.errors).toHaveLength(picks.filter(([, d]) => d !== 'none').length);
        const readings = form === 'json' ? [parseJsonFast(name, text), parseJsonListBytes(name, Buffer.from(text)), parseJsonListFile(name, stamped(name, text), 256)] : [parseYamlFast(name, text), parseYamlFile(name, stamped(name, text), 256, undefined, 256)];
        // (One stamped file per run, read by one reader: its views read from it later.)
        for (const r of readings) if (r) agreeWith(OPTS, r, slow, name, { located: 3, findings: false });
        // The in-memory readers never decline these.
        expect(readings[0]).toBeDefined();
      }),
      { numRuns: 150, seed: 28 },
    );
  });

  describe("typed lists: the API server's items without apiVersion and kind (listItem)", () => {
    const strip = (o: JsonObject): JsonObject => {
      const { apiVersion: _a, kind: _k, ...rest } = o;
      return rest;
    };
    const SERVICE: JsonObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
    const SERVED: JsonObject = { ...DEPLOYMENT, spec: { ...DEPLOYMENT.spec, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1', ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { path: '/', port: 8080 } } }] } } } };

    test('an item with neither takes the List apiVersion and its kind without "List", as apimachinery decodeToList does', () => {
      const list = { apiVersion: 'apps/v1', kind: 'DeploymentList', items: [] };
      expect(listItem(list, strip(DEPLOYMENT))).toEqual(DEPLOYMENT);
      expect(Object.keys(listItem(list, strip(DEPLOYMENT)) as JsonObject).slice(0, 2)).toEqual(['apiVersion', 'kind']);
      // Neither means no non-empty string of either: an empty or odd value is replaced.
      expect(listItem(list, { ...strip(DEPLOYMENT), kind: '', apiVersion: 5 })).toEqual(DEPLOYMENT);
      // A key in the wrong case is no kind for the API server either: the item is typed, the key stays.
      expect(listItem(list, { ...strip(DEPLOYMENT), Kind: 'Deployment' })).toEqual({ ...DEPLOYMENT, Kind: 'Deployment' });
      // One of the two set: as written (the other is then missing, see notAnObject).
      expect(listItem(list, { ...strip(DEPLOYMENT), kind: 'Deployment' })).toEqual({ ...strip(DEPLOYMENT), kind: 'Deployment' });
      expect(listItem(list, { ...strip(DEPLOYMENT), apiVersion: 'apps/v1' })).toEqual({ ...strip(DEPLOYMENT), apiVersion: 'apps/v1' });
      // kind: List gives no kind: as written.
      expect(listItem({ apiVersion: 'v1', kind: 'List' }, strip(DEPLOYMENT))).toEqual(strip(DEPLOYMENT));
      expect(listItem(list, 'text')).toBe('text');
      // A member named __proto__ stays a member.
      const odd = JSON.parse('{"metadata": {"name": "x"}, "__proto__": {"polluted": true}}') as JsonObject;
      const typed = listItem(list, odd) as JsonObject;
      expect(Object.keys(typed)).toEqual(['apiVersion', 'kind', 'metadata', '__proto__']);
      expect((typed as { polluted?: boolean }).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(typed)).toBe(Object.prototype);
    });

    test('kubectl get --raw and client-library lists: every reader lints their items as parse.ts does (both layouts, YAML and JSON, compact and pretty)', () => {
      const deployments = { kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: { resourceVersion: '42' }, items: [strip(SERVED), strip({ ...SERVED, metadata: { name: 'api', namespace: 'shop' } }), { ...strip(DEPLOYMENT), Kind: 'Deployment', metadata: { name: 'typo', namespace: 'shop' } }, { ...strip(DEPLOYMENT), kind: 'Deployment', metadata: { name: 'half', namespace: 'shop' } }] };
      const services = { kind: 'ServiceList', apiVersion: 'v1', metadata: { resourceVersion: '42' }, items: [strip(SERVICE)] };
      // kubectl's layout: apiVersion, items, kind, metadata.
      const kubectl = (l: { kind: string; apiVersion: string; metadata: JsonObject; items: JsonObject[] }) => ({ apiVersion: l.apiVersion, items: l.items, kind: l.kind, metadata: l.metadata });
      const texts: [string, string][] = [
        ['raw.json', JSON.stringify(deployments)],
        ['raw-pretty.json', JSON.stringify(deployments, null, 2)],
        ['kubectl.json', `${JSON.stringify(kubectl(deployments), null, 4)}\n`],
        ['raw.yaml', `${jsyaml.dump(deployments, { noRefs: true })}---\n${jsyaml.dump(services, { noRefs: true })}`],
        ['list.yaml', jsyaml.dump(kubectl(deployments), { noRefs: true, noArrayIndent: true })],
        ['list-indented.yaml', jsyaml.dump(kubectl(deployments), { noRefs: true })],
      ];
      for (const [name, text] of texts) {
        const slow = parseText(name, text);
        // The three typed items are Deployments of apps/v1; the one with only a kind has no apiVersion.
        const deps = slow.objects.filter((o) => o.kind === 'Deployment');
        expect(deps.map((o) => [o.apiVersion, o.name])).toEqual([['apps/v1', 'web'], ['apps/v1', 'api'], ['apps/v1', 'typo']]);
        expect(slow.errors.map((e) => e.message)).toEqual(['List item 3 ("half"): no apiVersion; the API server refuses it ("Object \'apiVersion\' is missing"), so kubegrace checks nothing in it; add apiVersion']);
        if (name === 'raw.yaml') expect(slow.objects.map((o) => o.kind)).toContain('Service');
        const json = name.endsWith('.json');
        const readings: (ParsedObjects | undefined)[] = json ? [parseJsonFast(name, text), parseJsonListBytes(name, Buffer.from(text))] : [parseYamlFast(name, text), parseYamlFile(name, stamped(`file-${name}`, text), 64, undefined, 64)];
        if (name === 'kubectl.json' || name === 'raw-pretty.json') readings.push(parseJsonListFile(name, stamped(`list-${name}`, text), 64));
        if (name.startsWith('list')) readings.push(parseYamlListFile(name, stamped(`list-${name}`, text), 64, undefined, 64));
        const read = readings.filter((r): r is ParsedObjects => r !== undefined);
        // The in-memory readers never decline them, nor does the streamed reader of kubectl's YAML layout.
        expect(readings[0]).toBeDefined();
        if (name === 'list.yaml') expect(readings[readings.length - 1]).toBeDefined();
        for (const r of read) agreeWith(OPTS, r, slow, name, { located: 5 });
      }
    });

    test('random typed lists with items stripped of apiVersion and kind or damaged: every reader agrees with parse.ts', () => {
      const pool = kubectlDump(40) as JsonObject[];
      const damage = fc.constantFrom('none', 'strip', 'strip', 'no-kind', 'Kind', 'empty-both');
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(pool.length - 1), damage), { minLength: 1, maxLength: 6 }), fc.constantFrom('list', 'list-indented', 'json', 'raw-json'), fc.boolean(), (picks, form, typed) => {
          const objs = picks.map(([i, d]) => {
            const o: JsonObject = { ...pool[i] };
            if (d === 'strip' || d === 'Kind' || d === 'empty-both') {
              delete o.apiVersion;
              delete o.kind;
            }
            if (d === 'no-kind') delete o.kind;
            if (d === 'Kind') o.Kind = pool[i].kind;
            if (d === 'empty-both') Object.assign(o, { apiVersion: '', kind: '' });
            return o;
          });
          const list = { apiVersion: typed ? 'apps/v1' : 'v1', items: objs, kind: typed ? 'DeploymentList' : 'List', metadata: { resourceVersion: '' } };
          const text = form === 'json' ? JSON.stringify(list, null, 2) : form === 'raw-json' ? JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata, items: objs }) : jsyaml.dump(list, { lineWidth: -1, noRefs: true, noArrayIndent: form === 'list' });
          const name = form.endsWith('json') ? 'r.json' : 'r.yaml';
          const slow = parseText(name, text);
          const stripped = picks.filter(([, d]) => d === 'strip' || d === 'Kind' || d === 'empty-both').length;
          // Typed: the stripped items are objects; in a kind: List only the written-wrong ones are errors.
          expect(slow.objects.length).toBe(picks.filter(([, d]) => d === 'none').length + (typed ? stripped : 0));
          // (In a kind: List, an item with neither is an object without kind: an error too.)
          expect(slow.errors).toHaveLength(picks.filter(([, d]) => d === 'no-kind' || (!typed && d !== 'none')).length);
          const readings =
            name === 'r.json'
              ? [parseJsonFast(name, text), parseJsonListBytes(name, Buffer.from(text)), form === 'json' ? parseJsonListFile(name, stamped(`${form}.json`, text), 256) : undefined]
              : [parseYamlFast(name, text), parseYamlFile(name, stamped(`${form}-file.yaml`, text), 256, undefined, 256), parseYamlListFile(name, stamped(`${form}-list.yaml`, text), 256, undefined, 256)];
          for (const r of readings) if (r) agreeWith(OPTS, r, slow, name, { located: 3, findings: false });
          expect(readings[0]).toBeDefined();
        }),
        { numRuns: 150, seed: 29 },
      );
    });
  });

  describe('Lists inside a List: their items at any depth, as kubectl applies them (cli-runtime FlattenListVisitor)', () => {
    const named = (o: JsonObject, name: string): JsonObject => ({ ...o, metadata: { ...(o.metadata as JsonObject), name } });
    const { apiVersion: _a, kind: _k, ...bare } = DEPLOYMENT;
    // `jq -s '{apiVersion: "v1", kind: "List", items: .}'` over kubectl get -o json outputs, a
    // typed list from the API among them, and a List two levels down.
    const nested = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '7' }, items: [named(bare as JsonObject, 'typed'), named(DEPLOYMENT, 'written')] },
        named(DEPLOYMENT, 'flat'),
        { apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'List', items: [named(DEPLOYMENT, 'deep'), { kind: 'Deployment', metadata: { name: 'half' }, spec: {} }] }] },
        { apiVersion: 'v1', kind: 'ConfigMapList', items: [] },
      ],
    };
    const json = (name: string) => name.endsWith('.json');
    const texts: [string, string][] = [
      ['nested.yaml', jsyaml.dump(nested, { noRefs: true })],
      ['nested-kubectl.yaml', jsyaml.dump(nested, { noRefs: true, noArrayIndent: true })],
      ['nested.json', `${JSON.stringify(nested, null, 4)}\n`],
      ['nested-compact.json', JSON.stringify(nested)],
    ];

    test('parse.ts reads every item, typed as its own List types it, with its pointer, position and findings; an item written wrong is an error named by its path', () => {
      expect(isList(nested.items[0])).toBe(true);
      expect(isList({ kind: 'DeploymentList', items: {} })).toBe(false);
      expect(isList(DEPLOYMENT)).toBe(false);
      for (const [name, text] of texts) {
        const slow = parseText(name, text);
        expect(slow.objects.map((o) => [o.kind, o.name, o.basePointer])).toEqual([
          ['Deployment', 'typed', '/items/0/items/0'],
          ['Deployment', 'written', '/items/0/items/1'],
          ['Deployment', 'flat', '/items/1'],
          ['Deployment', 'deep', '/items/2/items/0/items/0'],
        ]);
        expect(slow.errors.map((e) => e.message)).toEqual(['List item 2, item 0, item 1 ("half"): no apiVersion; the API server refuses it ("Object \'apiVersion\' is missing"), so kubegrace checks nothing in it; add apiVersion']);
        // Each object is where its own text is; the error at its item (a JSON item's `{`), after "deep".
        if (!name.includes('compact')) {
          const lines = text.split('\n');
          for (const o of slow.objects) expect(lines[o.locate('/metadata/name').line - 1]).toContain(`"${o.name}"`.slice(json(name) ? 0 : 1, json(name) ? undefined : -1));
          expect(slow.errors[0].line).toBeGreaterThan(slow.objects[3].line);
          expect(lines[slow.errors[0].line - 1].trim()).toMatch(json(name) ? /^\{$/ : /^- kind: Deployment$/);
        }
      }
    });

    test('the fast readers leave such a file to parse.ts, and the lint reads it as parse.ts does', () => {
      for (const [name, text] of texts) {
        const slow = parseText(name, text);
        const readings = json(name)
          ? [parseJsonFast(name, text), parseJsonListBytes(name, Buffer.from(text)), parseJsonListFile(name, stamped(`nested-${name}`, text), 64)]
          : [parseYamlFast(name, text), parseYamlFile(name, stamped(`file-${name}`, text), 64, undefined, 64), parseYamlListFile(name, stamped(`nested-${name}`, text), 64, undefined, 64)];
        for (const r of readings) expect(r).toBeUndefined();
        // The engine's reading (the fast paths declined): parse.ts's.
        agreeWith(OPTS, parseSource(utf8Source(name, Buffer.from(text))), slow, name, { located: 5 });
      }
      // A List whose Lists hold no items is read by the fast paths as before (nothing in them to lint).
      const empty = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [DEPLOYMENT] });
      expect(parseJsonFast('flat.json', empty)?.objects).toHaveLength(1);
    });

    test('--fix repairs an item of a List inside a List, and a second run has nothing to fix', () => {
      const opts = { ...OPTS, proposals: false };
      const zero = JSON.parse(JSON.stringify(nested)) as { items: { items: { items: JsonObject[] }[] }[] };
      ((zero.items[2].items[0].items[0].spec as JsonObject).template as { spec: JsonObject }).spec.terminationGracePeriodSeconds = 0;
      const text = `# a comment kept\n${jsyaml.dump(zero, { noRefs: true })}`;
      const once = fixSources([{ file: 'nested.yaml', text }], opts);
      const fixed = once.files[0].text;
      expect(once.files[0].applied.map((a) => a.ruleId)).toContain('zero-grace-period');
      expect(fixed).not.toContain('terminationGracePeriodSeconds: 0');
      expect(fixed.startsWith('# a comment kept\n')).toBe(true);
      const deep = parseText('nested.yaml', fixed).objects.find((o) => o.name === 'deep')!;
      expect(deep.basePointer).toBe('/items/2/items/0/items/0');
      expect(((deep.raw.spec as JsonObject).template as { spec: JsonObject }).spec.terminationGracePeriodSeconds).toBeGreaterThan(0);
      expect(fixSources([{ file: 'nested.yaml', text: fixed }], opts).files[0].text).toBe(fixed);
    });
  });
});
