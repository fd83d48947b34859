/**
 * docs/catalog.md, generated from the catalog data (like the rule docs from rule metadata), so the
 * documentation cannot drift from what kubegrace matches: `node build/scripts/gen-catalog.js`
 * rewrites it, and a test fails when the committed page differs.
 */
import { ArgDelay, CatalogEntry, CatalogKind, imageGlobVariants, ConfigFileSpec, ConfigValueSpec, DrainSpec, EnvValueSpec, FlagValueSpec, isConfigValueSpec, isEnvValueSpec, isFlagValueSpec, MonitoringPortSpec, isFixedSecondsSpec, isUnreadSettingSpec, PerListenerSpec, ProbeSpec, ServesAfterSigtermSpec } from './index';
import { DEFAULT_PRESTOP_SECONDS } from '../timeline/prestop';

export const CATALOG_DOC = 'docs/catalog.md';

const KIND_TITLE: Record<CatalogKind, string> = {
  'connection-pattern': 'Connection patterns',
  'prestop-program': 'Known preStop programs',
  'serves-after-sigterm': 'Programs that keep serving after SIGTERM',
  'process-local-probe': 'Probes that are process-local by design',
  'dependency-probe': 'Probes known to check a dependency',
  'peer-discovery': 'Peer discovery before readiness',
  'monitoring-port': "Programs' own monitoring ports",
  'single-version': 'Programs that must not run two versions (or two instances) at once',
  'registers-webhooks': 'Programs that register fail-closed admission webhooks at run time',
};

