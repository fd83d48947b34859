import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { parseAllDocuments } from 'yaml';
import { ManifestSource } from '../helm/analyze';
import { generateChart } from '../helm/generate';
import { packageChart } from '../helm/package';
import { writeRepoIndex } from '../helm/repo-index';
import { CliIO, UsageError } from './io';

export const CHART_USAGE = `Usage:
  kubegrace chart generate MANIFEST... --name NAME [--version V] [--app-version V]
                            [--description TEXT] [--kube-version CONSTRAINT] [--namespace NS] [--out DIR]
  kubegrace chart package CHART_DIR... [--out DIR] [--index] [--url URL]
  kubegrace chart index [DIR] [--url URL]

generate  turns synthesized manifests (files or directories of YAML, e.g. your cdk8s app's dist/)
          into a Helm chart DIR/NAME (default DIR: dist/charts) whose values expose the rollout and
          termination knobs, with values.schema.json, guards refusing unsafe combinations,
          README.md and NOTES.txt. Defaults: --version 0.1.0, --app-version = the first
          workload's image tag, --kube-version derived from the features the manifests use.
          Objects of the main namespace (the most used) go to the release namespace, others keep
          theirs; where one kind and name is in both, the chart refuses the release namespaces that
          would hold it twice (it says which on stdout and in its README). The same kind and name
          twice in one namespace is refused (exit 1). --namespace NS keeps the objects of NS (with
          those naming no namespace and the cluster-scoped ones). Manifests the chart's own guards
          would refuse are refused (exit 1) unless the object's kubegrace.dev/ignore names the rule:
          the chart then acknowledges it.
package   writes reproducible DIR/<name>-<version>.tgz (default DIR: dist/packages; timestamps
          from SOURCE_DATE_EPOCH or fixed), and with --index also DIR/index.yaml.
index     writes DIR/index.yaml (Helm repository index with sha256 digests) for the .tgz in DIR;
          --url prefixes the chart URLs (default: relative file names).

Exit codes: 0 done, 1 a chart could not be generated or packaged (manifests its own guards would refuse,
            the same object twice in one namespace, an output directory it may not replace), 2 usage
            error or input that is not YAML.
`;

/** The manifest files (directories read recursively, *.yaml and *.yml), named relative to cwd for messages. */
function readManifests(paths: string[], cwd: string): ManifestSource[] {
  const files: string[] = [];
  const add = (p: string): void => {
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p).sort()) if (/\.ya?ml$/i.test(e) || fs.statSync(path.join(p, e)).isDirectory()) add(path.join(p, e));
    } else files.push(p);
  };
  for (const p of paths) {
    const abs = path.resolve(cwd, p);
    if (!fs.existsSync(abs)) throw new UsageError(`${p}: no such file or directory`);
    add(abs);
  }
  if (!files.length) throw new UsageError(`no YAML manifests found in ${paths.join(', ')}`);
  const sources = files.map((f) => ({ file: path.relative(cwd, f) || f, text: fs.readFileSync(f, 'utf8') }));
  for (const { file, text } of sources) {
    for (const d of parseAllDocuments(text)) {
      const err = 'errors' in d ? d.errors[0] : undefined;
      if (err) throw new UsageError(`${file}: not valid YAML (${err.message.split('\n')[0]}); generate charts from synthesized manifests`);
    }
  }
  return sources;
}

/** The tag of the first container image in the manifests, for a default appVersion. */
export function firstImageTag(manifests: string): string | undefined {
  const m = /^\s*-?\s*image:\s*["']?[^\s"'@]+:([\w][\w.-]{0,127})["']?\s*$/m.exec(manifests);
  return m?.[1];
}

export async function runChart(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout(CHART_USAGE);
    return sub === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      version: { type: 'string' },
      'app-version': { type: 'string' },
      description: { type: 'string' },
      'kube-version': { type: 'string' },
      namespace: { type: 'string' },
      out: { type: 'string' },
      index: { type: 'boolean' },
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(CHART_USAGE);
    return 0;
  }
  try {
    return await chartCommand(sub, values, positionals, io);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    // Bad Chart.yaml, unwritable output, …: the library's message says what to fix.
    io.stderr(`kubegrace chart ${sub}: ${(e as Error).message}\n`);
    return 1;
  }
}

interface ChartFlags {
  name?: string;
  version?: string;
  'app-version'?: string;
  description?: string;
  'kube-version'?: string;
  namespace?: string;
  out?: string;
  index?: boolean;
  url?: string;
}

async function chartCommand(sub: string, values: ChartFlags, positionals: string[], io: CliIO): Promise<number> {
  const cwd = io.cwd;
  switch (sub) {
    case 'generate': {
      if (!positionals.length) throw new UsageError('chart generate needs the synthesized manifests (files or directories)');
      if (!values.name) throw new UsageError('chart generate needs --name (the chart name)');
      const manifests = readManifests(positionals, cwd);
      const out = path.resolve(cwd, values.out ?? 'dist/charts');
      const chart = generateChart(
        manifests,
        {
          name: values.name,
          version: values.version ?? '0.1.0',
          appVersion: values['app-version'] ?? firstImageTag(manifests.map((m) => m.text).join('\n')) ?? values.version ?? '0.1.0',
          description: values.description ?? `${values.name}: generated by kubegrace`,
          ...(values['kube-version'] ? { kubeVersion: values['kube-version'] } : {}),
        },
        out,
        values.namespace !== undefined ? { namespace: values.namespace } : {},
      );
      io.stdout(`generated ${path.relative(cwd, chart.dir) || chart.dir} (${chart.files.length} files)\n`);
      if (chart.refusedNamespaces.length && chart.mainNamespace !== undefined) {
        const q = (n: string) => JSON.stringify(n);
        io.stdout(
          `install it into namespace ${q(chart.mainNamespace)} (the manifests' main namespace) or another than ${chart.refusedNamespaces.map(q).join(', ')}: ` +
            `objects the manifests keep there share kind and name with objects of ${q(chart.mainNamespace)}, so the chart refuses those release namespaces (its README.md says which objects)\n`,
        );
      }
      return 0;
    }
    case 'package': {
      if (!positionals.length) throw new UsageError('chart package needs one or more chart directories');
      const out = path.resolve(cwd, values.out ?? 'dist/packages');
      for (const dir of positionals) {
        const r = await packageChart(path.resolve(cwd, dir), out);
        io.stdout(`packaged ${path.relative(cwd, r.file)} sha256:${r.digest}\n`);
      }
      if (values.index) {
        const idx = await writeRepoIndex(out, values.url ? { url: values.url } : {});
        io.stdout(`wrote ${path.relative(cwd, idx)}\n`);
      }
      return 0;
    }
    case 'index': {
      if (positionals.length > 1) throw new UsageError('chart index takes one directory');
      const dir = path.resolve(cwd, positionals[0] ?? 'dist/packages');
      if (!fs.existsSync(dir)) throw new UsageError(`${positionals[0] ?? 'dist/packages'}: no such directory`);
      const idx = await writeRepoIndex(dir, values.url ? { url: values.url } : {});
      io.stdout(`wrote ${path.relative(cwd, idx)}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown chart command "${sub}": use generate, package or index`);
  }
}
