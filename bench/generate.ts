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

