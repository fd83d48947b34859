/**
 * The Helm chart generator: synthesized manifests in, a chart directory out. Its values expose the
 * rollout and termination knobs of each workload (defaults = what the constructs synthesized), a
 * values schema types and bounds them, guards refuse unsafe combinations at render time, and the
 * README and NOTES come from the same values tree. Works on any kubegrace-synthesized manifests
 * (charts-src here, or an app repository's cdk8s output); other objects are kept as written.
 */
import Ajv from 'ajv';
import * as fs from 'fs';
import * as path from 'path';
import { parseDocument } from 'yaml';
import { isObject, Json, JsonObject } from '../model/types';
import { get } from '../model/workload';
import { analyze, ChartAnalysis, ManifestSource, readObjects } from './analyze';
import { acceptGuards, duplicateObjects, NamespaceCollision, namespaceOf, releaseNamespaceCollisions, selectNamespace } from './refusals';
import { yamlQuoted } from './emit';
import { ChartTemplates, shellWord } from './templates';
import { defaultsOf, valuesSchema, valuesTable, valuesYaml } from './values';

export interface ChartSpec {
  name: string;
  version: string;
  appVersion: string;
  description: string;
  /** Semver constraint; default derived from the features the manifests use, e.g. ">=1.30.0-0". */
  kubeVersion?: string;
  home?: string;
  annotations?: Record<string, string>;
}

export interface GeneratedChart {
  dir: string;
  /** Relative paths written, sorted. */
  files: string[];
  /**
   * Release namespaces the chart refuses to render in (an object kept there shares kind and name with
   * one that goes to the release namespace), sorted; empty when it installs anywhere.
   */
  refusedNamespaces: string[];
  /** The manifests' main namespace (the most used one), which goes to the release namespace. */
  mainNamespace?: string;
}

/** What buildChartFiles returns besides the files: where the chart may be installed. */
export interface ChartPlacement {
  refusedNamespaces: string[];
  mainNamespace?: string;
}

/** Helm's chart name rule (lowercase letters, digits, dashes). */
const CHART_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** SemVer 2 (Helm refuses chart versions that are not). */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export const GENERATED_BY_ANNOTATION = 'kubegrace.dev/generated-by';

function checkSpec(spec: ChartSpec): void {
  if (!CHART_NAME.test(spec.name)) throw new Error(`chart name "${spec.name}": use lowercase letters, digits and dashes, starting and ending with a letter or digit (Helm's rule)`);
  if (!SEMVER.test(spec.version)) throw new Error(`chart version "${spec.version}" is not SemVer 2 (e.g. 0.1.0): Helm refuses it`);
  if (!spec.appVersion) throw new Error('appVersion is empty: pass the version of the app (e.g. its image tag)');
  if (spec.kubeVersion !== undefined && !/^[\s<>=!~^|,.\-+*xX0-9a-zA-Z]+$/.test(spec.kubeVersion)) throw new Error(`kubeVersion "${spec.kubeVersion}" is not a semver constraint (e.g. ">=1.30.0-0")`);
}

/** The kubeVersion constraint of a chart: the spec's, or the minimum the used features need. */
export function kubeVersionConstraint(a: Pick<ChartAnalysis, 'minKube'>, spec: Pick<ChartSpec, 'kubeVersion'>): string {
  return spec.kubeVersion ?? `>=${a.minKube.version.major}.${a.minKube.version.minor}.0-0`;
}

/** The images of the workloads' containers, in Artifact Hub's `artifacthub.io/images` format. */
function artifactHubImages(a: ChartAnalysis): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const plan of a.workloads) {
    for (const c of plan.containers) {
      const list = get(plan.obj.raw, 'spec', 'template', 'spec', c.list);
      const image = Array.isArray(list) ? get(list[c.index], 'image') : undefined;
      if (typeof image !== 'string' || seen.has(image)) continue;
      seen.add(image);
      lines.push(`- name: ${JSON.stringify(c.name)}`, `  image: ${JSON.stringify(image)}`);
    }
  }
  return lines.join('\n') + '\n';
}

