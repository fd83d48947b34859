/**
 * Types of the fields the rules read, checked the way the API server decodes them.
 *
 * Kubernetes decodes the JSON of an object into Go structs: a string where an int32 is
 * expected (`terminationGracePeriodSeconds: "5"`), a fraction or an out-of-range number in an
 * integer field, or a number or boolean in a label or annotation value fails the decode, and
 * the API server refuses the whole object. The rules would otherwise read such a field as
 * absent and judge the default instead (30 s for a grace of "5"), so each one is reported as
 * an input error at the field, naming the expected type.
 *
 * This is deliberately not an API validator: only the fields some rule reads are listed, and
 * only their JSON types (and integer ranges) are checked; unknown fields, enum values and
 * cross-field rules are left to the rules and to the API server.
 */
import { escapeSegment } from './parse';
import { InputError, isObject, Json, jsonType, KObject } from './types';

type Leaf = 'int32' | 'int64' | 'string' | 'bool' | 'intOrString' | 'quantity';
type Shape = Leaf | { map: Shape } | { list: Shape } | { obj: { [field: string]: Shape } };

const str: Shape = 'string';
const strList: Shape = { list: str };
const strMap: Shape = { map: str };
const obj = (o: { [field: string]: Shape }): Shape => ({ obj: o });

const LABEL_SELECTOR = obj({ matchLabels: strMap, matchExpressions: { list: obj({ key: str, operator: str, values: strList }) } });
const META = obj({ name: str, namespace: str, generateName: str, labels: strMap, annotations: strMap });
const HANDLER = obj({
  exec: obj({ command: strList }),
  httpGet: obj({ path: str, port: 'intOrString', host: str, scheme: str }),
  tcpSocket: obj({ port: 'intOrString', host: str }),
  grpc: obj({ port: 'int32', service: str }),
  // sleep.seconds: prestop-sleep-action reports a fraction or a string itself (with a repair).
});
const PROBE = obj({
  exec: obj({ command: strList }),
  httpGet: obj({ path: str, port: 'intOrString', host: str, scheme: str }),
  tcpSocket: obj({ port: 'intOrString', host: str }),
  grpc: obj({ port: 'int32', service: str }),
  initialDelaySeconds: 'int32',
  timeoutSeconds: 'int32',
  periodSeconds: 'int32',
  successThreshold: 'int32',
  failureThreshold: 'int32',
  terminationGracePeriodSeconds: 'int64',
});
const CONTAINER = obj({
  name: str,
  image: str,
  command: strList,
  args: strList,
  restartPolicy: str,
  ports: { list: obj({ name: str, containerPort: 'int32', protocol: str }) },
  lifecycle: obj({ preStop: HANDLER, postStart: HANDLER }),
  readinessProbe: PROBE,
  livenessProbe: PROBE,
  startupProbe: PROBE,
  env: { list: obj({ name: str, value: str }) },
  resources: obj({ requests: { map: 'quantity' }, limits: { map: 'quantity' } }),
  volumeMounts: { list: obj({ name: str, mountPath: str }) },
});
const AFFINITY_TERM = obj({ topologyKey: str, labelSelector: LABEL_SELECTOR, matchLabelKeys: strList });
// Node selector requirements (required node affinity): replicas-not-spread, spread-blocks-surge and
// surge-volume-deadlock read the hostname and pool terms.
const NODE_SELECTOR_TERM = obj({
  matchExpressions: { list: obj({ key: str, operator: str, values: strList }) },
  matchFields: { list: obj({ key: str, operator: str, values: strList }) },
});
const POD_SPEC = obj({
  terminationGracePeriodSeconds: 'int64',
  containers: { list: CONTAINER },
  initContainers: { list: CONTAINER },
  restartPolicy: str,
  readinessGates: { list: obj({ conditionType: str }) },
  topologySpreadConstraints: { list: obj({ maxSkew: 'int32', topologyKey: str, whenUnsatisfiable: str, labelSelector: LABEL_SELECTOR, matchLabelKeys: strList, minDomains: 'int32' }) },
  nodeName: str,
  nodeSelector: strMap,
  affinity: obj({
    nodeAffinity: obj({ requiredDuringSchedulingIgnoredDuringExecution: obj({ nodeSelectorTerms: { list: NODE_SELECTOR_TERM } }) }),
    podAntiAffinity: obj({
      requiredDuringSchedulingIgnoredDuringExecution: { list: AFFINITY_TERM },
      preferredDuringSchedulingIgnoredDuringExecution: { list: obj({ weight: 'int32', podAffinityTerm: AFFINITY_TERM }) },
    }),
  }),
  volumes: { list: obj({ name: str, persistentVolumeClaim: obj({ claimName: str }) }) },
  serviceAccountName: str,
});
const TEMPLATE = obj({ metadata: META, spec: POD_SPEC });
const ROLLING = obj({ maxSurge: 'intOrString', maxUnavailable: 'intOrString', partition: 'int32' });

