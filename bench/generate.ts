/** The benchmark's manifest generator: deterministic, realistic shapes. */
import { Source } from '../lib/model/sources';

/** Deterministic pseudo-random numbers (mulberry32), so every run lints the same input. */
function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function deployment(name: string, ns: string, r: () => number): string {
  const replicas = 1 + Math.floor(r() * 5);
  const preStop = r() < 0.6 ? `        lifecycle:\n          preStop:\n            sleep:\n              seconds: ${5 + Math.floor(r() * 30)}\n` : '';
  const spread = r() < 0.5
    ? `      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: topology.kubernetes.io/zone\n        whenUnsatisfiable: ScheduleAnyway\n        labelSelector:\n          matchLabels:\n            app: ${name}\n`
    : '';
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
  labels:
    app: ${name}
    team: team-${Math.floor(r() * 20)}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: ${r() < 0.5 ? 1 : '25%'}
      maxUnavailable: ${r() < 0.5 ? 0 : 1}
  template:
    metadata:
      labels:
        app: ${name}
        version: v${Math.floor(r() * 9)}
      annotations:
        prometheus.io/scrape: "true"
    spec:
      terminationGracePeriodSeconds: ${[30, 45, 60, 20][Math.floor(r() * 4)]}
${spread}      containers:
      - name: app
        image: registry.example.com/${name}:1.${Math.floor(r() * 40)}.0
        ports:
        - name: http
          containerPort: 8080
        - name: metrics
          containerPort: 9090
        env:
        - name: LOG_LEVEL
          value: info
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
          limits:
            memory: 256Mi
${preStop}        readinessProbe:
          httpGet:
            path: /readyz
            port: http
          periodSeconds: 5
        livenessProbe:
          httpGet:
            path: ${r() < 0.3 ? '/readyz' : '/livez'}
            port: http
          failureThreshold: ${r() < 0.3 ? 3 : 6}
          periodSeconds: ${r() < 0.3 ? 5 : 10}
`;
}

function service(name: string, ns: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  selector:
    app: ${name}
  ports:
  - name: http
    port: 80
    targetPort: http
`;
}

function pdb(name: string, ns: string, r: () => number): string {
  return `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  ${r() < 0.5 ? 'maxUnavailable: 1' : 'minAvailable: 1'}
  selector:
    matchLabels:
      app: ${name}
`;
}

function statefulSet(name: string, ns: string, r: () => number): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  serviceName: ${name}-peers
  replicas: ${1 + Math.floor(r() * 3) * 2}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      terminationGracePeriodSeconds: 60
      containers:
      - name: db
        image: registry.example.com/db:15.${Math.floor(r() * 9)}
        ports:
        - name: db
          containerPort: 5432
        readinessProbe:
          exec:
            command: [pg_isready]
        volumeMounts:
        - name: data
          mountPath: /var/lib/data
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 10Gi
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}-peers
  namespace: ${ns}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector:
    app: ${name}
  ports:
  - name: db
    port: 5432
`;
}

/** About 4 objects per app: Deployment + Service + PDB, or StatefulSet + 2 Services, plus HPAs. */
export function generate(apps: number, seed = 42): { sources: Source[]; objects: number } {
  const r = rng(seed);
  const sources: Source[] = [];
  let objects = 0;
  const perFile = 40;
  for (let f = 0; f * perFile < apps; f++) {
    const docs: string[] = [];
    const ns = `ns-${f % 50}`;
    for (let i = f * perFile; i < Math.min(apps, (f + 1) * perFile); i++) {
      const name = `app-${i}`;
      if (r() < 0.15) {
        docs.push(statefulSet(name, ns, r));
        objects += 2;
      } else {
        docs.push(deployment(name, ns, r), service(name, ns), pdb(name, ns, r));
        objects += 3;
      }
      if (r() < 0.3) {
        docs.push(`apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: ${name}\n  minReplicas: 2\n  maxReplicas: 10\n`);
        objects++;
      } else {
        docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-config\n  namespace: ${ns}\ndata:\n  LOG_LEVEL: info\n`);
        objects++;
      }
    }
    sources.push({ file: `generated/apps-${String(f).padStart(3, '0')}.yaml`, text: docs.join('---\n') });
  }
  return { sources, objects };
}


/**
 * What `kubectl get -A -o json` returns for a cluster of `n` objects: per app a Deployment, its two
 * ReplicaSets (the old one scaled to 0) and three Pods (owned, with status and a condition message),
 * a Service, an EndpointSlice, ConfigMaps, Secrets and Events, in 40 namespaces.
 */