function chartYaml(spec: ChartSpec, kubeVersion: string, a: ChartAnalysis): string {
  const annotations: Record<string, string> = {
    'artifacthub.io/images': artifactHubImages(a),
    'artifacthub.io/prerelease': String(spec.version.replace(/\+.*$/, '').includes('-')),
    ...(spec.annotations ?? {}),
    [GENERATED_BY_ANNOTATION]: 'kubegrace',
  };
  if (a.adaptive.length) annotations['kubegrace.dev/kube-version-adaptive'] = a.adaptive.join('; ');
  if (!spec.kubeVersion && a.minKube.features.length) annotations['kubegrace.dev/kube-version-from'] = a.minKube.features.join('; ');
  // Versions and free text are always quoted: an appVersion like 1.10 must not become a number.
  // helm reads Chart.yaml with go-yaml: controls and line-break characters only as \u escapes.
  const q = (s: string) => yamlQuoted(s);
  const lines = [
    '# Generated by kubegrace from synthesized manifests; regenerate instead of editing.',
    'apiVersion: v2',
    `name: ${spec.name}`,
    `description: ${q(spec.description)}`,
    'type: application',
    `version: ${q(spec.version)}`,
    `appVersion: ${q(spec.appVersion)}`,
    `kubeVersion: ${q(kubeVersion)}`,
  ];
  if (spec.home) lines.push(`home: ${q(spec.home)}`);
  lines.push('keywords:', '  - kubegrace', '  - graceful-termination', 'annotations:');
  for (const k of Object.keys(annotations).sort()) lines.push(`  ${q(k)}: ${q(annotations[k])}`);
  return lines.join('\n') + '\n';
}

const HELMIGNORE = `# Patterns to ignore when packaging (helm package).
.DS_Store
.git/
.gitignore
*.swp
*.bak
*.tmp
*.orig
*~
`;

/** Markdown inline text from the manifests: no table, code or emphasis syntax, one line. */
function mdText(x: string): string {
  return x.replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}

/**
 * The README's install commands and where objects go. A chart whose manifests keep objects in other
 * namespaces that share kind and name with objects of the main namespace names the main namespace in
 * its commands and the release namespaces it refuses (refusals.ts releaseNamespaceCollisions).
 */
function installSection(spec: ChartSpec, a: ChartAnalysis, collisions: NamespaceCollision[]): string[] {
  const main = a.primaryNamespace;
  const ns = collisions.length && main !== undefined ? shellWord(main) : 'NS';
  const q = (x: string) => mdText(JSON.stringify(x));
  const code = (x: string) => (x.includes('`') || /[\r\n]/.test(x) ? mdText(x) : `\`${x}\``);
  const kept = [...new Set(a.objects.map(namespaceOf).filter((n): n is string => n !== undefined && n !== main))].sort();
  const out = [
    '```sh',
    `helm install RELEASE ./${spec.name} --namespace ${ns}            # from the chart directory`,
    `helm install RELEASE REPO/${spec.name} --version ${spec.version} --namespace ${ns}`,
    `helm template RELEASE ./${spec.name} --namespace ${ns} --kube-version 1.33.0   # else helm's built-in version (1.25 for helm 3.10)`,
    '```',
    '',
    'Objects are named `<release>-<chart>-<object>` (just `<release>` when it contains the chart name; `nameOverride` and',
    '`fullnameOverride` as in `helm create`). The Namespace object is created only with `namespace.create: true`.',
  ];
  if (main === undefined) out.push('Every namespaced object goes to the release namespace.');
  else if (!kept.length) out.push(`Every namespaced object goes to the release namespace (the manifests used ${q(main)}).`);
  else {
    out.push(
      `The objects of the manifests' main namespace ${q(main)} (and those naming no namespace) go to the release namespace;`,
      `the objects of ${kept.map(q).join(', ')} stay there, as the manifests wrote them. So a second release of the same name`,
      'in another namespace would render the same objects there, and `helm install` refuses it ("exists and cannot be',
      'imported into the current release": they belong to the first); give each release its own name.',
    );
  }
  if (collisions.length && main !== undefined) {
    const refused = collisions.map((c) => q(c.namespace));
    out.push(
      '',
      `**Install into ${q(main)}**, the manifests' main namespace, or into any namespace but ${refused.join(', ')}. Some objects the chart`,
      'keeps in those namespaces have the kind and name of an object it puts into the release namespace, so a release',
      'installed there would hold two objects of one name (`helm install` fails on the second: "already exists"). The chart',
      `refuses to render there with a message naming them: note that \`helm template\` without \`--namespace\` renders into`,
      '`default`.',
      '',
      ...collisions.map((c) => `- ${q(c.namespace)}: ${c.objects.map((o) => `${mdText(o.kind)} ${q(o.kept.name)}${o.onlyWithCreate ? ' (with `namespace.create: true`)' : ''}`).join(', ')}`),
      '',
      `To install into one of them, generate the chart with ${code(`kubegrace chart generate --namespace ${shellWord(main)}`)}: it keeps the objects of`,
      `${q(main)} (with the cluster-scoped ones and those naming no namespace) and leaves out those of ${refused.join(', ')}.`,
    );
  }
  out.push('');
  return out;
}