// spec.selector of workloads: selector-mismatch reports a value the API cannot decode.
const WORKLOAD_SPEC = {
  replicas: 'int32' as Shape,
  minReadySeconds: 'int32' as Shape,
  template: TEMPLATE,
};

/** The checked fields per kind (apiVersion is not checked: every version has these types). */
const KINDS: Record<string, Shape> = {
  Deployment: obj({ metadata: META, spec: obj({ ...WORKLOAD_SPEC, progressDeadlineSeconds: 'int32', strategy: obj({ type: str, rollingUpdate: ROLLING }) }) }),
  ReplicaSet: obj({ metadata: META, spec: obj(WORKLOAD_SPEC) }),
  StatefulSet: obj({
    metadata: META,
    spec: obj({ ...WORKLOAD_SPEC, serviceName: str, podManagementPolicy: str, updateStrategy: obj({ type: str, rollingUpdate: ROLLING }), volumeClaimTemplates: { list: obj({ metadata: META, spec: obj({ accessModes: strList }) }) } }),
  }),
  DaemonSet: obj({ metadata: META, spec: obj({ ...WORKLOAD_SPEC, updateStrategy: obj({ type: str, rollingUpdate: ROLLING }) }) }),
  Job: obj({ metadata: META, spec: obj({ template: TEMPLATE }) }),
  CronJob: obj({ metadata: META, spec: obj({ jobTemplate: obj({ metadata: META, spec: obj({ template: TEMPLATE }) }) }) }),
  Pod: obj({ metadata: META, spec: POD_SPEC }),
  Service: obj({
    metadata: META,
    spec: obj({
      type: str,
      selector: strMap,
      clusterIP: str,
      externalTrafficPolicy: str,
      publishNotReadyAddresses: 'bool',
      ports: { list: obj({ name: str, port: 'int32', targetPort: 'intOrString', protocol: str }) },
    }),
  }),
  PodDisruptionBudget: obj({ metadata: META, spec: obj({ minAvailable: 'intOrString', maxUnavailable: 'intOrString', selector: LABEL_SELECTOR, unhealthyPodEvictionPolicy: str }) }),
  HorizontalPodAutoscaler: obj({ metadata: META, spec: obj({ minReplicas: 'int32', maxReplicas: 'int32', scaleTargetRef: obj({ kind: str, name: str, apiVersion: str }) }) }),
  PersistentVolumeClaim: obj({ metadata: META, spec: obj({ accessModes: strList }) }),
};
const DEFAULT_SHAPE = obj({ metadata: META });

/** The API groups each listed kind belongs to (a Knative `Service` is not a core Service). */
const GROUPS: Record<string, string[]> = {
  Deployment: ['apps', 'extensions'], ReplicaSet: ['apps', 'extensions'], StatefulSet: ['apps'], DaemonSet: ['apps', 'extensions'],
  Job: ['batch'], CronJob: ['batch'], Pod: [''], Service: [''], PersistentVolumeClaim: [''],
  PodDisruptionBudget: ['policy'], HorizontalPodAutoscaler: ['autoscaling'],
};

function shapeOf(o: KObject): Shape {
  const group = o.apiVersion.includes('/') ? o.apiVersion.slice(0, o.apiVersion.indexOf('/')) : '';
  return GROUPS[o.kind]?.includes(group) ? KINDS[o.kind] : DEFAULT_SHAPE;
}

const RANGE: Record<'int32' | 'int64', [number, number]> = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63 - 1] };
const GO_TYPE: Record<Leaf, string> = {
  int32: 'an integer (int32)',
  int64: 'an integer (int64)',
  string: 'a string',
  bool: 'a boolean (true or false)',
  intOrString: 'an integer or a string such as "25%"',
  quantity: 'a quantity (a string such as "500m" or "1Gi", or a number)',
};