export function kubectlDump(n: number, seed = 7): Record<string, unknown>[] {
  const r = rng(seed);
  const items: Record<string, unknown>[] = [];
  for (let d = 0; items.length < n; d++) {
    const ns = `ns-${d % 40}`;
    const name = `app-${d}`;
    const labels = { app: name };
    const uid = `00000000-0000-4000-8000-${String(d).padStart(12, '0')}`;
    const spec = {
      terminationGracePeriodSeconds: 30,
      containers: [{ name: 'app', image: `registry.example/app-${d % 9}:1.${d % 4}.0`, ports: [{ name: 'http', containerPort: 8080 }], ...(r() < 0.7 ? { readinessProbe: { httpGet: { path: '/ready', port: 'http' } } } : {}) }],
    };
    items.push({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns, uid, generation: 3, annotations: { 'deployment.kubernetes.io/revision': '3' } }, spec: { replicas: 1 + Math.floor(r() * 4), selector: { matchLabels: labels }, template: { metadata: { labels }, spec } }, status: { replicas: 3, readyReplicas: 3 } });
    for (const h of ['5f4d3c2b1', '7d9c8b6f5']) {
      const rs = `${name}-${h}`;
      const owned = { ...labels, 'pod-template-hash': h };
      items.push({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: rs, namespace: ns, labels: owned, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid, controller: true, blockOwnerDeletion: true }] }, spec: { replicas: h === '7d9c8b6f5' ? 3 : 0, selector: { matchLabels: owned }, template: { metadata: { labels: owned }, spec } } });
      if (h === '7d9c8b6f5')
        for (let p = 0; p < 3; p++)
          items.push({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: `${rs}-p${p}`, namespace: ns, labels: owned, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `${uid}-rs`, controller: true, blockOwnerDeletion: true }] },
            spec: { ...spec, nodeName: `node-${Math.floor(r() * 50)}` },
            status: {
              phase: 'Running',
              podIP: `10.${d % 250}.${p}.${d % 200}`,
              conditions: [{ type: 'PodScheduled', status: 'True', message: '0/50 nodes are available: 3 Insufficient cpu. preemption: 0/50 nodes are available: 3 No preemption victims found for incoming pod.' }],
              // A container that crashed once: its Go stack trace has tabs, so go-yaml writes it double-quoted.
              ...(d % 5 === 0 ? { containerStatuses: [{ name: 'app', ready: true, restartCount: 1, lastState: { terminated: { exitCode: 2, reason: 'Error', message: `panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1f2c]\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:${12 + p} +0x2c\n` } } }] } : {}),
            },
          });
    }
    items.push({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { selector: labels, ports: [{ port: 80, targetPort: 'http' }], clusterIP: `10.96.${d % 250}.${d % 200}` } });
    items.push({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${name}-x7k2p`, namespace: ns, labels: { 'kubernetes.io/service-name': name } }, addressType: 'IPv4', endpoints: [0, 1, 2].map((p) => ({ addresses: [`10.${d % 250}.${p}.${d % 200}`], conditions: { ready: true } })), ports: [{ port: 8080 }] });
    // (Some files end with an empty line: go-yaml writes those `|+`.)
    for (let c = 0; c < 6; c++) items.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config-${c}`, namespace: ns }, data: { 'app.yaml': `listen: 8080\nlevel: info\nfeature-${c}: true\n${c === 0 && d % 4 === 0 ? '\n' : ''}` } });
    // A config indented with tabs (go-yaml writes it double-quoted too).
    if (d % 3 === 0) items.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-nginx`, namespace: ns }, data: { 'nginx.conf': `server {\n\tlisten 8080;\n\tlocation / {\n\t\tproxy_pass http://${name}.${ns}.svc:80;\n\t\tproxy_read_timeout 60s;\n\t}\n}\n` } });
    for (let s = 0; s < 6; s++) items.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-secret-${s}`, namespace: ns }, type: 'Opaque', data: { token: Buffer.from(`token-${d}-${s}-${'x'.repeat(40)}`).toString('base64') } });
    for (let e = 0; e < 10; e++) items.push({ apiVersion: 'v1', kind: 'Event', metadata: { name: `${name}.17a${e}`, namespace: ns }, involvedObject: { kind: 'Pod', name: `${name}-7d9c8b6f5-p${e % 3}`, namespace: ns }, reason: 'Pulled', type: 'Normal', message: `Successfully pulled image "registry.example/app-${d % 9}:1.${d % 4}.0" in 1.2s (1.2s including waiting). Image size: 123456789 bytes.` });
  }
  return items.slice(0, n);
}

/**
 * YAML as kubectl (go-yaml) writes it from `text`, a block YAML with one value per line (js-yaml's
 * dump with no line width): a value past column 80 is folded at a space, its later lines indented
 * two more than its key. A plain or single-quoted value is folded at a space between words; a
 * double-quoted one (go-yaml writes a string with a tab or another character it escapes so, with
 * the escapes js-yaml writes too) at the first space of a run, which the line break replaces, a
 * `\` starting the next line when a space follows (yaml.v2 emitterc.go,
 * yaml_emitter_write_double_quoted_scalar).
 */
export function goYamlFolded(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= 80) return line;
      const dq = /^( *)((?:- )?[^ '"][^:]*: )"(.*)"$/.exec(line);
      if (dq) return goYamlDoubleQuoted(dq[1] + dq[2], dq[3], dq[1].length + (dq[2].startsWith('- ') ? 2 : 0) + 2);
      const m = /^( *)((?:- )?[^ '"][^:]*: )([^|>"].*)$/.exec(line);
      if (!m) return line;
      const indent = m[1].length + (m[2].startsWith('- ') ? 2 : 0);
      const words = m[3].split(' ');
      let out = `${m[1]}${m[2]}${words[0]}`;
      let width = out.length;
      for (const w of words.slice(1)) {
        if (width > 80 && w !== '') {
          out += `\n${' '.repeat(indent + 2)}${w}`;
          width = indent + 2 + w.length;
        } else {
          out += ` ${w}`;
          width += 1 + w.length;
        }
      }
      return out;
    })
    .join('\n');
}

/** A double-quoted scalar's escaped text `body` after `prefix` (its line up to the quote), folded as go-yaml folds it; later lines at `indent`. */
function goYamlDoubleQuoted(prefix: string, body: string, indent: number): string {
  let out = `${prefix}"`;
  let column = out.length;
  let spaces = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === ' ') {
      if (!spaces && column > 80 && i !== 0 && i !== body.length - 1) {
        out += `\n${' '.repeat(indent)}`;
        column = indent;
        if (body[i + 1] === ' ') {
          out += '\\';
          column++;
        }
      } else {
        out += ' ';
        column++;
      }
      spaces = true;
    } else {
      out += c;
      column++;
      spaces = false;
    }
  }
  return `${out}"`;
}