function readme(spec: ChartSpec, kubeVersion: string, a: ChartAnalysis, collisions: NamespaceCollision[]): string {
  const badge = (label: string, value: string) => `![${label}: ${value}](https://img.shields.io/badge/${encodeURIComponent(label)}-${encodeURIComponent(value.replace(/-/g, '--'))}-informational?style=flat-square)`;
  const out: string[] = [
    `# ${spec.name}`,
    '',
    `${badge('Version', spec.version)} ${badge('Type', 'application')} ${badge('AppVersion', spec.appVersion)}`,
    '',
    spec.description,
    '',
  ];
  out.push(
    'Generated by kubegrace from synthesized manifests: each value\'s default is what the kubegrace constructs',
    'synthesized, so installing with the defaults creates those objects, named after the release and in the',
    'release namespace, with the standard Helm labels.',
    '',
    '## Requirements',
    '',
    `Kubernetes: \`${kubeVersion}\`${a.minKube.features.length && !spec.kubeVersion ? ` (${a.minKube.features.join('; ')})` : ''}`,
    '',
    'Helm 3 (the chart is `apiVersion: v2`), 3.2 or newer for the `lookup` checks; tested with helm 3.10.1.',
    ...(a.adaptive.length
      ? ['', `Rendered by the cluster's version (\`.Capabilities.KubeVersion\`, or \`helm template --kube-version\`): ${a.adaptive.join('; ')}.`]
      : []),
    '',
    '## Install',
    '',
    ...installSection(spec, a, collisions),
    'Two releases can share a namespace: selectors carry `app.kubernetes.io/instance: <release>`. Selectors are',
    'immutable, so they hold only the synthesized selector labels and the release name, which stay the same for the',
    'life of a release: an upgrade (new chart or app version, other values, a nameOverride) never changes them.',
    '',
    '## Workloads',
    '',
    '| Workload | Values key | preStop | drain | grace (default) |',
    '|----------|------------|---------|-------|-----------------|',
  );
  const cell = (x: string) => x.replace(/[|\\`]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
  for (const p of a.workloads) {
    out.push(`| ${cell(p.what)} | \`workloads.${p.key}\` | ${p.defaults.preStop}s | ${p.defaults.drain}s${p.addend ? ` (+ ${cell(p.addendParts.join(', '))})` : ''} | ${p.defaults.grace}s |`);
  }
  out.push(
    '',
    '## Termination and rollout knobs',
    '',
    'A pod that is stopped first runs its **preStop** delay (`preStop.delaySeconds`): it keeps serving while its',
    'endpoint is removed from Services, proxies and load balancers. Then it gets SIGTERM and has **drain** seconds',
    '(`drainSeconds`, the `kubegrace.dev/drain-seconds` annotation) to finish in-flight work. Native sidecars stop',
    'after that, one by one. All of it must fit in **`terminationGracePeriodSeconds`**, after which the kubelet kills',
    'the pod. Raise the grace period together with the delays.',
    '',
    'Rollouts (`strategy` of a Deployment, `updateStrategy` of a DaemonSet or StatefulSet) start up to `maxSurge`',
    'new pods at a time with at most `maxUnavailable` missing; `minReadySeconds` is how long a new pod must stay',
    'Ready before the next one is replaced, and a Deployment\'s `progressDeadlineSeconds` must stay above it. The',
    'PodDisruptionBudget (`pdb`) limits evictions by `kubectl drain`; `spread` keeps replicas on different zones and nodes.',
    '',
  );
  const sidecars = a.workloads.flatMap((p) => p.nativeSidecars.map((n) => ({ p, n })));
  const meshes = a.workloads.filter((p) => p.mesh.nativeFallback);
  if (sidecars.length || meshes.length) {
    out.push(
      '## Native sidecars below Kubernetes 1.29',
      '',
      'Native sidecars (init containers with `restartPolicy: Always`) start before the app and get SIGTERM only after',
      'the app has exited. Kubernetes < 1.29 has none. A regular container gets SIGTERM at the start of termination,',
      'together with the app, so there it must be kept up through the app\'s preStop + drain.',
      '',
      ...(sidecars.length
        ? [
            'Below 1.29 the chart writes each native sidecar as a regular container in `containers` (same image, probes and',
            'values; no `restartPolicy`), kept up as its `classicFallback` value says. `drainFlags`: the program\'s own flags',
            '(known programs only); `execSleep`: a preStop `exec: [sleep, N]` with N = preStop + drain (the image needs a',
            '`sleep` binary: distroless and scratch images have none, and the preStop sleep action only exists from 1.30);',
            '`stopAtOnce`: nothing (it may stop before the app has drained); `refuse`: rendering below 1.29 fails with a',
            'message naming the value. Note: `kubegrace lint` judges every regular container\'s preStop like the app\'s (with',
            'the `kubegrace.dev/drain-seconds` of the pod), so an `execSleep` rendering can show `grace-period-budget` (and,',
            'next to a classic Linkerd proxy, `linkerd-proxy-drain`) warnings on the sidecar that overstate its need.',
            '',
          ]
        : []),
      'Start-up order is lost below 1.29: regular containers start together, so the app may start before its sidecar is',
      'ready. An app that needs the sidecar at start (a database proxy) should retry its first connections, or check',
      'the dependency in its startup or readiness probe.',
      '',
    );
    if (sidecars.length) {
      out.push(
        '| Workload | Sidecar | `classicFallback` default | Why |',
        '|----------|---------|---------------------------|-----|',
        ...sidecars.map(({ p, n }) => `| ${cell(p.what)} | \`${cell(n.name)}\` (\`${cell(n.valuesPath)}.classicFallback\`) | \`${n.defaultMode}\` | ${cell(n.why)} |`),
        '',
      );
    }
    if (meshes.length) {
      out.push(
        `Mesh proxies asked for as native sidecars (${meshes.map((p) => cell(p.what)).join(', ')}) are asked for as regular containers below 1.29, with`,
        'the drain the chart writes for classic proxies: Linkerd `proxy-wait-before-exit-seconds` and Istio `terminationDrainDuration`',
        '(in `proxy.istio.io/config`) of preStop + drain, at least one second more than the preStop.',
        '',
      );
    }
  }
  out.push(
    '## Guards',
    '',
    'The chart refuses to render (`helm template`, `helm install`, `helm upgrade` fail with a message naming the',
    'workload, the value and the fix) when the values would break a rollout or cut traffic. Those that mirror a',
    'kubegrace lint finding name the `workloads.<key>.acknowledge.<name>` value that accepts the risk; the workload',
    'then carries `kubegrace.dev/ignore` for that rule, with the reason:',
    '',
    '- preStop delay >= `terminationGracePeriodSeconds`, or preStop + drain (+ native sidecar drain) > the grace period',
    '  (`acknowledge.gracePeriodBudget`);',
    '- a served Deployment whose rollout stops every pod first: `Recreate` with 2+ replicas, or a `maxUnavailable`',
    '  reaching all replicas without surge, e.g. `100%` with `maxSurge: 0` (`acknowledge.rolloutOutage`);',
    '- a PodDisruptionBudget that allows no eviction for the replicas (`maxUnavailable` 0, or `minAvailable` that',
    '  rounds up to all replicas; with an HPA, its `minReplicas`) (`acknowledge.pdbBlocksEviction`);',
    '- a Linkerd proxy wait (derived from preStop + drain) at or above the grace period (`acknowledge.meshDrain`);',
    '- behind AWS load balancer IP targets: a release namespace without the `elbv2.k8s.aws/pod-readiness-gate-inject`',
    '  label, checked with `lookup` at install and upgrade (`acknowledge.namespaceWithoutReadinessGate`).',
    '',
    'Refused without override, because the API would reject them: `maxSurge` and `maxUnavailable` both 0,',
    '`minReadySeconds` >= `progressDeadlineSeconds`, a PDB with both or neither of its fields, HPA `minReplicas` > `maxReplicas`,',
    'a preStop `sleep` action longer than `terminationGracePeriodSeconds` (Kubernetes >= 1.30, where the chart writes it).',
    'Type, range and enum errors (and unknown keys) are refused by `values.schema.json`.',
    '',
    'The default values pass every guard (kubegrace refuses to generate a chart whose defaults would not): an',
    '`acknowledge` value defaults to true only where the manifests suppressed that rule on the object',
    `(\`kubegrace.dev/ignore\`).${a.workloads.some((p) => p.nativeSidecars.some((n) => n.defaultMode === 'refuse')) ? ' A native sidecar whose `classicFallback` defaults to `refuse` needs Kubernetes >= 1.29.' : ''}`,
    '',
    '## Values',
    '',
    valuesTable(a.values).replace(/\n$/, ''),
  );
  return out.join('\n') + '\n';
}

