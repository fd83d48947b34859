/**
 * Between passes --fix keeps a file's text as the pieces the last pass wrote (pieces.ts FileText)
 * and joins it once at the end; a document is edited on its own piece, and the dominant line
 * break is read off the whole text only while the text may hold a CRLF. These tests hold the
 * repair to what one whole text per pass gives: the same in LF and CRLF files, over several
 * passes, with documents added, and with a document read back whole.
 */
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { FileText } from '../../lib/fix/pieces';
import { Source } from '../../lib/model/sources';
import { ALL_RULES } from '../../lib/rules';

const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33'), proposals: true };

/** An HPA whose minReplicas 1 --fix raises, which makes its Deployment need a PDB and spreading: two passes. */
function app(ns: string): string {
  return [
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ${ns}\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: web:1\n          ports:\n            - containerPort: 8080\n          readinessProbe:\n            httpGet:\n              path: /\n              port: 8080\n`,
    `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: ${ns}\nspec:\n  selector:\n    app: web\n  ports:\n    - port: 80\n      targetPort: 8080\n`,
    `apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  namespace: ${ns}\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 1\n  maxReplicas: 5\n`,
  ].join('---\n');
}

function fix(text: string) {
  const r = fixSources([{ file: 'in.yaml', text } as Source], OPTS);
  return { text: r.files[0].text, passes: r.passes, applied: r.files[0].applied.map((a) => [a.ruleId, a.line]), findings: r.lint.findings.map((f) => [f.ruleId, f.line, f.column]) };
}

describe('--fix holds a file as pieces between passes (FileText)', () => {
  test('FileText joins on first use and tells its length and last line feed without joining', () => {
    const t = new FileText(['a\n', 'b\n', '']);
    expect(t.length).toBe(4);
    expect(t.endsWithLineFeed()).toBe(true);
    expect(new FileText(['a\n', 'b']).endsWithLineFeed()).toBe(false);
    expect(new FileText(['', '']).endsWithLineFeed()).toBe(false);
    expect(t.value).toBe('a\nb\n');
    expect(t.value).toBe('a\nb\n');
    expect(new FileText('x').value).toBe('x');
  });

  test('a repair over two passes, with documents added: a CRLF file gets exactly the LF repair with CRLF line breaks', () => {
    const lf = [app('one'), app('two'), app('three')].join('---\n');
    const a = fix(lf);
    expect(a.passes).toBe(2);
    expect(a.text).toContain('kind: PodDisruptionBudget');
    expect(a.text).not.toContain('\r');
    const b = fix(lf.replace(/\n/g, '\r\n'));
    expect(b.passes).toBe(2);
    expect(b.text).toBe(a.text.replace(/\n/g, '\r\n'));
    expect(b.applied).toEqual(a.applied);
    expect(b.findings).toEqual(a.findings);
    // Without a line feed at the end: the same repair, still none at the end.
    const c = fix(lf.replace(/\n$/, ''));
    expect(c.text).toBe(a.text.replace(/\n$/, ''));
  });

  test('a file with a few CRLF lines among LF ones keeps LF as its line break over the passes', () => {
    const mixed = [app('one'), app('two')].join('---\n').replace('app: web\n', 'app: web\r\n');
    const r = fix(mixed);
    expect(r.passes).toBe(2);
    // The one CRLF line stays; every line the repair wrote ends with LF alone.
    expect(r.text.match(/\r\n/g)).toHaveLength(1);
  });
});
