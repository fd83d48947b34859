/**
 * Readings the exported policies re-implement in CEL, checked name by name against the linter's
 * own functions (the differential tests compare whole verdicts; these pin the building blocks).
 */
import { acceleratorName } from '../../lib/admission/catalog';
import { ACCELERATOR_PATTERNS, scarcityOf } from '../../lib/rules/surge-resource-deadlock';
import { compile } from './evaluator';

describe('acceleratorName (surge-resource-deadlock scarcityOf == accelerator)', () => {
  const names = [
    ...ACCELERATOR_PATTERNS.map((p) => (p.endsWith('*') ? `${p.slice(0, -1)}x` : p)),
    ...ACCELERATOR_PATTERNS.map((p) => `requests.${p.replace('*', 'x')}`),
    'nvidia.com/gpu', 'nvidia.comx/gpu', 'xnvidia.com/gpu', 'google.com/tpu', 'google.com/tpux', 'aws.amazon.com/neuroncore', 'aws.amazon.com/neuron',
    'cpu', 'memory', 'pods', 'hugepages-2Mi', 'attachable-volumes-aws-ebs', 'example.com/widget', 'devices.kubevirt.io/kvm',
    'vpc.amazonaws.com/pod-eni', 'nvidia.com/a.kubernetes.io/b', 'gpu', 'qualcomm.com/qaic', 'qualcomm.com/qaic2', 'huawei.com/Ascend910',
  ];
  const program = compile(acceleratorName('k'));
  test.each(names)('%s', (name) => {
    expect(program({ k: name })).toBe(scarcityOf(name) === 'accelerator');
  });
});