/** Why `v` does not decode as `leaf`, or undefined when it does. */
function leafProblem(v: Json, leaf: Leaf): string | undefined {
  switch (leaf) {
    case 'string':
      return typeof v === 'string' ? undefined : 'quote it';
    case 'bool':
      return typeof v === 'boolean' ? undefined : 'write true or false without quotes';
    case 'int32':
    case 'int64':
    case 'intOrString': {
      if (leaf === 'intOrString' && typeof v === 'string') return undefined;
      if (typeof v !== 'number') return typeof v === 'string' && /^-?\d+$/.test(v) ? `write it without quotes: ${v}` : 'use a whole number';
      if (!Number.isInteger(v)) return 'use a whole number';
      const [lo, hi] = RANGE[leaf === 'int64' ? 'int64' : 'int32'];
      return v < lo || v > hi ? `it is out of range for ${leaf === 'int64' ? 'int64' : 'int32'}` : undefined;
    }
    case 'quantity':
      return typeof v === 'string' || typeof v === 'number' ? undefined : 'quote it, e.g. "500m"';
  }
}

function dotted(path: string[]): string {
  let s = '';
  for (const p of path) s += /^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z_][\w-]*$/.test(p) ? (s ? '.' : '') + p : `[${JSON.stringify(p)}]`;
  return s;
}

/** Wrongly typed fields of one object, as input errors located at each field. */
export function checkFieldTypes(o: KObject): InputError[] {
  const shape = shapeOf(o);
  if (typeof shape !== 'object' || !('obj' in shape)) return [];
  const w: Walker = { o, out: [], path: [] };
  const raw = o.raw;
  for (const k in shape.obj) {
    if (!Object.prototype.hasOwnProperty.call(shape.obj, k) || !Object.prototype.hasOwnProperty.call(raw, k)) continue;
    w.path.push(k);
    walk(w, raw[k], shape.obj[k]);
    w.path.pop();
  }
  return w.out.length > 1 ? w.out.sort((a, b) => a.line - b.line || a.column - b.column) : w.out;
}

/** The walk's state: the object, the errors so far, and the path of the value being checked (a stack). */
interface Walker {
  o: KObject;
  out: InputError[];
  path: string[];
}

function walk(w: Walker, v: Json | undefined, shape: Shape): void {
  if (v === undefined || v === null) return; // absent or null: the API server uses the default
  if (typeof shape === 'string') {
    const fix = leafProblem(v, shape);
    if (fix === undefined) return;
    const { o, path } = w;
    const pointer = '/' + path.map(escapeSegment).join('/');
    const pos = o.locate(pointer);
    w.out.push({
      file: o.file,
      line: pos.line,
      column: pos.column,
      message: `${o.kind}/${o.name}: ${dotted(path)} is ${jsonType(v)}, but Kubernetes expects ${GO_TYPE[shape]}; the API server refuses the object (and kubegrace cannot judge this field), so ${fix}`,
    });
    return;
  }
  const path = w.path;
  if ('list' in shape) {
    if (!Array.isArray(v)) return report(w, v, 'a list');
    const item = shape.list;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      // A string where a string is expected (most list items): nothing to check, no step down.
      if (item === 'string' && typeof x === 'string') continue;
      path.push(String(i));
      walk(w, x, item);
      path.pop();
    }
  } else if ('map' in shape) {
    if (!isObject(v)) return report(w, v, 'a mapping');
    const item = shape.map;
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (item === 'string' && typeof x === 'string') continue;
      path.push(k);
      walk(w, x, item);
      path.pop();
    }
  } else {
    if (!isObject(v)) return report(w, v, 'a mapping');
    const fields = shape.obj;
    for (const k in fields) {
      if (!Object.prototype.hasOwnProperty.call(fields, k) || !Object.prototype.hasOwnProperty.call(v, k)) continue;
      path.push(k);
      walk(w, v[k], fields[k]);
      path.pop();
    }
  }
}

function report(w: Walker, v: Json, want: string): void {
  const { o, path } = w;
  const pointer = '/' + path.map(escapeSegment).join('/');
  const pos = o.locate(pointer);
  w.out.push({ file: o.file, line: pos.line, column: pos.column, message: `${o.kind}/${o.name}: ${dotted(path)} is ${jsonType(v)}, but Kubernetes expects ${want}; the API server refuses the object (and kubegrace cannot judge this field)` });
}
