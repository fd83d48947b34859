/**
 * Terminal drawing of a termination timeline: one row of bars per lane on a scaled axis, the grace
 * deadline marked, violations called out, then the events, the budget, the findings and the
 * rollout. Colour only when asked (the CLI asks on a TTY without NO_COLOR); the characters alone
 * carry the meaning, so the output reads the same without colour.
 */
import { styleText } from 'util';
import { Lane, PhaseKind, secs, tickStep, Timeline } from './model';

type Style = Parameters<typeof styleText>[0];

export interface TextOptions {
  color: boolean;
  /** Columns of the time axis (default 60). */
  width?: number;
}

const GLYPH: Record<PhaseKind, string> = {
  propagation: '░',
  prestop: '▒',
  serving: '▞',
  drain: '█',
  'sidecar-drain': '▓',
  'mesh-drain': '≈',
  waiting: '·',
  violation: '×',
};

const STYLE: Record<PhaseKind, Style> = {
  propagation: 'cyan',
  prestop: 'yellow',
  serving: 'yellowBright',
  drain: 'green',
  'sidecar-drain': 'blue',
  'mesh-drain': 'magenta',
  waiting: 'gray',
  violation: 'red',
};

const LEGEND: Record<PhaseKind, string> = {
  propagation: 'endpoint removal propagating',
  prestop: 'preStop',
  serving: 'still serving after SIGTERM',
  drain: 'drain after SIGTERM',
  'sidecar-drain': 'sidecar drain',
  'mesh-drain': 'mesh proxy drain',
  waiting: 'waiting for SIGTERM',
  violation: 'violation',
};

function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, Math.max(0, n - 1)) + '…';
}

