/**
 * The catalog's image tests (imageTest: `*\/name` globs by string comparison, others by regular
 * expression) give exactly imageGlob's verdict, for every glob of the built-in catalog and for
 * images that end, contain or almost contain their names.
 */
import fc from 'fast-check';
import { builtinCatalog, imageGlob, imageTest } from '../../lib/catalog';

const GLOBS = [...new Set(builtinCatalog().entries.flatMap((e) => e.match.images ?? []))].concat(['*/a.b', '*/x?y', 'exact/name', '*/pre*', 'reg.io/*/app']);

describe('catalog image tests', () => {
  test('every glob: the regular expression\'s verdict on names, paths and near misses', () => {
    for (const g of GLOBS) {
      const name = g.replace(/^\*\//, '').replace(/\*/g, 'zz');
      const images = [name, `/${name}`, `x/${name}`, `a/b/${name}`, `${name}x`, `x${name}`, `x-${name}`, `x/${name}/y`, `${name}/`, '', 'traefik', `docker.io/${name}`, name.toUpperCase(), `axb`, `a.b`, `x/a.b`, 'xy', 'x?y', 'reg.io/q/app', 'reg.io/app'];
      const test = imageTest(g);
      const re = imageGlob(g);
      for (const i of images) expect([g, i, test(i)]).toEqual([g, i, re.test(i)]);
    }
  });

  test('random images: the same verdicts', () => {
    const unit = fc.constantFrom('a', 'b', '.', '/', '-', 'traefik', 'haproxy', 'library/', 'etcd', 'otelcol', 'x');
    // Each glob's two testers are made once (imageGlob compiles a regular expression per call); a run
    // collects the globs whose verdicts differ, and one assertion per run checks there are none.
    const pairs = GLOBS.map((g) => ({ g, test: imageTest(g), re: imageGlob(g) }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (i) => {
        const differ = pairs.filter((p) => p.test(i) !== p.re.test(i)).map((p) => [p.g, i]);
        expect(differ).toEqual([]);
      }),
      { numRuns: 3000, seed: 4 },
    );
  });
});