const KIND_USE: Record<CatalogKind, string> = {
  'connection-pattern':
    'Used by `min-ready-seconds` when the workload has no `kubegrace.dev/connection-pattern` hint: fan-in sizes `minReadySeconds` with the reconnect model of graceful-termination.md section 11 (the entry\'s backoff is the default backoff; `kubegrace.dev/reconnect-probability` and `kubegrace.dev/reconnect-backoff` still apply), long-lived asks for a pause between replacements.',
  'prestop-program':
    'The preStop classification (`lib/timeline/prestop.ts`, kind `exec-known`) gives these hooks the delay below, so `grace-period-budget`, the load-balancer rules, the mesh rules and `kubegrace explain` count the same seconds. The delay is how long the container keeps accepting new connections once the hook starts. `kubegrace.dev/prestop-seconds` still wins. Messages advise the program\'s own knob instead of a sleep.',
  'serves-after-sigterm':
    'API (`Catalog.servesAfterSigterm`, `Catalog.drainSeconds`): how long the program keeps accepting after SIGTERM and how long it then drains, read from its flags, from its config file (read from a ConfigMap of the input mounted where the program reads it; when the input does not hold that ConfigMap the time is unknown and counts as none), or from an environment variable of the container (a literal `env` value, else the program\'s default; set from a ConfigMap, Secret or field, or possibly by `envFrom`, it is unknown and counts as none), or from one flag of the container (else the config file a flag names, else the program\'s default), or fixed in its code (no setting to advise); a drain may also be the program\'s default for a setting the catalog does not read (a Spring property: then `kubegrace.dev/drain-seconds` states a changed value). `prestop-missing` does not ask such a program for a preStop hook when the time is above 0 s, and its advice names the program\'s own setting; the termination schedule (`grace-period-budget`, `kubegrace explain`) places the time after SIGTERM, before the drain, so the grace period must hold both. `kubegrace.dev/serves-after-sigterm-seconds` wins (for `prestop-missing`).',
  'process-local-probe':
    'API `isProcessLocalProbe(container, probe)`, used by `liveness-equals-readiness`: identical liveness and readiness on a check that looks only at the process itself cannot restart every replica because a dependency is down. An entry whose probe pins a port also tells `probe-port` (API `programProbePort`) that the program serves its health check there, so probing it without declaring it is not reported (an info of the linter only: the admission policies of probe-port do not export that condition). An entry marked `answersFromStart` (API `answersFromStartProbe(container, probe)`) says its probes pass as soon as the program serves them, before the slow phases of its start (storage recovery, syncs, cluster joins) finish, which gate only readiness: `startup-probe` does not ask for a startupProbe in place of a long liveness `initialDelaySeconds` on such a check, since no slow start can fail it (its admission policy reads the same entries).',
  'dependency-probe':
    'API `dependencyProbe(container, probe)`, used by `liveness-equals-readiness`: the mirror of a process-local probe. The program\'s handler fails when something outside the process fails (a database, the cluster\'s seed nodes, an operator\'s maintenance switch), so identical liveness and readiness on it restart every replica when that dependency fails: a **warning**, where a check the manifest cannot see into is only an info. An entry whose dependency depends on the configuration applies only when the container\'s `env` selects it literally. Not read by the admission policies (`liveness-equals-readiness` is not exported) nor by `probe-port`.',
  'peer-discovery':
    'Used by `headless-publish-not-ready` when the StatefulSet has no `kubegrace.dev/peer-discovery` hint (the param `peerDiscoveryImages`, when a policy sets it, replaces these entries).',
  'monitoring-port':
    'API `Catalog.monitoringPort`, read once per container by `lib/model/traffic.ts`: a Service port that reaches this port of the container (by number, or by a name declared on it) carries scrapes and health checks, not client traffic, whatever it is named, as a port named `metrics` does. The serving rules (`prestop-missing`, `readiness-probe-missing`, ...) do not judge it, and a workload whose Services reach nothing else is not served (`recreate-strategy`, `rollout-full-outage`, `replicas-not-spread`, ... skip it; `kubegrace explain` says so). The port is read from the program\'s config file when a ConfigMap of the input holds it; otherwise the flag or the program\'s default stands. Other ports of the same program (its inputs) stay client traffic. Without a Service in the input, declared ports are judged by their names and, when the input holds other objects of that namespace (a chart render), without this port; a workload alone is judged by port names only, as the admission policies judge it.',
  'registers-webhooks':
    'API `runtimeWebhooks(workload)` (the first main container that matches, unless its command and args match `failOpen.args`, and only when its env sets each `enabledBy` variable to one of its values and no `disabledBy` variable to one of its values or from elsewhere), used by `webhook-backend-availability`: the program creates its `ValidatingWebhookConfiguration`/`MutatingWebhookConfiguration` itself when it runs, so a chart render holds none, and the rule judges the Service its webhooks call (in the workload\'s namespace) as it judges the backend of a written `failurePolicy: Fail` webhook, reporting on the workload. When the input holds a webhook configuration that calls that Service (a `kubectl get` dump of the cluster), that configuration is judged as written instead. Not read by the admission policies (`webhook-backend-availability` is not exported).',
  'single-version':
    'API `singleVersionProgram(workload)` (the first main container that matches): old and new versions of the program must not run side by side, so a rollout of a new version must stop every old pod before a new one starts, which is what `strategy: Recreate` does. `recreate-strategy` then reports Recreate as info, saying why it is right and what each rollout costs (the old pods\' termination, up to their grace period, plus the new pods\' startup), instead of advising RollingUpdate; `rollout-full-outage` advises Recreate instead of surge first and offers no `--fix`; for a DaemonSet rolling with `maxUnavailable: "100%"` (every node at once, the Longhorn manager), `rollout-full-outage` reports info instead of its warning, saying what each rollout costs. Their admission policies read the same entries. An entry with `overlapStalls` is a program whose old and new pods may run side by side but whose new pod does not become Ready while an old one runs (a readiness that waits for the leader-election lease the old pod holds): the messages give that reason instead, a RollingUpdate that keeps old pods until new ones are Ready stalls, and `rollout-full-outage` does not report it (surge first is no repair, and the outage is the program\'s own price). An entry with `overlap: instances` is a program of which two instances must not run at once, whatever their versions (the default, `versions`: two versions must not); the messages say that instead, and when the replicas exceed one (or an HPA may scale above one) that they run at once whatever the strategy.',
};

function code(s: string): string {
  return s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``;
}

