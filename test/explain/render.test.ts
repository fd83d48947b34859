/**
 * Rendering: the terminal drawing (key lines, colour only when asked) and the SVG (well-formed by
 * two strict XML parsers, structure, escaping, determinism).
 */
import { DOMParser, Element as XmlElement } from '@xmldom/xmldom';
import * as fs from 'fs';
import * as path from 'path';
import { SaxesParser } from 'saxes';
import { DEFAULT_KUBE_VERSION } from '../../lib/engine/version';
import { timelinesSvg, timelinesText, xmlSafe } from '../../lib/explain';
import { container, deployment, explainOne, explainText } from './helpers';

const FIXTURE = fs.readFileSync(path.join(__dirname, 'fixtures/sidecar-overlong.yaml'), 'utf8');
const ESC = '\u001b[';

describe('text rendering', () => {
  const t = explainOne(FIXTURE);
  const out = timelinesText([t], { color: false });

  test('title, axis, one row per lane, deadline, legend', () => {
    const lines = out.split('\n');
    expect(lines[0]).toBe('Deployment/checkout (namespace shop)  test.yaml:3:1');
    expect(out).toContain('Termination timeline: grace 30s (terminationGracePeriodSeconds); served by a Service; pod gone at 32s');
    expect(lines.some((l) => /^\s+0s\s+10s\s+20s\s+30s/.test(l))).toBe(true);
    for (const name of ['endpoints', 'app', 'linkerd-proxy', 'log-shipper']) expect(lines.some((l) => l.startsWith(`  ${name} `))).toBe(true);
    // The deadline column is marked on every lane row, at the same column.
    const rows = lines.filter((l) => /^ {2}(endpoints|app|linkerd-proxy|log-shipper) /.test(l));
    const cols = new Set(rows.map((l) => l.indexOf('┃')));
    expect(cols.size).toBe(1);
    expect([...cols][0]).toBeGreaterThan(0);
    expect(out).toContain('┗ grace deadline 30s, last SIGKILL 32s');
    expect(out).toMatch(/legend: .*▒ preStop.*× violation.*┃ grace deadline/);
  });

  test('violations are called out with their rule; lanes with one are marked', () => {
    expect(out).toMatch(/Violations on the timeline\n {2}✗ +20s {2}linkerd-proxy gets SIGTERM at 20s.*\[linkerd-proxy-drain\]/);
    expect(out).toMatch(/✗ +30s {2}"app": preStop 35s >= grace 30s.*\[grace-period-budget\]/);
    expect(out.split('\n').find((l) => l.startsWith('  app '))).toMatch(/✗$/);
    expect(out).toMatch(/\^+ +linkerd-proxy shutting down/);
    expect(out).toContain('app: preStop 35s + drain 15s + addends 5s = 55s needed, > grace 30s by 25s (recommended grace 60s)');
  });

  test('events in time order, lint findings and the rollout follow', () => {
    expect(out).toMatch(/Events\n +0s {2}pod deleted: grace period 30s starts/);
    expect(out).toMatch(/ 30s {2}✗ SIGTERM → app \(hook cut at the deadline\)/);
    expect(out).toMatch(/test\.yaml:\d+:\d+ error {3}grace-period-budget container "app"/);
    expect(out).toMatch(/Rollout\n {2}strategy: RollingUpdate; maxSurge "25%" \(default\) → 1, maxUnavailable "25%" \(default\) → 0 \(for 3 replicas\)/);
    expect(out).toContain('steps: 3 x 1 new pod');
    expect(out).toContain('expected duration: about 30s = 3 steps x (startup 5s + minReadySeconds 5s)');
    expect(out).toContain('PodDisruptionBudget/checkout (maxUnavailable 1) allows 1 eviction at a time with 3 pods');
  });

  test('no escape codes without colour; colour when asked', () => {
    expect(out).not.toContain(ESC);
    expect(timelinesText([t], { color: true })).toContain(ESC);
  });

  test('several workloads: one after another', () => {
    const two = explainText(deployment({ containers: container('app'), name: 'a' }) + '---\n' + deployment({ containers: container('app'), name: 'b' }));
    const text = timelinesText(two, { color: false });
    expect(text.indexOf('Deployment/a ')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('Deployment/b ')).toBeGreaterThan(text.indexOf('Deployment/a '));
  });
});

