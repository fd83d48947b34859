import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { Config, discoverConfig, loadConfig, loadPolicy, withOverrides } from '../engine/policy';
import { DEFAULT_KUBE_VERSION, KubeVersion, supportedKubeVersion } from '../engine/version';
import { explainSources, looksLikeWorkloadRef, timelinesSvg, timelinesText, workloadRef } from '../explain';
import { helmChartRenderer } from '../helm/render';
import { collectSources } from '../model/sources';
import { escapeControl } from '../report/escape';
import { ALL_RULES } from '../rules';
import { CliIO, UsageError, writeAtomic } from './io';

export const EXPLAIN_USAGE = `Usage: kubegrace explain PATH... [--object KIND/NAME] [--format text|svg] [--output FILE]

Draws each workload's termination timeline (endpoint removal, preStop, SIGTERM, drain, sidecar and
mesh proxy shutdown, grace deadline, SIGKILL) with its budget, violations and lint findings, and
its rollout (strategy, steps, minReadySeconds, expected duration, PDB and spreading notes).

Options:
  --object KIND/NAME    only this workload (also KIND/NAMESPACE/NAME; kubectl short kinds work)
  -f, --format text|svg text: a terminal drawing (default); svg: one self-contained SVG with a
                        panel per workload, stacked
  -o, --output FILE     write to FILE instead of stdout
  --kube-version X.Y    target Kubernetes version (default ${DEFAULT_KUBE_VERSION.toString()})
  --policy NAME|FILE    policy whose rule settings the findings use (default recommended)
  --config FILE         config file (default: .kubegrace.yaml found upward)
  --values FILE         values for a Helm chart PATH (rendered with helm template); repeatable
  -n, --namespace NS    the namespace of objects that name none, as in kubegrace lint (charts are
                        rendered with it)
  --no-color            never colour the text (colour is used only on a terminal, and never with NO_COLOR)

Exit codes: 0 drawn; 2 usage error, no workload in the input, --object not found, or input that
cannot be read or parsed (the workloads that did parse are still drawn).
`;

export function runExplain(argv: string[], io: CliIO): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      object: { type: 'string' },
      format: { type: 'string', short: 'f' },
      output: { type: 'string', short: 'o' },
      'kube-version': { type: 'string' },
      policy: { type: 'string' },
      config: { type: 'string' },
      values: { type: 'string', multiple: true },
      namespace: { type: 'string', short: 'n' },
      color: { type: 'boolean' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(EXPLAIN_USAGE);
    return 0;
  }
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'svg') throw new UsageError(`unknown format "${format}": use text or svg`);
  if (!positionals.length) throw new UsageError('no PATH given: name a manifest file or directory, or - for stdin');
  if (values.object !== undefined && !/^[^/]+\/[^/]+(\/[^/]+)?$/.test(values.object)) throw new UsageError(`--object "${values.object}" is not KIND/NAME (e.g. Deployment/web) or KIND/NAMESPACE/NAME`);

  let config: Config = {};
  const configFile = values.config ? path.resolve(io.cwd, values.config) : discoverConfig(io.cwd);
  if (values.config && !fs.existsSync(configFile!)) throw new UsageError(`config file ${values.config} does not exist`);
  if (configFile) config = loadConfig(configFile, ALL_RULES);
  let version: KubeVersion;
  try {
    version = values['kube-version'] !== undefined ? supportedKubeVersion(values['kube-version']) : config.kubernetesVersion ? supportedKubeVersion(config.kubernetesVersion, 'kubernetesVersion') : DEFAULT_KUBE_VERSION;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const policy = withOverrides(loadPolicy(values.policy ?? config.policy ?? 'recommended', ALL_RULES, io.cwd), config.rules);

  const valuesFiles = (values.values ?? []).map((f) => path.resolve(io.cwd, f));
  for (const [i, f] of valuesFiles.entries()) if (!fs.existsSync(f)) throw new UsageError(`values file ${values.values![i]} does not exist`);
  // A chart directory is rendered as lint renders it; its failures come back as input errors.
  const renderChart = helmChartRenderer({ kubeVersion: version.toString(), valuesFiles, ...(values.namespace !== undefined ? { namespace: values.namespace } : {}) });
  const { sources, errors } = collectSources(positionals, { cwd: io.cwd, readStdin: io.readStdin, renderChart });
  // Files and stdin are applied into --namespace as lint applies them (review round 15: explain had no way to say it).
  if (values.namespace !== undefined) for (const s of sources) if (s.namespace === undefined) s.applyNamespace = values.namespace;
  // A missing path that reads as a workload (`explain FILE deploy/web`, as kubectl takes it): say how to pick one.
  for (const e of errors) {
    if (values.object === undefined && looksLikeWorkloadRef(e.file) && !fs.existsSync(path.resolve(io.cwd, e.file))) e.message += `; to draw only this workload, pass it as --object ${e.file}`;
  }
  const run = explainSources(sources, { rules: ALL_RULES, policy, version, object: values.object }, errors);
  // Input errors are reported like lint's, and never hide the workloads that did parse.
  for (const e of run.errors) io.stderr(`${escapeControl(e.file)}:${e.line}:${e.column} error input ${escapeControl(e.message)}\n`);
  const inputs = positionals.join(' ');
  if (!run.workloads.length && !run.timelines.length) {
    io.stderr(`kubegrace: no workload (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob) in ${inputs}${run.errors.length ? ' that could be parsed' : ''}\n`);
    return 2;
  }
  if (!run.timelines.length) {
    const list = run.workloads.map((w) => `  ${workloadRef(w)}  (${w.obj.file}:${w.obj.line})`).join('\n');
    io.stderr(`kubegrace: --object ${values.object} not found in ${inputs}; the workloads there are:\n${list}\n`);
    return 2;
  }
  let text: string;
  if (format === 'svg') text = timelinesSvg(run.timelines);
  else {
    const color = values.output === undefined && !values['no-color'] && (values.color || io.stdoutIsTTY) && !process.env.NO_COLOR;
    text = timelinesText(run.timelines, { color: !!color });
  }
  if (values.output !== undefined) writeAtomic(path.resolve(io.cwd, values.output), text);
  else io.stdout(text);
  return run.errors.length ? 2 : 0;
}
