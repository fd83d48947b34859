/**
 * Cluster Autoscaler as the kubernetes/autoscaler chart deploys it (charts/cluster-autoscaler,
 * default values, AWS): containerPort 8085, a liveness check on /health-check, no readinessProbe,
 * no preStop hook, and a Service whose only port (http) targets 8085, for Prometheus.
 */
export interface ClusterAutoscalerOpts {
  image?: string;
  /** Further args after the chart's (e.g. `--address=:9090`). */
  args?: string[];
  /** The container port and the Service's targetPort (default 8085, hard-coded by the chart). */
  port?: number;
  /** The Service's targetPort when it differs from the container port. */
  targetPort?: number;
}

export function clusterAutoscaler(o: ClusterAutoscalerOpts = {}): string {
  const port = o.port ?? 8085;
  const args = ['./cluster-autoscaler', '--cloud-provider=aws', '--namespace=kube-system', ...(o.args ?? [])];
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ca-aws-cluster-autoscaler, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/name: aws-cluster-autoscaler}}
  template:
    metadata: {labels: {app.kubernetes.io/name: aws-cluster-autoscaler}}
    spec:
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: {app.kubernetes.io/name: aws-cluster-autoscaler}}
      containers:
      - name: aws-cluster-autoscaler
        image: ${o.image ?? 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.0'}
        command: [${args.map((a) => JSON.stringify(a)).join(', ')}]
        ports: [{containerPort: ${port}}]
        livenessProbe: {httpGet: {path: /health-check, port: ${port}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ca-aws-cluster-autoscaler, namespace: kube-system}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector: {matchLabels: {app.kubernetes.io/name: aws-cluster-autoscaler}}
---
apiVersion: v1
kind: Service
metadata: {name: ca-aws-cluster-autoscaler, namespace: kube-system}
spec:
  selector: {app.kubernetes.io/name: aws-cluster-autoscaler}
  ports: [{name: http, port: 8085, targetPort: ${o.targetPort ?? port}, protocol: TCP}]
`;
}
