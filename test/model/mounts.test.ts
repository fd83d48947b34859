/** mountedConfigMapFile: a file as the container sees it, from a ConfigMap of the input, or why not. */
import { ObjectGraph } from '../../lib/model/graph';
import { mountedConfigMapFile } from '../../lib/model/mounts';
import { parseText } from '../../lib/model/parse';

const CM = `apiVersion: v1
kind: ConfigMap
metadata: {name: conf, namespace: ns}
data: {Corefile: "a", other: "b", nested: "c"}
---
`;

/** A Deployment in ns whose container has these volumeMounts and the pod these volumes. */
function read(mounts: string, volumes: string, file: string, objects = CM) {
  const text = `${objects}apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - name: c
        image: x
        volumeMounts: ${mounts}
      volumes: ${volumes}
`;
  const graph = new ObjectGraph(parseText('t.yaml', text).objects);
  const w = graph.workloads[0];
  return mountedConfigMapFile(graph, w, w.containers[0], file);
}

describe('mountedConfigMapFile', () => {
  test('a configMap volume without items: the key named like the file', () => {
    expect(read('[{name: v, mountPath: /etc/app}]', '[{name: v, configMap: {name: conf}}]', '/etc/app/Corefile')).toMatchObject({ text: 'a', key: 'Corefile', where: '/etc/app/Corefile (ConfigMap ns/conf, key Corefile)' });
  });
  test('items map keys to paths: the key whose path is the file, not the key of that name', () => {
    const vol = '[{name: v, configMap: {name: conf, items: [{key: other, path: Corefile}]}}]';
    expect(read('[{name: v, mountPath: /etc/app/}]', vol, '/etc/app/Corefile')).toMatchObject({ text: 'b', key: 'other' });
    expect(read('[{name: v, mountPath: /etc/app}]', vol, '/etc/app/other')).toEqual({ missing: 'its volume v maps no key of ConfigMap conf to other' });
  });
  test('a subPath mount puts one key at the mount path', () => {
    expect(read('[{name: v, mountPath: /Corefile, subPath: nested}]', '[{name: v, configMap: {name: conf}}]', '/Corefile')).toMatchObject({ text: 'c', key: 'nested' });
  });
  test('a projected volume: the configMap source that maps the file', () => {
    const vol = '[{name: v, projected: {sources: [{secret: {name: s}}, {configMap: {name: conf, items: [{key: Corefile, path: sub/Corefile}]}}]}}]';
    expect(read('[{name: v, mountPath: /etc/app}]', vol, '/etc/app/sub/Corefile')).toMatchObject({ text: 'a', key: 'Corefile' });
  });
  test('the deepest mount holding the path wins', () => {
    const mounts = '[{name: outer, mountPath: /etc}, {name: v, mountPath: /etc/app}]';
    expect(read(mounts, '[{name: outer, emptyDir: {}}, {name: v, configMap: {name: conf}}]', '/etc/app/Corefile')).toMatchObject({ text: 'a' });
    expect(read(mounts, '[{name: outer, emptyDir: {}}, {name: v, configMap: {name: conf}}]', '/etc/Corefile')).toEqual({ missing: 'its volume outer is not a ConfigMap' });
  });
  test('what is not in the input is missing, with why', () => {
    const vol = '[{name: v, configMap: {name: conf}}]';
    expect(read('[{name: v, mountPath: /etc/app}]', vol, '/etc/other/Corefile')).toEqual({ missing: 'no volume is mounted at /etc/other/Corefile' });
    expect(read('[{name: v, mountPath: /etc/app}]', vol, '/etc/app/Corefile', '')).toEqual({ missing: 'ConfigMap ns/conf is not in the input: lint it with the workload to have the file read' });
    expect(read('[{name: v, mountPath: /etc/app}]', vol, '/etc/app/missing')).toEqual({ missing: 'ConfigMap ns/conf has no key missing' });
    expect(read('[{name: v, mountPath: /etc/app}]', '[{name: v, secret: {secretName: conf}}]', '/etc/app/Corefile')).toEqual({ missing: 'its volume v is not a ConfigMap' });
    expect(read('[{name: w, mountPath: /etc/app}]', vol, '/etc/app/Corefile')).toEqual({ missing: 'the volume w mounted at /etc/app is not declared in the pod' });
    expect(read('[{name: v, mountPath: /etc/app, subPathExpr: "$(POD)"}]', vol, '/etc/app/Corefile')).toMatchObject({ missing: expect.stringContaining('subPathExpr') });
  });
  test('a ConfigMap of another namespace is not the one mounted', () => {
    const other = CM.replace('namespace: ns', 'namespace: elsewhere');
    expect(read('[{name: v, mountPath: /etc/app}]', '[{name: v, configMap: {name: conf}}]', '/etc/app/Corefile', other)).toMatchObject({ missing: expect.stringContaining('is not in the input') });
  });
});