/** Fails when the chart's own defaults do not satisfy its schema: the manifests hold a value the API would reject. */
function checkDefaults(schema: JsonObject, defaults: JsonObject): void {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  if (!validate(defaults)) {
    const e = validate.errors![0];
    throw new Error(`the manifests give ${e.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'the values'} a value the chart's schema refuses (${e.message}): fix the manifests (the API would reject it as well)`);
  }
}

export interface GenerateOptions {
  /** Only the objects of this namespace (with the cluster-scoped ones): one chart per namespace. */
  namespace?: string;
}

/**
 * Every file of the chart by relative path (no I/O): what generateChart writes. Refuses (throws, saying
 * where and what to change) the same object twice in one namespace and values the chart's own guards
 * would refuse with its defaults (refusals.ts): a chart it returns renders with its default values in the
 * manifests' main namespace. One kind and name in the main namespace and another one N is generated, with
 * a guard that refuses N as release namespace; `placement` (when given) receives those namespaces.
 */
export function buildChartFiles(manifests: string | ManifestSource[], spec: ChartSpec, opts: GenerateOptions = {}, placement?: ChartPlacement): Map<string, string> {
  checkSpec(spec);
  let objects = readObjects(manifests);
  if (!objects.length) throw new Error('the manifests hold no Kubernetes objects: synthesize the app first');
  if (opts.namespace !== undefined) objects = selectNamespace(objects, opts.namespace);
  const a = analyze(objects);
  const duplicate = duplicateObjects(a);
  if (duplicate) throw new Error(duplicate);
  // One kind and name in two namespaces: the chart refuses the release namespaces where they would be one object.
  const collisions = releaseNamespaceCollisions(a);
  if (placement) {
    placement.refusedNamespaces = collisions.map((c) => c.namespace);
    if (a.primaryNamespace !== undefined) placement.mainNamespace = a.primaryNamespace;
  }
  const schema = valuesSchema(a.values, `Values of the ${spec.name} chart`);
  checkDefaults(schema, defaultsOf(a.values));
  // A chart must render with its defaults: refuse what its own guards would refuse (or default an
  // acknowledge value to true where the manifests suppress that rule on the object).
  acceptGuards(a, (x) => defaultsOf(x.values));
  const kubeVersion = kubeVersionConstraint(a, spec);
  const t = new ChartTemplates(spec.name, a, collisions);

  const files = new Map<string, string>();
  files.set('Chart.yaml', chartYaml(spec, kubeVersion, a));
  files.set(
    'values.yaml',
    valuesYaml(a.values, [
      `Values of the ${spec.name} chart, generated by kubegrace from synthesized manifests.`,
      'Every default is what the constructs synthesized. values.schema.json checks types and ranges, and',
      'templates/_guards.tpl refuses unsafe combinations (see README.md, "Guards").',
    ]),
  );
  files.set('values.schema.json', JSON.stringify(schema, null, 2) + '\n');
  files.set('README.md', readme(spec, kubeVersion, a, collisions));
  files.set('.helmignore', HELMIGNORE);
  files.set('templates/_helpers.tpl', t.helpers());
  files.set('templates/_guards.tpl', t.guards());
  files.set('templates/NOTES.txt', t.notes());
  for (const f of t.objectFiles()) files.set(f.path, f.text);
  return new Map([...files.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** Why an existing path may not be replaced by a generated chart, or undefined when it may. */
export function replaceRefusal(dir: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${dir} cannot be inspected (${(e as Error).message})`;
  }
  if (st.isSymbolicLink()) return `${dir} is a symbolic link; kubegrace never replaces a link or what it points to`;
  if (!st.isDirectory()) return `${dir} exists and is not a directory`;
  const entries = fs.readdirSync(dir);
  if (entries.length === 0) return undefined;
  const marker = path.join(dir, 'Chart.yaml');
  const notOurs = `${dir} exists and was not generated by kubegrace (no Chart.yaml with the annotation ${GENERATED_BY_ANNOTATION}: kubegrace); refusing to replace it: choose another --out or --name, or remove it yourself`;
  let mst: fs.Stats;
  try {
    mst = fs.lstatSync(marker);
  } catch {
    return notOurs;
  }
  if (!mst.isFile()) return notOurs;
  let annotations: unknown;
  try {
    const doc = parseDocument(fs.readFileSync(marker, 'utf8'));
    annotations = (doc.toJS() as { annotations?: unknown } | null)?.annotations;
  } catch {
    return notOurs;
  }
  if (!isObject(annotations as Json) || (annotations as JsonObject)[GENERATED_BY_ANNOTATION] !== 'kubegrace') return notOurs;
  // Everything below must be a plain file or directory: a link or a device is not something kubegrace wrote.
  const walk = (d: string): string | undefined => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        const r = walk(p);
        if (r) return r;
      } else if (!e.isFile()) return `${p} is not a regular file or directory (${e.isSymbolicLink() ? 'a symbolic link' : 'a special file'}), so ${dir} is not only what kubegrace generated; refusing to replace it: remove it yourself`;
    }
    return undefined;
  };
  return walk(dir);
}

/**
 * Builds a chart from synthesized manifests (multi-doc YAML text) into outDir/<spec.name>/.
 * An existing outDir/<spec.name> is replaced only when kubegrace generated it (Chart.yaml with the
 * generated-by annotation, nothing but regular files and directories below); anything else is
 * refused and left untouched. The new chart is written next to it and swapped in by renames, so a
 * failure leaves the old chart in place. Deterministic: byte-identical output for the same input.
 */
export function generateChart(manifests: string | ManifestSource[], spec: ChartSpec, outDir: string, opts: GenerateOptions = {}): GeneratedChart {
  const placement: ChartPlacement = { refusedNamespaces: [] };
  const files = buildChartFiles(manifests, spec, opts, placement);
  const dir = path.join(outDir, spec.name);
  const refusal = replaceRefusal(dir);
  if (refusal) throw new Error(refusal);
  fs.mkdirSync(outDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(outDir, `.${spec.name}.kubegrace-new-`));
  let old: string | undefined;
  try {
    for (const [rel, text] of files) {
      const file = path.join(tmp, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text, { flag: 'wx' });
    }
    fs.chmodSync(tmp, 0o755);
    if (fs.existsSync(dir)) {
      old = `${tmp.replace('-new-', '-old-')}`;
      fs.renameSync(dir, old);
    }
    fs.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (old && !fs.existsSync(dir)) fs.renameSync(old, dir);
    throw e;
  }
  if (old) fs.rmSync(old, { recursive: true, force: true });
  return { dir, files: [...files.keys()], ...placement };
}
