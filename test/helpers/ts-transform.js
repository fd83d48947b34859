/**
 * jest's TypeScript transformer: ts-jest (tsconfig.test.json: isolatedModules, transpile only), except
 * for a source of the package (lib/, charts-src/, bench/, scripts/) that `npm run build` has
 * compiled from exactly this text: that file's JavaScript and source map are taken from build/.
 *
 * Why: `npm test` builds first, and on a fresh clone (CI: no jest cache) ts-jest would compile all of
 * lib/ again, in each jest worker (~1.5 MB of TypeScript, several CPU-seconds per worker). The build
 * output is the code the package ships, compiled by tsc with the repository's tsconfig.json.
 *
 * "Exactly this text": tsc -b records in build/.tsbuildinfo the sha256 of every source it compiled
 * (fileInfos[].version); a source is taken from build/ only when the sha256 of the text jest hands
 * over is that version and tsc has no emit pending for it. An edited source not rebuilt yet (a
 * developer running `npx jest` after an edit), a deleted or missing output, or no build at all: ts-jest,
 * as before. Test files are not in tsconfig.json's program and always go through ts-jest.
 */
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { TsJestTransformer } = require('ts-jest');

const ROOT = path.resolve(__dirname, '../..');
const BUILD = path.join(ROOT, 'build');
const BUILD_INFO = path.join(BUILD, '.tsbuildinfo');
/** tsconfig.json's include (rootDir "."; outDir build). */
const PACKAGE_DIRS = ['lib', 'charts-src', 'bench', 'scripts'].map((d) => path.join(ROOT, d) + path.sep);

let recorded; // { key, versions: Map<absolute source path, sha256> }

/** The sources tsc -b compiled and emitted, with the sha256 of the text it compiled (re-read when the build info changes). */
function compiledVersions() {
  let st;
  try {
    st = fs.statSync(BUILD_INFO);
  } catch {
    return undefined;
  }
  const key = `${st.mtimeMs} ${st.size}`;
  if (recorded && recorded.key === key) return recorded.versions;
  const versions = new Map();
  try {
    const info = JSON.parse(fs.readFileSync(BUILD_INFO, 'utf8'));
    // File ids are 1-based positions in fileNames; pending entries are an id or [id, kind].
    const pending = new Set((info.affectedFilesPendingEmit || []).map((e) => (Array.isArray(e) ? e[0] : e)));
    (info.fileNames || []).forEach((name, i) => {
      const fi = (info.fileInfos || [])[i];
      const version = typeof fi === 'string' ? fi : fi && fi.version;
      if (typeof version === 'string' && !pending.has(i + 1)) versions.set(path.resolve(BUILD, name), version);
    });
  } catch {
    // Unreadable build info: no file is taken from build/.
  }
  recorded = { key, versions };
  return versions;
}

/** The compiled JavaScript and source map of `sourcePath` when build/ holds them for exactly `sourceText`. */
function fromBuild(sourceText, sourcePath) {
  if (!sourcePath.endsWith('.ts') || sourcePath.endsWith('.d.ts') || !PACKAGE_DIRS.some((d) => sourcePath.startsWith(d))) return undefined;
  const version = compiledVersions()?.get(sourcePath);
  if (!version || crypto.createHash('sha256').update(sourceText).digest('hex') !== version) return undefined;
  const out = path.join(BUILD, path.relative(ROOT, sourcePath)).replace(/\.ts$/, '.js');
  let code;
  let map;
  try {
    code = fs.readFileSync(out, 'utf8');
    map = JSON.parse(fs.readFileSync(`${out}.map`, 'utf8'));
  } catch {
    return undefined;
  }
  // The map's sources are relative to build/; jest runs the code as the source file itself.
  map.sources = [sourcePath];
  delete map.sourceRoot;
  map.file = path.basename(sourcePath);
  return { code: code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), map };
}

class Transformer {
  constructor(options) {
    this.tsJest = new TsJestTransformer(options);
    this.getCacheKey = this.getCacheKey.bind(this);
    this.getCacheKeyAsync = this.getCacheKeyAsync.bind(this);
    this.process = this.process.bind(this);
    this.processAsync = this.processAsync.bind(this);
  }

  getCacheKey(sourceText, sourcePath, options) {
    const built = fromBuild(sourceText, sourcePath);
    if (!built) return this.tsJest.getCacheKey(sourceText, sourcePath, options);
    return crypto.createHash('sha256').update('kubegrace build output\0').update(sourcePath).update('\0').update(built.code).update('\0').update(JSON.stringify(built.map)).digest('hex');
  }

  async getCacheKeyAsync(sourceText, sourcePath, options) {
    return this.getCacheKey(sourceText, sourcePath, options);
  }

  process(sourceText, sourcePath, options) {
    return fromBuild(sourceText, sourcePath) ?? this.tsJest.process(sourceText, sourcePath, options);
  }

  async processAsync(sourceText, sourcePath, options) {
    return fromBuild(sourceText, sourcePath) ?? this.tsJest.processAsync(sourceText, sourcePath, options);
  }
}

module.exports = { createTransformer: (options) => new Transformer(options) };
