/**
 * The SeaweedFS volume server (catalog seaweedfs-volume-prestop-seconds) as the seaweedfs chart's
 * volume StatefulSet runs it (k8s/charts/seaweedfs/templates/volume/volume-statefulset.yaml, abridged):
 * image chrislusf/seaweedfs, command ["/bin/sh", "-ec", SCRIPT] where the script execs weed with
 * continued lines, terminationGracePeriodSeconds 150, behind the headless Service seaweedfs-volume.
 */

/** The chart's script, with `extra` flags (its volume.extraArgs) added at the end. */
export function weedVolumeScript(extra: string[] = [], program = '/usr/bin/weed \\\n  -logtostderr=true \\\n  -v=1 \\\n  volume'): string {
  return [
    `exec ${program} \\`,
    '  -port=8080 \\',
    '  -dir /data1 \\',
    '  -max 0 \\',
    '  -ip.bind=0.0.0.0 \\',
    '  -ip=${POD_NAME}.seaweedfs-volume.seaweedfs \\',
    '  -master=seaweedfs-master-0.seaweedfs-master.seaweedfs:9333 \\',
    ...extra.map((a) => `  ${a} \\`),
    '',
  ].join('\n');
}

/** `command`/`args` as JSON lists (null leaves them out); `grace` defaults to the chart's 150. */
export function seaweedfsVolume(o: { image?: string; command?: string[] | null; args?: string[] | null; grace?: number } = {}): string {
  const command = o.command === undefined ? ['/bin/sh', '-ec', weedVolumeScript()] : o.command;
  const grace = o.grace ?? 150;
  return `apiVersion: v1
kind: Service
metadata: {name: seaweedfs-volume, namespace: seaweedfs}
spec:
  clusterIP: None
  selector: {app.kubernetes.io/component: volume}
  ports:
  - {name: swfs-volume, port: 8080, targetPort: 8080}
  - {name: swfs-volume-18080, port: 18080, targetPort: 18080}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: seaweedfs-volume, namespace: seaweedfs}
spec:
  serviceName: seaweedfs-volume
  replicas: 3
  podManagementPolicy: Parallel
  selector: {matchLabels: {app.kubernetes.io/component: volume}}
  template:
    metadata: {labels: {app.kubernetes.io/component: volume}}
    spec:
      terminationGracePeriodSeconds: ${grace}
      containers:
      - name: seaweedfs
        image: ${o.image ?? 'chrislusf/seaweedfs:4.00'}
${command === null ? '' : `        command: ${JSON.stringify(command)}\n`}${o.args ? `        args: ${JSON.stringify(o.args)}\n` : ''}        ports:
        - {containerPort: 8080, name: swfs-vol}
        - {containerPort: 18080, name: swfs-vol-grpc}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
          periodSeconds: 15
`;
}
