import { rolloutFullOutage } from '../../lib/rules/rollout-full-outage';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

/** A served Deployment with comments everywhere the fix might touch. */
function deploy(opts: { replicas?: number; strategy?: string; extra?: string } = {}): string {
  return `# the web tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # public name
spec:
${opts.replicas === undefined ? '' : `  replicas: ${opts.replicas} # pinned by ops\n`}  strategy:
    # chosen to save capacity
${opts.strategy ?? ''}  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app # the only container
        image: web:1
        ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web} # routes to web
  ports: [{port: 80, targetPort: 8080}]
${opts.extra ?? ''}`;
}

const RU = (surge: string, unavailable: string) => `    type: RollingUpdate
    rollingUpdate:
      maxSurge: ${surge} # surge
      maxUnavailable: ${unavailable} # unavailable
`;

fixTester(rolloutFullOutage, [
  {
    name: 'replicas 1, maxSurge 0 / maxUnavailable 1: surge first (1 / 0)',
    yaml: deploy({ replicas: 1, strategy: RU('0', '1') }),
    proposals: true,
    contains: ['      maxSurge: 1 # surge', '      maxUnavailable: 0 # unavailable'],
  },
  {
    name: 'replicas 3, maxUnavailable 100% with the default surge: only maxUnavailable goes to 0, the 25% surge stays',
    yaml: deploy({ replicas: 3, strategy: '    rollingUpdate:\n      maxUnavailable: "100%" # fast\n' }),
    proposals: true,
    contains: ['      maxUnavailable: 0 # fast'],
  },
  {
    name: 'both percentages resolve to 0 (forced unavailable 1): maxSurge 1 written',
    yaml: deploy({ replicas: 1, strategy: RU('"0%"', '"10%"') }),
    proposals: true,
    contains: ['maxSurge: 1 # surge', 'maxUnavailable: 0 # unavailable'],
  },
  {
    name: 'HPA minReplicas 1 is the basis; a deliberate maxSurge 3 is kept',
    yaml: deploy({
      strategy: RU('3', '1'),
      extra: `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1 # night time
  maxReplicas: 5
`,
    }),
    proposals: true,
    contains: ['maxSurge: 3 # surge', 'maxUnavailable: 0 # unavailable'],
  },
]);

describe('rollout-full-outage fix details', () => {
  test('the fix is a proposal: without --fix-proposals nothing changes', () => {
    const yaml = deploy({ replicas: 1, strategy: RU('0', '1') });
    const r = fixWith(rolloutFullOutage, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.files[0].applied).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('proposal')]);
  });

  test('edits and description', () => {
    const [f] = runRule(rolloutFullOutage, deploy({ replicas: 1, strategy: RU('0', '1') }));
    expect(f.fix).toEqual({
      // (maxSurge 0 written on one replica: the proposal holds only if the program can run two at once.)
      description: 'set strategy.rollingUpdate to maxSurge 1, maxUnavailable 0 (surge first): only if the program can run two at once (maxSurge 0 was written)',
      safety: 'proposal',
      edits: [
        { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxSurge', value: 1 },
        { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxUnavailable', value: 0 },
      ],
    });
    const [g] = runRule(rolloutFullOutage, deploy({ replicas: 3, strategy: '    rollingUpdate: {maxUnavailable: 3}\n' }));
    expect(g.fix?.description).toBe('set strategy.rollingUpdate.maxUnavailable to 0 (maxSurge "25%" (default) already surges)');
    expect(g.fix?.edits).toEqual([{ op: 'set', pointer: '/spec/strategy/rollingUpdate/maxUnavailable', value: 0 }]);
  });

  test('an exclusive volume (RWO) gets no finding, so no surge fix that would deadlock', () => {
    const yaml = deploy({ replicas: 1, strategy: RU('0', '1') })
      .replace('        ports: [{containerPort: 8080}]\n', '        ports: [{containerPort: 8080}]\n      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n')
      .concat('---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce]}\n');
    expect(runRule(rolloutFullOutage, yaml)).toEqual([]);
  });
});
