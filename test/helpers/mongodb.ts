/**
 * MongoDB workloads for the catalog's quiesce entries (mongodb-quiesce, mongodb-sharded-quiesce):
 * a StatefulSet of `image` behind a headless Service and a client Service, as the official image
 * and Bitnami's sharded chart run them (abridged).
 */
export function mongod(o: { image?: string; command?: string[] | null; args?: string[] | null; headlessOnly?: boolean; env?: string[] } = {}): string {
  const command = o.command === undefined ? null : o.command;
  const args = o.args === undefined ? ['mongod', '--replSet', 'rs0', '--bind_ip_all'] : o.args;
  return `apiVersion: v1
kind: Service
metadata: {name: mongo-headless, namespace: db}
spec:
  clusterIP: None
  selector: {app: mongo}
  ports: [{name: mongodb, port: 27017}]
${
  o.headlessOnly
    ? ''
    : `---
apiVersion: v1
kind: Service
metadata: {name: mongo, namespace: db}
spec:
  selector: {app: mongo}
  ports: [{name: mongodb, port: 27017}]
`
}---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: mongo, namespace: db}
spec:
  serviceName: mongo-headless
  replicas: 3
  selector: {matchLabels: {app: mongo}}
  template:
    metadata: {labels: {app: mongo}}
    spec:
      containers:
      - name: mongodb
        image: ${o.image ?? 'mongo:7.0'}
${command ? `        command: ${JSON.stringify(command)}\n` : ''}${args ? `        args: ${JSON.stringify(args)}\n` : ''}${o.env ? `        env: [${o.env.join(', ')}]\n` : ''}        ports: [{name: mongodb, containerPort: 27017}]
        readinessProbe:
          exec: {command: [mongosh, --quiet, --eval, "db.adminCommand('ping')"]}
`;
}

/** Bitnami mongodb-sharded's shard member: /entrypoint/replicaset-entrypoint.sh, MONGODB_SHARDING_MODE shardsvr. */
export function bitnamiShard(image = 'docker.io/bitnami/mongodb-sharded:8.0.13-debian-12-r0'): string {
  return mongod({
    image,
    command: ['/bin/bash', '/entrypoint/replicaset-entrypoint.sh'],
    args: null,
    headlessOnly: true,
    env: ['{name: MONGODB_SHARDING_MODE, value: shardsvr}', '{name: MONGODB_REPLICA_SET_NAME, value: mdb-shard-0}'],
  });
}
