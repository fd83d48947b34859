import { zeroGracePeriod } from '../../lib/rules/zero-grace-period';
import { fixTester, fixWith } from '../helpers/fix-tester';

const sts = (extra = '') => `# the database
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db # primary
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      # zero is unsafe
      terminationGracePeriodSeconds: 0 # fast shutdown
      containers:
        - name: db
          image: "postgres:16"
${extra}`;

fixTester(zeroGracePeriod, [
  {
    name: 'StatefulSet with grace 0 gets preStop + drain + margin',
    yaml: sts('          lifecycle:\n            preStop:\n              sleep: {seconds: 5}\n'),
    contains: ['terminationGracePeriodSeconds: 20 # fast shutdown', '          image: "postgres:16"', 'sleep: {seconds: 5}'],
  },
  {
    name: 'no hook: drain + margin',
    yaml: sts(),
    contains: ['terminationGracePeriodSeconds: 15 # fast shutdown'],
  },
  {
    name: 'a Pod (warning) is fixed too',
    yaml: `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: 0\n  containers: [{name: a, image: a}]\n`,
    contains: ['  terminationGracePeriodSeconds: 15\n'],
  },
]);

describe('zero-grace-period fix', () => {
  test('is safe and names the new value', () => {
    const r = fixWith(zeroGracePeriod, sts());
    expect(r.files[0].applied).toEqual([
      expect.objectContaining({ ruleId: 'zero-grace-period', safety: 'safe', description: 'set terminationGracePeriodSeconds to 15 (preStop + drain + addend + margin)', line: 15 }),
    ]);
  });
});
