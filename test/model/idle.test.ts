import { JsonObject } from '../../lib/model/types';
import { isIdleContainer, isPauseImage } from '../../lib/model/idle';
import { zeroGracePeriod } from '../../lib/rules/zero-grace-period';
import { readinessProbeMissing } from '../../lib/rules/readiness-probe-missing';
import { prestopMissing } from '../../lib/rules/prestop-missing';
import { runRule } from '../helpers/rule-tester';

describe('isIdleContainer', () => {
  test('the pause image, by its repository name, with its own entrypoint', () => {
    for (const image of ['registry.k8s.io/pause:3.10.2', 'k8s.gcr.io/pause-amd64:3.1', 'rancher/mirrored-pause:3.6', 'pause', 'localhost:5000/pause@sha256:abc', 'registry.k8s.io/pause']) {
      expect([image, isPauseImage(image), isIdleContainer({ name: 'p', image })]).toEqual([image, true, true]);
    }
    for (const image of ['registry.k8s.io/pause-ng:1', 'example.com/pauseapp:1', 'pause.example.com:5000/app', 'nginx']) expect([image, isPauseImage(image)]).toEqual([image, false]);
    // A command replaces the pause program: then it is whatever the command is.
    expect(isIdleContainer({ name: 'p', image: 'registry.k8s.io/pause:3.10', command: ['/app'] })).toBe(false);
    expect(isIdleContainer({ name: 'p', image: 'registry.k8s.io/pause:3.10', args: ['--x'] })).toBe(false);
  });
  test('a command that only sleeps forever, directly or through sh -c', () => {
    const idle = [
      { command: ['/bin/sleep', 'infinity'] },
      { command: ['sleep', 'inf'] },
      { command: ['sleep'], args: ['infinity'] },
      { command: ['tail', '-f', '/dev/null'] },
      { command: ['/bin/sh', '-c'], args: ['sleep infinity'] },
      { command: ['sh', '-c', 'exec sleep infinity'] },
    ];
    for (const c of idle) expect([c, isIdleContainer({ name: 'c', image: 'curlimages/curl:8', ...c } as JsonObject)]).toEqual([c, true]);
    const busy = [
      {},
      { args: ['sleep', 'infinity'] },
      { command: ['sleep', '3600'] },
      { command: ['sh', '-c', 'app & sleep infinity'] },
      { command: ['sh', '-c', 'sleep infinity; app'] },
      { command: ['tail', '-f', '/var/log/app.log'] },
      { command: [1, 2] },
      // sh -c runs its first argument: here `sleep` with $0 = infinity, which fails at once.
      { command: ['sh', '-c', 'sleep', 'infinity'] },
      { command: ['sleep infinity'] },
    ];
    for (const c of busy) expect([c, isIdleContainer({ name: 'c', image: 'curlimages/curl:8', ...c } as never)]).toEqual([c, false]);
  });
});

/** Istio's samples/curl (istio/istio samples/curl/curl.yaml): a client pod behind a Service that is only a name for the mesh. */
const istioCurl = (grace = '      terminationGracePeriodSeconds: 0\n', command = '        command: ["/bin/sleep", "infinity"]\n') => `apiVersion: v1
kind: Service
metadata: {name: curl}
spec:
  ports: [{port: 80, name: http}]
  selector: {app: curl}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: curl}
spec:
  replicas: 1
  selector: {matchLabels: {app: curl}}
  template:
    metadata: {labels: {app: curl}}
    spec:
${grace}      containers:
      - name: curl
        image: docker.io/curlimages/curl:8.16.0
${command}`;

describe('idle containers in the rules', () => {
  test('zero-grace-period: a sleep forever with grace 0 is on purpose (a grace period only delays its SIGKILL); an app is still reported', () => {
    expect(runRule(zeroGracePeriod, istioCurl())).toEqual([]);
    expect(runRule(zeroGracePeriod, istioCurl(undefined, '        command: ["/app", "serve"]\n')).map((f) => f.severity)).toEqual(['warning']);
  });
  test('zero-grace-period: pause-image StatefulSet placeholders (JupyterHub user-placeholder) are not reported; with a working container beside, they are', () => {
    const sts = (extra = '') => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: user-placeholder}
spec:
  podManagementPolicy: Parallel
  replicas: 0
  selector: {matchLabels: {component: user-placeholder}}
  serviceName: user-placeholder
  template:
    metadata: {labels: {component: user-placeholder}}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - {name: pause, image: "registry.k8s.io/pause:3.10.2"}
${extra}`;
    expect(runRule(zeroGracePeriod, sts())).toEqual([]);
    expect(runRule(zeroGracePeriod, sts('      - {name: db, image: postgres:16}\n')).map((f) => f.severity)).toEqual(['error']);
  });
  test('readiness-probe-missing and prestop-missing: nothing listens in a sleep-forever container, so a Service that selects it carries no traffic to it', () => {
    const withGrace = istioCurl('');
    expect(runRule(readinessProbeMissing, withGrace)).toEqual([]);
    expect(runRule(prestopMissing, withGrace)).toEqual([]);
    const app = istioCurl('', '        command: ["/app", "serve"]\n');
    expect(runRule(readinessProbeMissing, app).length).toBe(1);
    expect(runRule(prestopMissing, app).length).toBe(1);
  });
});