function matchLines(e: CatalogEntry): string[] {
  const m = e.match;
  const out: string[] = [];
  if (m.images) out.push(`image ${m.images.flatMap((g) => imageGlobVariants(g).map((v, i) => (i ? `${code(v)} (ko's default name for that import path)` : code(v)))).join(' or ')}`);
  if (m.tags) out.push(`image tag ${m.tags.map(code).join(' or ')}`);
  if (m.ports) out.push(`port ${m.ports.map((p) => code(String(p))).join(' or ')}${e.kind === 'connection-pattern' ? ' (on the container, or routed to the pods by a Service)' : ''}`);
  if (m.command) out.push(`command and args match ${code(m.command)}`);
  if (m.args) out.push(`args match ${code(m.args)}`);
  if (m.minVersion) out.push(`image tag ${code(m.minVersion)} or newer (a tag that is not a version matches)`);
  if (m.beforeVersion) out.push(`image tag a version below ${code(m.beforeVersion)} (a tag that is not a version does not match)`);
  if (e.preStop) out.push(`preStop exec command matches ${code(e.preStop.command)}`);
  return out.length ? out : ['any container'];
}

function argWords(a: ArgDelay): string {
  return `${code(a.flag)} of the ${a.from === 'preStop' ? 'preStop command' : "container's command/args"} (${a.unit === 'seconds' ? 'seconds' : 'a duration'}; default ${a.default}s)`;
}

function perListenerWords(s: PerListenerSpec): string {
  return `per entry point: ${code(s.value)} (default ${s.default}s); the smallest over the entry points named by ${code(s.listener)}${s.ignore?.length ? `, ignoring ${s.ignore.map(code).join(', ')}` : ''}${s.setting ? `; advised as ${code(s.setting)} on each entry point that is short` : ''}`;
}

function configValueWords(s: ConfigValueSpec): string {
  const file = fileWords(s.file);
  const combine = s.combine === 'sum' ? 'the sum over the lines (the program waits for each in turn)' : 'the smallest over the lines';
  return `from ${file}, each line${s.comment ? ` (${code(s.comment)} comments removed)` : ''} matching ${code(s.value)}${s.unit === 'milliseconds' ? ' (milliseconds)' : ''}: ${combine}; ${s.default}s when none does${s.setting ? `; advised as ${code(s.setting)}` : ''}`;
}

function fileWords(f: ConfigFileSpec): string {
  const flags = [...(f.flag ? [f.flag] : []), ...(f.aliases ?? [])];
  if (f.default === undefined) return `the file named by ${flags.map(code).join(' or ')} (none when not given)`;
  return `${flags.length ? `the file named by ${flags.map(code).join(' or ')} (default ${code(f.default)})` : code(f.default)}${f.default.startsWith('/') ? '' : ", a relative path taken from the container's workingDir, else `/`"}`;
}

function monitoringPortWords(s: MonitoringPortSpec): string {
  const parts: string[] = [];
  if (s.file && s.value) parts.push(`the last line of ${fileWords(s.file)}${s.comment ? ` (${code(s.comment)} comments removed)` : ''} matching ${code(s.value)}`);
  if (s.flags?.length) parts.push(`${s.flags.map(code).join(' or ')} in the container's command and args${s.flagForm === 'address' ? ' (a listen address such as `:8085`: its port)' : ''}`);
  parts.push(`${s.default} (the program's default)`);
  return `${parts.join(', else ')}; a value that is not a port number leaves it unknown`;
}

function envValueWords(s: EnvValueSpec): string {
  return `the container's environment variable ${code(s.env)} (${s.unit === 'seconds' ? 'seconds' : 'a duration'}; unset or empty: ${s.default}s${s.zero === 'unbounded' ? '; 0: no limit, unknown' : ''}; from valueFrom or envFrom: unknown)${s.chartValue ? `; chart value ${code(s.chartValue)}` : ''}`;
}

function flagValueWords(s: FlagValueSpec): string {
  const unit = s.unit === 'seconds' ? 'seconds' : 'a duration';
  const file = s.configFile
    ? `, else the last line matching ${code(s.configFile.value)}${s.configFile.comment ? ` (${code(s.configFile.comment)} comments removed)` : ''} of the file named by ${code(s.configFile.flag)} when given (read from a ConfigMap of the input mounted there; unknown when the input does not hold it)`
    : '';
  return `${code(s.flag)} in the container's command and args (${unit})${file}; ${s.default}s when not set${s.setting ? `; advised as ${code(s.setting)}` : ''}`;
}

function servesAfterSigtermWords(s: ServesAfterSigtermSpec): string {
  if (isFixedSecondsSpec(s)) {
    if (s.bound === 'quiet-period') return `until its clients stop sending, then a quiet period of ${s.seconds}s that each request restarts (fixed in the program; no setting changes it): the termination schedule counts the endpoint-propagation time (${DEFAULT_PRESTOP_SECONDS}s, the preStop delay kubegrace proposes) in its place, since SIGKILL may cut the period at no loss once the clients have stopped`;
    return `${s.bound === 'at-least' ? 'at least ' : ''}${s.seconds}s (fixed in the program; no setting changes it)`;
  }
  if (isEnvValueSpec(s)) return `${envValueWords(s)}; advised as ${code(`env {name: ${s.env}, value: ...}`)}`;
  if (isFlagValueSpec(s)) return flagValueWords(s);
  return isConfigValueSpec(s) ? configValueWords(s) : perListenerWords(s);
}

function drainWords(s: DrainSpec): string {
  if (isUnreadSettingSpec(s)) return `${s.default}s, the default of ${code(s.setting)}, which the catalog does not read (state a changed value with ${code('kubegrace.dev/drain-seconds')})`;
  return isEnvValueSpec(s) ? envValueWords(s) : perListenerWords(s);
}

function probeWords(p: ProbeSpec): string {
  if (p.httpGet) return `httpGet${p.httpGet.path !== undefined ? ` path exactly ${code(p.httpGet.path)}` : ' (any path)'}${p.httpGet.port !== undefined ? ` on port ${code(String(p.httpGet.port))}` : ''}`;
  if (p.grpc) return `grpc${p.grpc.port !== undefined ? ` on port ${p.grpc.port}` : ''}${p.grpc.service !== undefined ? ` service ${code(p.grpc.service)}` : ''}`;
  if (p.tcpSocket) return `tcpSocket${p.tcpSocket.port !== undefined ? ` on port ${code(String(p.tcpSocket.port))}` : ''}`;
  return `exec matching ${code(p.exec!.command)}`;
}

function effectLines(e: CatalogEntry): string[] {
  switch (e.kind) {
    case 'connection-pattern':
      return [`**Connection pattern:** ${code(e.connectionPattern!)}${e.reconnectBackoff ? `; reconnect backoff ${code(e.reconnectBackoff)}` : ''}`];
    case 'prestop-program': {
      const d = e.preStop!.delay;
      const bound = d.bound === 'at-least' ? 'at least ' : '';
      const delay = d.unknown ? 'unknown (not judged)' : d.seconds !== undefined ? `${bound}${d.seconds}s (fixed)` : `${bound}${d.args!.length > 1 ? 'the sum of ' : ''}${d.args!.map(argWords).join(' + ')}`;
      const out = [`**Delay** (keeps accepting after the hook starts): ${delay}${e.preStop!.drains ? '; the program then drains in-flight work before it returns' : ''}`];
      const a = e.preStop!.adjust;
      if (a?.flag) out.push(`**To lengthen it:** raise ${code(a.flag)}${a.chartValue ? ` (chart value ${code(a.chartValue)})` : ''}`);
      if (a?.sleepBefore) out.push('**To lengthen it:** run it after a sleep (`sh -c "sleep N && ..."`)');
      const w = e.preStop!.awaitedBy;
      if (w) out.push(`**Awaited by:** a preStop ${code(`httpGet ${w.path}`)} on port ${w.port}${w.portFlag ? ` (or the container's ${code(w.portFlag)})` : ''} in another container of the pod returns when this hook does, so that container's preStop lasts as long`);
      return out;
    }
    case 'serves-after-sigterm':
      return [`**Keeps accepting after SIGTERM:** ${servesAfterSigtermWords(e.servesAfterSigterm!)}`, ...(e.drain ? [`**Then drains:** ${drainWords(e.drain)}`] : [])];
    case 'process-local-probe':
      return [
        `**Process-local probes:** ${e.probes!.map(probeWords).join('; ')}`,
        ...(e.answersFromStart ? ['**Answers from start:** they pass as soon as the program serves them, before its slow start phases finish (those gate only readiness), so no slow start can fail a liveness check on them (startup-probe skips it)'] : []),
      ];
    case 'dependency-probe': {
      const env = e.dependency!.env;
      return [`**Probes that check a dependency:** ${e.probes!.map(probeWords).join('; ')}`, `**Depends on:** ${e.dependency!.on}${env ? ` (only when the container's env sets ${code(env.name)} to ${env.values.map(code).join(' or ')})` : ''}`];
    }
    case 'peer-discovery':
      return ['**Peer discovery:** members must find each other (per-pod DNS through the headless Service) before they are Ready'];
    case 'monitoring-port':
      return [`**Monitoring port:** ${monitoringPortWords(e.monitoringPort!)}`];
    case 'single-version':
      return [e.overlapStalls ? `**New pods not Ready beside old ones:** ${e.overlapStalls}; so a rollout stops every old pod before a new one starts (\`strategy: Recreate\`)` : e.overlap === 'instances' ? '**Single instance:** two instances must not run at once, whatever their versions, so a rollout stops every old pod before a new one starts (`strategy: Recreate`), and the workload needs one replica' : '**Single version:** old and new versions must not run at once, so a rollout stops every old pod before a new one starts (`strategy: Recreate`)'];
    case 'registers-webhooks': {
      const r = e.registersWebhooks!;
      return [
        `**Webhooks' Service:** ${r.service.env ? `the value of env ${code(r.service.env)}, else ` : ''}${code(r.service.default)}, in the workload's namespace`,
        `**Rejected while no backend is Ready:** ${r.rejects}`,
        ...(r.enabledBy ? [`**Judged only when:** ${r.enabledBy.map((e) => `env ${code(e.name)} is ${e.values.map(code).join(' or ')}`).join(', and ')} (else the program registers no fail-closed webhook)`] : []),
        ...(r.disabledBy ? [`**Not judged when:** ${r.disabledBy.map((e) => `env ${code(e.name)} is ${e.values.map(code).join(' or ')} (or set from elsewhere)`).join(', or ')}`] : []),
        ...(r.failOpen?.args ? [`**Not judged when:** command and args match ${code(r.failOpen.args)} (the webhooks then do not fail closed on the in-cluster Service)${r.failOpen.setting ? `; to make them fail open: ${r.failOpen.setting}` : ''}`] : r.failOpen?.setting ? [`**To make them fail open:** ${r.failOpen.setting}`] : []),
      ];
    }
  }
}

/** The whole page. */
export function catalogMarkdown(entries: readonly CatalogEntry[]): string {
  const kinds: CatalogKind[] = ['connection-pattern', 'prestop-program', 'serves-after-sigterm', 'process-local-probe', 'dependency-probe', 'peer-discovery', 'monitoring-port', 'single-version', 'registers-webhooks'];
  const L: string[] = [];
  L.push('# Catalog of well-known workloads and programs', '');
  L.push('_Generated from `lib/catalog/catalog.yaml` by `node build/scripts/gen-catalog.js`; do not edit by hand._', '');
  L.push(
    'kubegrace recognises well-known workloads and programs from data, not code: one YAML file,',
    '`lib/catalog/catalog.yaml`, validated against `lib/catalog/catalog.schema.json`, every entry citing',
    'its primary source. A linter that needs an annotation to recognise Teleport does not prevent',
    'gravitational/teleport#13129; with the catalog, the Teleport proxy is recognised as fan-in from its image',
    'and its reverse-tunnel port alone.',
    '',
    '**Hints always win.** A `kubegrace.dev/*` annotation on the workload or pod template overrides what the',
    'catalog says (`connection-pattern`, `prestop-seconds`, `serves-after-sigterm-seconds`, `peer-discovery`).',
    '',
  );
  L.push('## Matching', '');
  L.push(
    '- An entry matches a container when **every** criterion it gives holds; within a list, **any** item may match.',
    '- **Images** are compared by repository: the tag and digest are dropped, the reference is lower-cased, and',
    '  Docker Hub\'s `library/` prefix is dropped. A pattern is a glob (`*` matches any characters, `/` included)',
    '  tried on the repository without its registry host (`public.ecr.aws/gravitational/teleport:11` is tried as',
    '  `gravitational/teleport`) and with it. A leading `*/` also matches no prefix: `*/cassandra` matches',
    '  `cassandra:4.1`, `docker.io/library/cassandra` and `gcr.io/google-samples/cassandra:v13`, not `scassandra`.',
    '- **Tags** are globs on the image tag, compared case-sensitively (`*` matches any characters, none',
    '  included): `*datacenter-app` matches `sonarqube:2026.4.0-datacenter-app` and `sonarqube:datacenter-app`.',
    '  A reference without tag or digest has the tag `latest`; one that names a digest alone has no tag and',
    '  matches no tag pattern. An entry uses them when the tag, not the repository, tells programs apart (one',
    '  repository, one image per role).',
    '- **Ports** are container port numbers or names. For connection patterns they also match the ports of',
    '  Services routing to the pods (port name, or target port): the 2022 Teleport chart declares only `diag` on',
    '  the container and routes `sshtun` -> 3024 through its Service.',
    '- **minVersion** is the first release of the program with the behaviour the entry states: an image whose',
    '  tag is an older version X.Y.Z (`v` prefix and suffixes such as `-alpine` allowed) does not match; a tag',
    '  that is not a version (none, `latest`, a commit, a `ko://` import path of the source) matches.',
    '- **beforeVersion** is the first release of the program without the behaviour the entry states, for an entry',
    '  about older releases: only an image whose tag is an older version X.Y.Z matches; a later version and a tag',
    '  that is not a version, taken as current, do not. Such an entry follows the one for current releases (its',
    '  `minVersion` is the same version), so that each tag matches one of them.',
    '- **command** is a regular expression on the container\'s `command` and `args` joined by spaces; **args** on',
    '  `args` alone. A preStop program\'s `command` is matched against the hook\'s `exec.command` joined by spaces.',
    '- **Probes** match on the handler: an `httpGet` path is compared whole, query string included',
    '  (`/healthz?full=true` is not `/healthz`); a numeric port matches a named probe port through the',
    '  container\'s ports.',
    '- Workload-level lookups (connection pattern, peer discovery) look at the main containers; the first match',
    '  in catalog order wins. So does the known preStop program of a container: the first entry whose criteria',
    '  and preStop command match.',
    '- Patterns are compiled once per catalog and results cached per container, so matching costs',
    '  O(containers) per workload. The shipped data is compiled into the package (`catalog.generated.ts`).',
    '',
  );
  L.push('## Overriding from a policy', '');
  L.push(
    'A policy\'s `spec.catalog` adds entries (in the format of `catalog.yaml`) and disables built-in ones by ID.',
    'It is validated against the same schema; a bad entry is rejected with the path and line of the field',
    '(e.g. `policy.yaml:9:15: /spec/catalog/add/0/kind: must be equal to one of the allowed values`). Adding an',
    'ID that exists is an error (disable it and add yours under another ID). Policies that extend others inherit',
    'their catalog changes.',
    '',
    '```yaml',
    'apiVersion: kubegrace.dev/v1',
    'kind: Policy',
    'metadata: {name: acme}',
    'spec:',
    '  extends: [recommended]',
    '  catalog:',
    '    disable: [nginx-quit]',
    '    add:',
    '      - id: acme-gateway',
    '        kind: connection-pattern',
    '        title: ACME gateway',
    '        match: {images: ["*/acme/gateway"], ports: [tunnel]}',
    '        connectionPattern: fan-in',
    '        reconnectBackoff: exponential:1-30',
    '        why: edge agents keep a tunnel to every gateway replica',
    '        source: [ACME design doc GW-12]',
    '```',
    '',
  );
  L.push('## Entries', '');
  L.push('| ID | kind | title |', '|---|---|---|');
  for (const k of kinds) for (const e of entries.filter((x) => x.kind === k)) L.push(`| [\`${e.id}\`](#${e.id}) | ${k} | ${e.title.replace(/\|/g, '\\|')} |`);
  L.push('');
  for (const k of kinds) {
    const list = entries.filter((x) => x.kind === k);
    if (!list.length) continue;
    L.push(`## ${KIND_TITLE[k]}`, '', KIND_USE[k], '');
    for (const e of list) {
      L.push(`### ${e.id}`, '', `**${e.title}**`, '');
      L.push(`- **Matches:** ${matchLines(e).join('; ')}`);
      for (const x of effectLines(e)) L.push(`- ${x}`);
      L.push(`- **Why:** ${e.why}`);
      L.push('- **Sources:**');
      for (const s of e.source) L.push(`  - ${s}`);
      L.push('');
    }
  }
  return L.join('\n');
}
