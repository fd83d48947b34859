/** Developer aid: time each rule's check on the benchmark input. `node build/scripts/rule-profile.js` */
import { builtinCatalog } from '../lib/catalog';
import { ObjectGraph } from '../lib/model/graph';
import { parseSources } from '../lib/engine/run';
import { KubeVersion } from '../lib/engine/version';
import { ALL_RULES } from '../lib/rules';
import { generate } from '../bench/generate';

const { sources } = generate(2600);
const objects = parseSources(sources).flatMap((p) => p.objects);
const t0 = Date.now();
const graph = new ObjectGraph(objects);
console.log(`graph: ${Date.now() - t0} ms`);
const times: Array<[string, number]> = [];
for (const rule of ALL_RULES) {
  let n = 0;
  const s = process.hrtime.bigint();
  for (let i = 0; i < 3; i++) rule.check({ graph, catalog: builtinCatalog(), version: KubeVersion.parse('1.33'), params: { ...(rule.meta.defaults ?? {}) }, paramsOf: (id) => ({ ...(ALL_RULES.find((r) => r.meta.id === id)?.meta.defaults ?? {}) }), report: () => (n++, true), active: () => true });
  times.push([rule.meta.id, Number(process.hrtime.bigint() - s) / 3e6]);
}
for (const [id, ms] of times.sort((a, b) => b[1] - a[1])) console.log(`${ms.toFixed(1).padStart(8)} ms  ${id}`);
