import { scarcityOf, surgeResourceDeadlock } from '../../lib/rules/surge-resource-deadlock';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  replicas?: number;
  strategy?: string;
  /** resources of the main container, flow style. */
  resources?: string;
  /** Extra pod-spec lines (6-space indent). */
  podExtra?: string;
  extraContainers?: string;
  extra?: string;
}

function deploy(o: Opts = {}): string {
  const strategyKey = o.kind === 'DaemonSet' || o.kind === 'StatefulSet' ? 'updateStrategy' : 'strategy';
  return `apiVersion: apps/v1
kind: ${o.kind ?? 'Deployment'}
metadata: {name: llm}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}${o.strategy ? `  ${strategyKey}: ${o.strategy}\n` : ''}  selector: {matchLabels: {app: llm}}
  template:
    metadata:
      labels: {app: llm}
    spec:
${o.podExtra ?? ''}      containers:
      - name: server
        image: vllm/vllm-openai:v0.11.0
        resources: ${o.resources ?? '{requests: {cpu: "2", memory: 10Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}'}
${o.extraContainers ?? ''}${o.extra ?? ''}`;
}

const GPU_REQ = '/spec/template/spec/containers/0/resources/requests/nvidia.com~1gpu';
const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: llm}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: llm}, minReplicas: ${min}, maxReplicas: 10}
`;

ruleTester(surgeResourceDeadlock, {
  valid: [
    { name: 'only standard resources (cpu, memory, ephemeral-storage, hugepages) with the default surge', yaml: deploy({ resources: '{requests: {cpu: "2", memory: 1Gi, ephemeral-storage: 1Gi, hugepages-2Mi: 1Gi}}' }) },
    { name: 'GPU with maxSurge 0, maxUnavailable 1 (the fix)', yaml: deploy({ strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }) },
    { name: 'GPU with strategy Recreate', yaml: deploy({ strategy: '{type: Recreate}' }) },
    { name: 'GPU, replicas 4 with the defaults: maxUnavailable resolves to 1, an old pod frees its GPU first', yaml: deploy({ replicas: 4 }) },
    { name: 'GPU, replicas 3 with maxUnavailable 1 explicit', yaml: deploy({ replicas: 3, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}' }) },
    { name: 'GPU, HPA minReplicas 4: the defaults resolve to unavailable 1', yaml: deploy({ extra: hpa(4) }) },
    { name: 'GPU scaled to 0', yaml: deploy({ replicas: 0 }) },
    { name: 'GPU request of 0', yaml: deploy({ resources: '{limits: {nvidia.com/gpu: 0}}' }) },
    { name: 'a resource device plugins advertise in bulk (devices.kubevirt.io/kvm)', yaml: deploy({ resources: '{limits: {devices.kubevirt.io/kvm: "1"}}' }) },
    { name: 'github.com/fuse is abundant', yaml: deploy({ resources: '{limits: {github.com/fuse: 1}}' }) },
    { name: 'param abundantResources silences an unknown resource', yaml: deploy({ resources: '{limits: {example.com/dongle: 1}}' }), params: { abundantResources: ['example.com/*'] } },
    { name: 'param abundantResources wins over the accelerator list', yaml: deploy({ resources: '{limits: {nvidia.com/gpu.shared: 1}}' }), params: { abundantResources: ['nvidia.com/gpu.shared'] } },
    {
      name: 'unknown extended resource on a large Deployment with a small surge: scarcity unknown, not judged',
      yaml: deploy({ replicas: 10, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', resources: '{limits: {example.com/dongle: 1}}' }),
    },
    { name: 'StatefulSet with a GPU: StatefulSets never surge', yaml: deploy({ kind: 'StatefulSet' }) },
    { name: 'DaemonSet with a GPU and the default updateStrategy (maxSurge 0)', yaml: deploy({ kind: 'DaemonSet' }) },
    { name: 'DaemonSet with maxSurge 1 on 1.21: surge not available', yaml: deploy({ kind: 'DaemonSet', strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }), kubeVersion: '1.21' },
    { name: 'DaemonSet with maxSurge 1 and maxUnavailable absent (rejected by the API: daemonset-surge)', yaml: deploy({ kind: 'DaemonSet', strategy: '{rollingUpdate: {maxSurge: 1}}' }) },
    { name: 'unparseable GPU quantity is not guessed', yaml: deploy({ resources: '{limits: {nvidia.com/gpu: lots}}' }) },
  ],
  invalid: [
    {
      name: 'the vLLM example: replicas 1, the default strategy, nvidia.com/gpu 1',
      yaml: deploy({ replicas: 1 }),
      findings: [
        {
          severity: 'warning',
          pointer: GPU_REQ,
          object: 'Deployment/llm',
          message:
            // The first sentence (the text output's row) says what fails (review round 14: vLLM's row read "nvidia.com/gpu: 1 per pod").
            'every rollout first needs 1 nvidia.com/gpu free beyond the 1 nvidia.com/gpu the running pods hold (nvidia.com/gpu: 1 per pod (container "server")), since maxSurge "25%" (default) resolves to 1 and maxUnavailable "25%" (default) to 0 with replicas 1: no old pod may go before the surge pod is available (a pool sized for the running pods rarely has them); otherwise the surge pod stays Pending and the rollout stalls: progressDeadlineSeconds only marks it failed (ProgressDeadlineExceeded) and nothing rolls it back',
        },
      ],
    },
    {
      name: 'the message states the outage trade-off of the fix',
      yaml: deploy(),
      findings: [{ severity: 'warning', message: 'set strategy.rollingUpdate to {maxSurge: 0, maxUnavailable: 1}, which frees the unit first but makes every rollout a full outage for the whole startup' }],
    },
    {
      name: 'limits only: the request defaults to the limit, pointed at the limit',
      yaml: deploy({ resources: '{limits: {nvidia.com/gpu: 1}}' }),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu' }],
    },
    {
      name: 'replicas 3 with the defaults: still surge-only',
      yaml: deploy({ replicas: 3 }),
      findings: [{ severity: 'warning', message: /needs 1 nvidia\.com\/gpu free beyond the 3 nvidia\.com\/gpu .* runs 2 of 3 replicas during each step/ }],
    },
    {
      name: 'replicas 20, maxSurge 1, maxUnavailable 0: a small fraction, info',
      yaml: deploy({ replicas: 20, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }),
      findings: [{ severity: 'info', message: 'fine only if the pool keeps that headroom' }],
    },
    {
      name: 'replicas 8, maxSurge 100%, maxUnavailable 0 (blue/green): 8 spare GPUs, warning',
      yaml: deploy({ replicas: 8, strategy: '{rollingUpdate: {maxSurge: "100%", maxUnavailable: 0}}' }),
      findings: [{ severity: 'warning', message: 'needs 8 nvidia.com/gpu free beyond the 8 nvidia.com/gpu' }],
    },
    {
      name: 'two containers with a GPU each: 2 per pod',
      yaml: deploy({ extraContainers: '      - {name: draft, image: d:1, resources: {limits: {nvidia.com/gpu: 1}}}\n' }),
      findings: [{ severity: 'warning', message: 'nvidia.com/gpu: 2 per pod (containers "server", "draft")' }],
    },
    {
      name: 'a classic init container needing more GPUs than the main containers sets the pod request',
      yaml: deploy({ podExtra: '      initContainers: [{name: warmup, image: w:1, resources: {limits: {nvidia.com/gpu: 2}}}]\n' }),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/resources/limits/nvidia.com~1gpu', message: 'nvidia.com/gpu: 2 per pod (container "warmup")' }],
    },
    {
      name: 'a native sidecar GPU adds to the main containers',
      yaml: deploy({ podExtra: '      initContainers: [{name: side, image: s:1, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 1}}}]\n' }),
      findings: [{ severity: 'warning', message: 'nvidia.com/gpu: 2 per pod' }],
    },
    {
      name: 'amd.com/gpu is an accelerator',
      yaml: deploy({ resources: '{limits: {amd.com/gpu: 1}}' }),
      findings: [{ severity: 'warning', message: 'amd.com/gpu: 1 per pod' }],
    },
    {
      name: 'NVIDIA MIG slice is an accelerator',
      yaml: deploy({ resources: '{limits: {nvidia.com/mig-1g.5gb: 1}}' }),
      findings: [{ severity: 'warning', message: 'nvidia.com/mig-1g.5gb: 1 per pod' }],
    },
    {
      name: 'an unknown extended resource with few replicas: info (scarcity unknown)',
      yaml: deploy({ resources: '{limits: {example.com/dongle: 1}}' }),
      findings: [{ severity: 'info', message: 'whether the pool has them is unknown for this resource' }],
    },
    {
      name: 'param scarceResources makes an unknown resource an accelerator',
      yaml: deploy({ resources: '{limits: {example.com/dongle: 1}}' }),
      params: { scarceResources: ['example.com/*'] },
      findings: [{ severity: 'warning', message: 'example.com/dongle: 1 per pod' }],
    },
    {
      name: 'accelerator and unknown resource together: the accelerator is reported',
      yaml: deploy({ resources: '{limits: {example.com/dongle: 1, nvidia.com/gpu: 1}}' }),
      findings: [{ severity: 'warning', message: /^every rollout first needs 1 nvidia\.com\/gpu free beyond the 1 nvidia\.com\/gpu the running pods hold \(nvidia\.com\/gpu: 1 per pod \(container "server"\)\), since maxSurge/ }],
    },
    {
      name: 'HPA minReplicas 2 is the replica basis',
      yaml: deploy({ extra: hpa(2) }),
      findings: [{ severity: 'warning', message: 'with HPA minReplicas 2 (HorizontalPodAutoscaler/llm)' }],
    },
    {
      name: 'DaemonSet with maxSurge 1, maxUnavailable 0 and a GPU: the new pod needs a free GPU on the same node',
      yaml: deploy({ kind: 'DaemonSet', strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }),
      findings: [{ severity: 'warning', pointer: GPU_REQ, message: 'needs 1 nvidia.com/gpu free on that node' }],
    },
    {
      name: 'DaemonSet with an unknown extended resource: info',
      yaml: deploy({ kind: 'DaemonSet', strategy: '{rollingUpdate: {maxSurge: "10%", maxUnavailable: 0}}', resources: '{limits: {example.com/dongle: 1}}' }),
      findings: [{ severity: 'info', message: 'needs 1 example.com/dongle free on that node' }],
    },
  ],
});

describe('scarcityOf', () => {
  test.each([
    ['cpu', 'standard'],
    ['memory', 'standard'],
    ['ephemeral-storage', 'standard'],
    ['hugepages-1Gi', 'standard'],
    ['pods', 'standard'],
    ['kubernetes.io/something', 'standard'],
    ['nvidia.com/gpu', 'accelerator'],
    ['amd.com/gpu', 'accelerator'],
    ['gpu.intel.com/i915', 'accelerator'],
    ['google.com/tpu', 'accelerator'],
    ['aws.amazon.com/neuroncore', 'accelerator'],
    ['habana.ai/gaudi', 'accelerator'],
    ['devices.kubevirt.io/kvm', 'abundant'],
    ['squat.ai/fuse', 'abundant'],
    ['example.com/dongle', 'extended'],
    ['intel.com/intel_sriov_netdevice', 'extended'],
  ])('%s is %s', (name, want) => {
    expect(scarcityOf(name)).toBe(want);
  });
});
