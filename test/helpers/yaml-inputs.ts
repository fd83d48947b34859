/**
 * Inputs of the property/fuzz suites: seed manifests (fixtures and the smallest corpus files),
 * tokens that stress YAML 1.1 resolution, and seed manifests with random edits. Shared by
 * test/fuzz (nothing crashes) and test/model/fast-yaml.test.ts (both parse paths agree).
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';

const FIXTURES = path.resolve(__dirname, '../fixtures');
export const CORPUS_DIR = path.resolve(__dirname, '../../../shared/corpus');

export const SEEDS = [
  fs.readFileSync(path.join(FIXTURES, 'bad-grace.yaml'), 'utf8'),
  fs.readFileSync(path.join(FIXTURES, 'good.yaml'), 'utf8'),
  ...(fs.readdirSync(path.join(FIXTURES, 'apps'), { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f)).sort().slice(0, 6).map((f) => fs.readFileSync(path.join(FIXTURES, 'apps', f), 'utf8')),
  // The smallest real manifests of the shared corpus.
  ...(() => {
    const dir = path.join(CORPUS_DIR, 'rendered');
    if (!fs.existsSync(dir)) return [];
    return fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).sort((a, b) => a.length - b.length).slice(0, 4);
  })(),
].filter((t) => t.length < 20000);

/** Tokens that stress YAML 1.1 resolution, merges, aliases, tags and quoting. */
export const TOKENS = ['010', '0x1F', '0b11', '0o17', '1e3', 'yes', 'off', 'y', '~', '.inf', '.nan', '1_000', '1:30', '2001-01-01', '"q"', "'s'", '!!int "7"', '!!str 5', '!!binary aGk=', '&a', '*a', '<<: {x: 1}', '<<: [*a]', '[', ']', '{', '}', '---', '...', '#', '? ', ': ', '- ', '|', '>', '\t', '\u001b[31m', '\u0085', 'é', '\ufeff', '%YAML 1.1', '"\\u0000"', 'terminationGracePeriodSeconds: "5"', 'replicas: 2.5'];

/** A seed manifest with random edits: token insertions, line deletions, duplications. */
export function mutatedFrom(seeds: string[], tokens: string[] = TOKENS): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 6 })), fc.constantFrom('insert', 'delete-line', 'dup-line', 'replace-value')), { maxLength: 6 }),
    )
    .map(([text, edits]) => {
      let t = text;
      for (const [at, tok, op] of edits) {
        const lines = t.split('\n');
        const i = at % Math.max(1, lines.length);
        if (op === 'delete-line') lines.splice(i, 1);
        else if (op === 'dup-line') lines.splice(i, 0, lines[i] ?? '');
        else if (op === 'replace-value') lines[i] = (lines[i] ?? '').replace(/:\s.*$/, `: ${tok}`);
        else {
          const l = lines[i] ?? '';
          const c = at % (l.length + 1);
          lines[i] = l.slice(0, c) + tok + l.slice(c);
        }
        t = lines.join('\n');
      }
      return t;
    });
}

export const mutated = mutatedFrom(SEEDS);

/** Random token soup: short texts mixing the tokens with keys, lines and kinds. */
export const tokenText = fc.array(fc.constantFrom(...TOKENS, '\n', ' ', 'a: ', 'kind: Deployment\n'), { maxLength: 60 }).map((a) => a.join(''));