describe('the replicas line says the number once, and where it comes from', () => {
  const hpa = `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
`;
  const cases: [string, string, string, string][] = [
    ['spec.replicas', deployment({ containers: container('app'), replicas: 3 }), 'replicas: 3 (spec.replicas)', '3 replicas (spec.replicas)'],
    ['the default', deployment({ containers: container('app') }).replace('  replicas: 2\n', ''), 'replicas: 1 (default)', '1 replica (default)'],
    ['an HPA minimum', deployment({ containers: container('app'), extra: hpa.replace('maxReplicas: 5', 'minReplicas: 2\n  maxReplicas: 5') }), 'replicas: 2 (the minimum of HorizontalPodAutoscaler/web)', '2 replicas (the minimum of HorizontalPodAutoscaler/web)'],
    ['an HPA default minimum', deployment({ containers: container('app'), extra: hpa }), 'replicas: 1 (the minimum of HorizontalPodAutoscaler/web: minReplicas defaults to 1)', '1 replica (the minimum of HorizontalPodAutoscaler/web: minReplicas defaults to 1)'],
  ];
  test.each(cases)('%s', (_, yaml, text, svgFact) => {
    const t = explainOne(yaml);
    const out = timelinesText([t], { color: false });
    expect(out.split('\n').filter((l) => l.startsWith('  replicas: '))).toEqual([`  ${text}`]);
    expect(out).not.toMatch(/replicas: \d+ \(replicas \d+/);
    const facts = all(parseStrict(timelinesSvg([t])), 'text').map((e) => e.textContent ?? '').filter((l) => /replicas? \(/.test(l));
    expect(facts.join('\n')).toContain(svgFact);
    expect(facts.join('\n')).not.toMatch(/\(replicas \d/);
  });
});

/** Parses strictly with saxes (namespaces on) and with xmldom; any error fails. */
function parseStrict(svg: string): XmlElement {
  const sax = new SaxesParser({ xmlns: true });
  const errors: string[] = [];
  sax.on('error', (e) => errors.push(e.message));
  sax.write(svg).close();
  expect(errors).toEqual([]);
  const doc = new DOMParser({
    onError: (level, msg) => {
      throw new Error(`xmldom ${level}: ${msg}`);
    },
  }).parseFromString(svg, 'image/svg+xml');
  return doc.documentElement as unknown as XmlElement;
}

function all(root: XmlElement, tag: string): XmlElement[] {
  const list = root.getElementsByTagName(tag);
  const out: XmlElement[] = [];
  for (let i = 0; i < list.length; i++) out.push(list.item(i) as XmlElement);
  return out;
}

const hasClass = (e: XmlElement, c: string) => (e.getAttribute('class') ?? '').split(' ').includes(c);

describe('SVG rendering', () => {
  const t = explainOne(FIXTURE);
  const svg = timelinesSvg([t]);
  const root = parseStrict(svg);

  test('self-contained SVG with a viewBox and a title naming the object', () => {
    expect(root.tagName).toBe('svg');
    expect(root.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(root.getAttribute('viewBox')).toMatch(/^0 0 1100 \d+$/);
    expect(all(root, 'title')[0].textContent).toBe('Deployment shop/checkout: termination timeline');
    expect(svg).not.toMatch(/<script|<image|<foreignObject|@import|url\((?!#)|href=/i);
    const title = all(root, 'text').find((e) => hasClass(e, 'title'))!;
    expect(title.textContent).toBe('Deployment shop/checkout: termination timeline');
  });

  test('one lane per container (plus the endpoints lane), in order', () => {
    const lanes = all(root, 'g').filter((g) => hasClass(g, 'lane'));
    expect(lanes.map((g) => g.getAttribute('data-lane'))).toEqual(['endpoints', 'app', 'linkerd-proxy', 'log-shipper']);
    expect(lanes.map((g) => g.getAttribute('data-role'))).toEqual(['endpoints', 'main', 'proxy-classic', 'sidecar']);
  });

  test('axis ticks in seconds, the grace deadline and SIGKILL are marked', () => {
    const ticks = all(root, 'text').filter((e) => hasClass(e, 'tick-label')).map((e) => e.textContent);
    expect(ticks).toEqual(['0s', '10s', '20s', '30s', '40s', '50s', '60s']);
    const deadline = all(root, 'line').filter((e) => hasClass(e, 'deadline'));
    expect(deadline).toHaveLength(1);
    // The deadline sits at 30 of 60 seconds: halfway along the axis (x 250..1060).
    expect(Number(deadline[0].getAttribute('x1'))).toBeCloseTo(655, 0);
    expect(all(root, 'text').find((e) => hasClass(e, 'deadline-end-label'))!.textContent).toBe('grace deadline 30s');
    expect(all(root, 'text').find((e) => hasClass(e, 'sigkill-label'))!.textContent).toBe('last SIGKILL 32s');
    expect(all(root, 'path').filter((e) => hasClass(e, 'sigterm')).length).toBe(3);
  });

  test('a preStop longer than grace shows a red violation element on its lane, with a legend entry and findings', () => {
    const app = all(root, 'g').find((g) => g.getAttribute('data-lane') === 'app')!;
    const red = all(app, 'rect').filter((r) => hasClass(r, 'violation') && !hasClass(r, 'overlay'));
    expect(red).toHaveLength(1);
    expect(red[0].getAttribute('stroke')).toBe('#d62728');
    expect(red[0].getAttribute('fill')).toBe('url(#kg-hatch)');
    expect(red[0].getAttribute('data-rule')).toBe('grace-period-budget');
    expect(Number(red[0].getAttribute('data-start'))).toBe(30);
    expect(all(root, 'pattern').map((p) => p.getAttribute('id'))).toEqual(['kg-hatch']);
    expect(all(root, 'rect').some((r) => hasClass(r, 'swatch') && hasClass(r, 'violation'))).toBe(true);
    const findings = all(root, 'g').find((g) => hasClass(g, 'findings'))!;
    expect(all(findings, 'text').some((e) => /^error grace-period-budget/.test(e.textContent ?? ''))).toBe(true);
    const rollout = all(root, 'g').find((g) => hasClass(g, 'rollout'))!;
    expect(all(rollout, 'text').map((e) => e.textContent).join('\n')).toMatch(/3 steps x 1 pod/);
  });

  test('a clean workload has no violation element', () => {
    const ok = parseStrict(timelinesSvg([explainOne(deployment({ containers: container('app', '{sleep: {seconds: 5}}'), grace: 30 }))]));
    expect(all(ok, 'rect').filter((r) => hasClass(r, 'violation'))).toEqual([]);
  });

  test('names and messages with <&> and quotes are escaped, and come back intact', () => {
    const weird = `apiVersion: apps/v1
kind: Deployment
metadata: {name: "a<b>&'c\\"", namespace: "ns&<x>"}
spec:
  replicas: 1
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: "x<&>y"
        image: i
        lifecycle: {preStop: {sleep: {seconds: 20}}}
      - name: "ctl\\u0001z"
        image: i
`;
    const s = timelinesSvg(explainText(weird));
    const r = parseStrict(s);
    expect(s).toContain('x&lt;&amp;&gt;y');
    const lanes = all(r, 'g').filter((g) => hasClass(g, 'lane')).map((g) => g.getAttribute('data-lane'));
    expect(lanes).toEqual(['x<&>y', 'ctlz']);
    expect(all(r, 'text').find((e) => hasClass(e, 'title'))!.textContent).toBe(`Deployment ns&<x>/a<b>&'c": termination timeline`);
    expect(all(r, 'rect').some((e) => hasClass(e, 'violation'))).toBe(true);
  });

  test('the strict check itself rejects broken XML (unescaped &, mismatched tags)', () => {
    expect(() => parseStrict('<svg xmlns="http://www.w3.org/2000/svg"><text>a & b</text></svg>')).toThrow();
    expect(() => parseStrict('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>')).toThrow();
  });

  test('xmlSafe drops what XML cannot carry and keeps the rest', () => {
    expect(xmlSafe('a\u0000b\u0008c\td\ne\uFFFEf\uD800g😀')).toBe('abc\td\nefg😀');
  });

  test('deterministic: same input, identical bytes', () => {
    expect(timelinesSvg([explainOne(FIXTURE)])).toBe(svg);
  });

  test('docs/explain-example.svg shows the current timeline of the fixture (regenerate: see the README)', () => {
    // Only the drawing (lanes to legend): the findings box quotes rule messages, which may be reworded.
    const drawing = (svg: string) => svg.slice(svg.indexOf('<g class="lane"'), svg.indexOf('<g class="legend"'));
    const current = timelinesSvg(explainText(FIXTURE, { file: 'sidecar-overlong.yaml', version: DEFAULT_KUBE_VERSION }));
    const docs = fs.readFileSync(path.join(__dirname, '../../docs/explain-example.svg'), 'utf8');
    expect(drawing(current).length).toBeGreaterThan(1000);
    expect(drawing(docs)).toBe(drawing(current));
  });

  test('several workloads: stacked panels in one SVG', () => {
    const two = explainText(deployment({ containers: container('app'), name: 'a' }) + '---\n' + deployment({ containers: container('app', '{sleep: {seconds: 99}}'), name: 'b', grace: 30 }));
    const r = parseStrict(timelinesSvg(two));
    const panels = all(r, 'g').filter((g) => hasClass(g, 'panel'));
    expect(panels.map((p) => p.getAttribute('data-object'))).toEqual(['Deployment/default/a', 'Deployment/default/b']);
    expect(panels[1].getAttribute('transform')).toMatch(/^translate\(0,\d+/);
    expect(all(r, 'title')[0].textContent).toBe('Termination timelines of 2 workloads');
  });
});