/** Renders one workload's timeline. */
export function timelineText(t: Timeline, opts: TextOptions): string {
  const paint = (style: Style, s: string) => (opts.color ? styleText(style, s) : s);
  const W = Math.max(20, opts.width ?? 60);
  const col = (x: number) => Math.min(W, Math.max(0, Math.round((x / t.horizon) * W)));
  const nameW = Math.min(22, Math.max(9, ...t.lanes.map((l) => l.name.length)));
  const indent = '  ';
  const pad = ' '.repeat(nameW + 2);
  const out: string[] = [];
  const o = t.object;
  out.push(paint('bold', `${o.kind}/${o.name}`) + `${o.namespace ? ` (namespace ${o.namespace})` : ''}  ${o.file}:${o.line}:${o.column}`);
  if (t.helmTestHook) out.push('Helm test hook (helm.sh/hook: test): this pod exists only while `helm test` runs: no rollout or node drain replaces it, and the PodDisruptionBudget counts of the other workloads leave it out');
  out.push(`Termination timeline: grace ${secs(t.grace)}${t.graceSet ? ' (terminationGracePeriodSeconds)' : ' (default)'}; ${t.servedState === 'served' ? 'served by a Service' : t.servedState === 'unknown' ? 'served: unknown (no Service in the input)' : `not served${t.servedReason ? ` (${t.servedReason})` : ''}`}; pod gone at ${secs(t.podGoneAt)}${t.podGoneAtLeast ? ' at the earliest (a preStop of unknown length runs first)' : ''}`);
  out.push('');

  // Axis: tick labels, then a ruler.
  const step = tickStep(t.horizon);
  const labels = Array<string>(W + 8).fill(' ');
  const ruler = Array<string>(W + 1).fill('─');
  for (let x = 0; x <= t.horizon + 1e-9; x += step) {
    const c = col(x);
    ruler[c] = '┼';
    const text = secs(x);
    if (labels.slice(c, c + text.length + 1).every((ch) => ch === ' ')) for (let i = 0; i < text.length; i++) labels[c + i] = text[i];
  }
  ruler[0] = '├';
  out.push(indent + pad + labels.join('').trimEnd());
  out.push(indent + pad + ruler.join(''));

  const deadline = col(t.grace);
  const kinds = new Set<PhaseKind>();
  for (const lane of t.lanes) {
    const cells: { ch: string; kind?: PhaseKind }[] = Array.from({ length: W + 1 }, () => ({ ch: ' ' }));
    for (const p of lane.phases) {
      kinds.add(p.kind);
      if (p.overlay) continue;
      const a = col(p.start);
      const b = Math.max(a + 1, col(p.end));
      for (let i = a; i < Math.min(b, W + 1); i++) cells[i] = { ch: GLYPH[p.kind], kind: p.kind };
    }
    if (deadline <= W) cells[deadline] = { ch: '┃', kind: undefined };
    const bar = cells.map((c, i) => (i === deadline ? paint(['red', 'bold'], c.ch) : c.kind ? paint(STYLE[c.kind], c.ch) : c.ch)).join('');
    const marks = laneMarks(t, lane);
    out.push(indent + truncate(lane.name, nameW).padEnd(nameW + 2) + bar + '  ' + paint('dim', lane.detail) + marks);
    // Overlays (the lane keeps running while something else goes wrong) get a row of their own.
    for (const p of lane.phases.filter((x) => x.overlay)) {
      const a = col(p.start);
      const b = Math.min(W + 1, Math.max(a + 1, col(p.end)));
      out.push(indent + pad + ' '.repeat(a) + paint('red', '^'.repeat(b - a)) + ' '.repeat(W + 1 - b) + '  ' + paint('red', p.label));
    }
  }
  const arrow = ' '.repeat(Math.min(deadline, W)) + '┗ ' + `grace deadline ${secs(t.grace)}` + (t.sigkillAt > t.grace ? `, last SIGKILL ${secs(t.sigkillAt)}` : '');
  out.push(indent + pad + paint('red', arrow));
  const legend = [...kinds].map((k) => `${paint(STYLE[k], GLYPH[k])} ${LEGEND[k]}`);
  legend.push(`${paint('red', '┃')} grace deadline`);
  out.push(indent + paint('dim', 'legend: ') + legend.join('  '));
  out.push('');

  out.push(paint('bold', 'Events'));
  for (const e of t.events) out.push(`${indent}${secs(e.at).padStart(6)}  ${e.violation ? paint('red', '✗ ') : ''}${e.label}`);
  out.push('');

  out.push(paint('bold', 'Budget') + paint('dim', ' (what grace-period-budget computes: preStop + drain + shutdown addends)'));
  if (t.grace === 0) out.push(`${indent}grace 0: no preStop and no drain; not judged as a budget${t.violations.some((v) => v.ruleId === 'zero-grace-period') ? ' (zero-grace-period reports it)' : ''}`);
  for (const l of t.grace === 0 ? [] : t.budget.containers) {
    if (l.needed === undefined) {
      out.push(`${indent}${l.container}: preStop of unknown duration (${l.preStop.kind}) + drain ${secs(l.drain)}: not judged`);
      continue;
    }
    const s = l.preStop.kind === 'none' ? 0 : (l.preStop.seconds ?? 0);
    const parts = [`preStop ${secs(s)}${l.preStop.cannotRun ? ` (its exec sleep ${secs(l.preStop.cannotRun.seconds)} cannot run in the shell-less image)` : ''}`, ...(l.servesAfter ? [`serving after SIGTERM ${secs(l.servesAfter)}`] : []), `drain ${secs(l.drain)}`, ...(l.addend ? [`addends ${secs(l.addend)}`] : [])];
    const ok = l.needed <= t.grace;
    let verdict = ok ? paint('green', `fits grace ${secs(t.grace)}`) : paint('red', `> grace ${secs(t.grace)} by ${secs(l.needed - t.grace)}`);
    if (!l.judged && !ok) verdict = `> grace ${secs(t.grace)} by ${secs(l.needed - t.grace)} with the assumed drain (not judged without a preStop hook or kubegrace.dev/drain-seconds)`;
    // Over the grace period: what to raise it to. Within it: the least it could be, which is not
    // advice to cut a longer grace period (a data store's 120s may be for its own flush).
    // (Within it but not with the margin: "fits grace 10s (at least 15s with the margin)" read as both;
    // review round 14, ARC's controller.)
    const tight = ok && l.recommended! > t.grace;
    const rec = tight ? `${secs(l.recommended!)} with it` : ok ? `at least ${secs(l.recommended!)} with the margin` : `recommended grace ${secs(l.recommended!)}`;
    out.push(`${indent}${l.container}: ${parts.join(' + ')} = ${secs(l.needed)} needed, ${verdict}${tight ? ', without the margin' : ''} (${rec})`);
  }
  for (const a of t.budget.addends) out.push(`${indent}  addend: ${a.source} ${secs(a.seconds)}`);
  out.push('');

  if (t.violations.length) {
    out.push(paint(['bold', 'red'], 'Violations on the timeline'));
    for (const v of t.violations) out.push(`${indent}${paint('red', '✗')} ${secs(v.at).padStart(5)}  ${v.message} ${paint('dim', `[${v.ruleId}]`)}`);
    out.push('');
  }
  out.push(paint('bold', 'Lint findings for this object') + paint('dim', ' (kubegrace lint)'));
  if (!t.findings.length) out.push(`${indent}none`);
  for (const f of t.findings) {
    const sev = paint(f.severity === 'error' ? 'red' : f.severity === 'warning' ? 'yellow' : 'cyan', f.severity.padEnd(7));
    out.push(`${indent}${f.file}:${f.line}:${f.column} ${sev} ${paint('dim', f.ruleId)} ${f.message}`);
  }
  out.push('');

  const r = t.rollout;
  out.push(paint('bold', 'Rollout'));
  out.push(`${indent}strategy: ${r.strategy}${r.parameters ? `; ${r.parameters}` : ''}`);
  if (r.replicas !== undefined) out.push(`${indent}replicas: ${r.replicas} (${r.replicasBasis})`);
  if (r.steps !== undefined) out.push(`${indent}steps: ${r.steps} x ${r.podsPerStep} new pod${r.podsPerStep === 1 ? '' : 's'}`);
  else if (r.podsPerStep !== undefined) out.push(`${indent}batch: ${r.podsPerStep} node${r.podsPerStep === 1 ? '' : 's'} per step`);
  if (r.minReadySeconds !== undefined) out.push(`${indent}minReadySeconds: ${r.minReadySeconds}${r.progressDeadlineSeconds !== undefined ? `, progressDeadlineSeconds: ${r.progressDeadlineSeconds}` : ''}`);
  if (r.strategy !== 'none' && r.stepSeconds !== undefined) out.push(`${indent}startup: ${secs(r.startupSeconds)}: ${r.startupBasis}`);
  const about = r.durationAtLeast ? 'at least' : 'about';
  if (r.durationSeconds !== undefined) out.push(`${indent}expected duration: ${about} ${secs(r.durationSeconds)} = ${r.durationBasis}`);
  else if (r.stepSeconds !== undefined) out.push(`${indent}per step: ${about} ${secs(r.stepSeconds)} = ${r.durationBasis}`);
  for (const n of r.notes) out.push(`${indent}- ${n}`);
  if (t.assumptions.length) {
    out.push('');
    out.push(paint('bold', 'Assumptions'));
    for (const a of t.assumptions) out.push(`${indent}- ${a}`);
  }
  return out.join('\n') + '\n';
}

/** " ✗" after a lane that has a violation (so it shows without colour, too). */
function laneMarks(t: Timeline, lane: Lane): string {
  return t.violations.some((v) => v.lane === lane.name) ? ' ✗' : '';
}

/** Several workloads, one after another. */
export function timelinesText(ts: Timeline[], opts: TextOptions): string {
  return ts.map((t) => timelineText(t, opts)).join('\n');
}
