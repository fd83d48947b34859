/**
 * Issue 12 regressions through the built CLI: no data loss (overlapping inputs, symlinks, BOM,
 * concurrent edits, read-only and hard-linked files, --output onto an input), bounded inputs
 * (FIFOs, devices, size limit, stdin checks), failures as reports (unreadable paths, unwritable
 * outputs, closed pipes) and per-document recovery.
 */
import { spawn, spawnSync } from 'child_process';
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fileHolds, writeAtomic, WriteRefused, writeText, writeTexts } from '../../lib/cli/io';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const BAD_GRACE = fs.readFileSync(path.join(ROOT, 'test/fixtures/bad-grace.yaml'), 'utf8');

function kg(args: string[], cwd: string, input: string | Buffer = '') {
  const r = runCli(args, { cwd, input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kg-hard-'));
const json = (stdout: string) => JSON.parse(stdout) as { findings: Array<{ ruleId: string; file: string; message: string }>; errors: Array<{ file: string; line: number; column: number; message: string }>; summary: { files: number; objects: number } };
const grace = (f: string) => /terminationGracePeriodSeconds: (\d+)/.exec(fs.readFileSync(f, 'utf8'))![1];

describe('item 2: overlapping inputs are read once', () => {
  test('dir + file in it, ./x and $PWD/x, a symlink to a file in the set', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'deploy'));
    fs.writeFileSync(path.join(d, 'deploy/web.yaml'), BAD_GRACE);
    fs.symlinkSync('web.yaml', path.join(d, 'deploy/link.yaml'));
    const once = json(kg(['lint', 'deploy/web.yaml', '--format', 'json'], d).stdout);
    const r = json(kg(['lint', 'deploy', 'deploy/web.yaml', './deploy/web.yaml', path.join(d, 'deploy/web.yaml'), '--format', 'json'], d).stdout);
    expect(r.summary).toEqual(once.summary);
    expect(r.findings).toEqual(once.findings);
  });

  test('--fix applies each repair once although the file is named three times', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    const r = kg(['lint', 'x.yaml', './x.yaml', path.join(d, 'x.yaml'), '--fix'], d);
    expect(r.stderr).toContain('fixed 1 problem in 1 file');
    expect(grace(path.join(d, 'x.yaml'))).toBe('40');
  });
});

describe('item 3: --fix on a symbolic link writes through to the target', () => {
  test('the link stays a link; the target is fixed', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'real'));
    fs.writeFileSync(path.join(d, 'real/x.yaml'), BAD_GRACE);
    fs.symlinkSync('real/x.yaml', path.join(d, 'link.yaml'));
    const r = kg(['lint', 'link.yaml', '--fix'], d);
    expect(r.stderr).toContain('fixed 1 problem');
    expect(fs.lstatSync(path.join(d, 'link.yaml')).isSymbolicLink()).toBe(true);
    expect(grace(path.join(d, 'real/x.yaml'))).toBe('40');
    expect(fs.readdirSync(path.join(d, 'real'))).toEqual(['x.yaml']);
  });
});

describe('item 4: --fix keeps the BOM, refuses read-only and hard-linked files, never overwrites a concurrent edit', () => {
  test('a UTF-8 byte-order mark is kept', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), '\ufeff' + BAD_GRACE);
    kg(['lint', 'x.yaml', '--fix'], d);
    const b = fs.readFileSync(path.join(d, 'x.yaml'));
    expect([...b.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(grace(path.join(d, 'x.yaml'))).toBe('40');
  });

  test('a read-only file is refused with the reason, the others are fixed, exit 2', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'ro.yaml'), BAD_GRACE);
    fs.chmodSync(path.join(d, 'ro.yaml'), 0o444);
    fs.writeFileSync(path.join(d, 'rw.yaml'), BAD_GRACE.replace(/\bapi\b/g, 'web'));
    const r = kg(['lint', 'ro.yaml', 'rw.yaml', '--fix', '--format', 'json'], d);
    expect(r.code).toBe(2);
    expect(grace(path.join(d, 'ro.yaml'))).toBe('20');
    expect(grace(path.join(d, 'rw.yaml'))).toBe('40');
    expect(fs.statSync(path.join(d, 'ro.yaml')).mode & 0o777).toBe(0o444);
    expect(json(r.stdout).errors).toEqual([{ file: 'ro.yaml', line: 1, column: 1, message: expect.stringContaining('read-only') }]);
    expect(r.stderr).toMatch(/1 file not written:\n {2}ro\.yaml: the file is read-only/);
    expect(r.stderr).toContain('fixed 1 problem in 1 file');
    // Only the read-only file has fixes: they were found, not "nothing to fix".
    const alone = kg(['lint', 'ro.yaml', '--fix'], d);
    expect(alone.stderr).toMatch(/^kubegrace: 1 fix found, none written\nkubegrace: 1 file not written:\n {2}ro\.yaml: the file is read-only/m);
    expect(alone.stderr).not.toContain('nothing to fix');
    fs.writeFileSync(path.join(d, 'ro2.yaml'), BAD_GRACE.replace(/\bapi\b/g, 'db'));
    fs.chmodSync(path.join(d, 'ro2.yaml'), 0o444);
    expect(kg(['lint', 'ro.yaml', 'ro2.yaml', '--fix'], d).stderr).toMatch(/^kubegrace: 2 fixes found, none written\nkubegrace: 2 files not written:/m);
  });

  test('a file with two hard links is not split', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'a.yaml'), BAD_GRACE);
    fs.linkSync(path.join(d, 'a.yaml'), path.join(d, 'b.yml.bak'));
    const r = kg(['lint', 'a.yaml', '--fix'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('2 hard links');
    expect(fs.statSync(path.join(d, 'a.yaml')).nlink).toBe(2);
  });

  test('writeAtomic refuses when the file changed since it was read; temp files are random and exclusive', () => {
    const d = tmp();
    const f = path.join(d, 'x.yaml');
    fs.writeFileSync(f, 'a: 1\n');
    const read = fs.readFileSync(f);
    fs.writeFileSync(f, 'a: 2\n'); // someone else's edit
    expect(() => writeAtomic(f, 'a: 3\n', { expect: read })).toThrow(WriteRefused);
    expect(fs.readFileSync(f, 'utf8')).toBe('a: 2\n');
    expect(fs.readdirSync(d)).toEqual(['x.yaml']);
    // An attacker's symlink at a predictable name cannot redirect the write.
    writeAtomic(f, 'a: 4\n', { expect: fs.readFileSync(f) });
    expect(fs.readFileSync(f, 'utf8')).toBe('a: 4\n');
    expect(fs.readdirSync(d)).toEqual(['x.yaml']);
  });

  test('fileHolds compares a file with bytes chunk by chunk: a change in any chunk, one byte more or less, or no file is false', () => {
    const d = tmp();
    const f = path.join(d, 'big.yaml');
    // Over two chunks of 1 MiB, so that the comparison crosses chunk boundaries.
    const bytes = Buffer.alloc(2 * (1 << 20) + 123, 'abc: 1\n');
    fs.writeFileSync(f, bytes);
    expect(fileHolds(f, bytes)).toBe(true);
    for (const at of [0, (1 << 20) - 1, 1 << 20, 2 * (1 << 20) + 5, bytes.length - 1]) {
      const other = Buffer.from(bytes);
      other[at] ^= 1;
      expect(fileHolds(f, other)).toBe(false);
    }
    expect(fileHolds(f, bytes.subarray(0, bytes.length - 1))).toBe(false);
    expect(fileHolds(f, Buffer.concat([bytes, Buffer.from('x')]))).toBe(false);
    const empty = path.join(d, 'empty.yaml');
    fs.writeFileSync(empty, '');
    expect(fileHolds(empty, Buffer.alloc(0))).toBe(true);
    expect(fileHolds(empty, Buffer.from('a'))).toBe(false);
    expect(fileHolds(path.join(d, 'missing.yaml'), Buffer.alloc(0))).toBe(false);
    expect(fileHolds(d, Buffer.alloc(0))).toBe(false);
  });

  test('writeTexts writes the UTF-8 of its parts joined, a surrogate pair split between two parts included', () => {
    const d = tmp();
    const f = path.join(d, 'x.yaml');
    const cases: string[][] = [[], [''], ['a', 'b'], ['a\ud83d', '\ude80b'], ['\ud83d', '', '\ude80'], ['x\ud83d'], ['\ud83d', '\ud83d', '\ude80'], ['\u00e9\u20ac', 'd: 1\n', '']];
    for (const parts of cases) {
      for (const chunk of [1, 2, 3, 1024]) {
        const fd = fs.openSync(f, 'w');
        writeTexts(fd, parts, chunk);
        fs.closeSync(fd);
        expect(fs.readFileSync(f)).toEqual(Buffer.from(parts.join(''), 'utf8'));
      }
    }
    writeAtomic(f, ['a: 1\n', '---\n', 'b: \ud83d', '\ude80\n']);
    expect(fs.readFileSync(f, 'utf8')).toBe('a: 1\n---\nb: \ud83d\ude80\n');
  });

  test('writeText writes exactly the UTF-8 of the text in chunks of any size, never splitting a surrogate pair', () => {
    const d = tmp();
    const f = path.join(d, 'x.yaml');
    // Pairs, lone halves and multi-byte characters at every offset against every chunk boundary.
    const texts = ['', 'a', '\ud83d\ude80', 'a\ud83d\ude80b\u00e9\u20ac', '\ud83d', '\ude80\ud83d', 'x\ud83dy\ude80z', '\ud83d\ude80\ud83d\ude80\ud83d'];
    for (const t of texts) {
      for (let pad = 0; pad < 4; pad++) {
        const text = 'p'.repeat(pad) + t + t;
        for (let chunk = 1; chunk <= text.length + 1; chunk++) {
          const fd = fs.openSync(f, 'w');
          try {
            writeText(fd, text, chunk);
          } finally {
            fs.closeSync(fd);
          }
          expect([chunk, fs.readFileSync(f)]).toEqual([chunk, Buffer.from(text, 'utf8')]);
        }
      }
    }
  });

  test('writeAtomic writes a text as UTF-8 whether or not it is ASCII', () => {
    const d = tmp();
    const f = path.join(d, 'x.yaml');
    for (const text of ['a: 1\n', 'name: caf\u00e9\n', 'x: "\u00ff\u0100 \ud83d\ude80"\n', 'k: \u0000\u007f\n', '']) {
      writeAtomic(f, text);
      expect(fs.readFileSync(f)).toEqual(Buffer.from(text, 'utf8'));
    }
  });

  test('the owner and mode of a fixed file are kept', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    fs.chmodSync(path.join(d, 'x.yaml'), 0o640);
    if (process.getuid?.() === 0) fs.chownSync(path.join(d, 'x.yaml'), 1234, 2345);
    kg(['lint', 'x.yaml', '--fix'], d);
    const st = fs.statSync(path.join(d, 'x.yaml'));
    expect(st.mode & 0o777).toBe(0o640);
    if (process.getuid?.() === 0) expect([st.uid, st.gid]).toEqual([1234, 2345]);
    expect(grace(path.join(d, 'x.yaml'))).toBe('40');
  });
});

describe('items 5 and 12: --output is checked before anything is written', () => {
  test('--output equal to an input is refused and the manifest is untouched', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    const r = kg(['lint', 'x.yaml', '--format', 'json', '--output', './x.yaml'], d);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is one of the inputs');
    expect(fs.readFileSync(path.join(d, 'x.yaml'), 'utf8')).toBe(BAD_GRACE);
  });
  test('two formats to one file, onto a directory, into a non-directory, json= without a name: usage errors, no stack', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    fs.writeFileSync(path.join(d, 'plain'), '');
    for (const [args, msg] of [
      [['--format', 'json', '--output', 'r.out', '--format', 'sarif', '--output', 'r.out'], 'both write to r.out'],
      [['--format', 'json', '--output', '.'], 'is a directory'],
      [['--format', 'json', '--output', 'plain/r.json'], 'is not a directory'],
      [['--format', 'json='], 'names no file'],
    ] as Array<[string[], string]>) {
      const r = kg(['lint', 'x.yaml', ...args], d);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toContain(msg);
      expect(r.stderr).not.toContain('internal error');
    }
    expect(fs.existsSync(path.join(d, 'r.out'))).toBe(false);
  });
  test('--output into a missing directory creates it', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    const r = kg(['lint', 'x.yaml', '--format', 'json', '--output', 'reports/new/r.json'], d);
    expect(r.code).toBe(1);
    expect(json(fs.readFileSync(path.join(d, 'reports/new/r.json'), 'utf8')).summary.objects).toBe(2);
  });
});

describe('item 8: non-regular files and the size limit', () => {
  test('a FIFO and /dev/zero are refused without reading; the other files are linted', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    expect(spawnSync('mkfifo', [path.join(d, 'p.yaml')]).status).toBe(0);
    const r = kg(['lint', 'p.yaml', '/dev/zero', 'x.yaml', '--format', 'json'], d);
    const out = json(r.stdout);
    expect(r.code).toBe(2);
    expect(out.errors.map((e) => [e.file, e.message.split(',')[0]])).toEqual([
      ['p.yaml', 'a FIFO (named pipe)'],
      ['/dev/zero', 'a character device'],
    ]);
    expect(out.findings.length).toBeGreaterThan(0);
  });
  test('--max-file-size: a file over it is refused by name, the others are linted', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'big.yaml'), 'a: ' + 'x'.repeat(3000) + '\n');
    fs.writeFileSync(path.join(d, 'x.yaml'), BAD_GRACE);
    const r = kg(['lint', '.', '--max-file-size', '2KB', '--format', 'json'], d);
    const out = json(r.stdout);
    expect(out.errors).toEqual([{ file: 'big.yaml', line: 1, column: 1, message: expect.stringContaining('over the size limit of 2 KB') }]);
    expect(out.findings.map((f) => f.file)).toContain('x.yaml');
    expect(kg(['lint', 'x.yaml', '--max-file-size', 'lots'], d).stderr).toContain('--max-file-size must be a size');
    // The text report says what to do, with the limit that reads the file, and that limit does.
    const text = kg(['lint', 'big.yaml', '--max-file-size', '2KB'], d);
    expect(text.stdout).toContain('1:1  error  file is 3 KB, over the size limit of 2 KB; split it, or if it is genuine, raise the limit: --max-file-size 1MB\n');
    expect(kg(['lint', 'big.yaml', '--max-file-size', '1MB', '--format', 'json'], d).code).toBe(0);
    // stdin alike.
    const piped = kg(['lint', '-', '--max-file-size', '2KB'], d, 'a: ' + 'x'.repeat(3000) + '\n');
    expect(piped.stdout).toContain('error  stdin is 3 KB, over the size limit of 2 KB; if it is genuine, raise the limit: --max-file-size 1MB\n');
  });
});

describe('item 10: stdin gets the same checks as files', () => {
  test('Latin-1 on stdin is an error at the byte, not U+FFFD in --fix output', () => {
    const d = tmp();
    const bytes = Buffer.concat([Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf'), Buffer.from([0xe9]), Buffer.from('}\n')]);
    const r = kg(['lint', '-', '--fix', '--format', 'json', '--output', 'r.json'], d, bytes);
    expect(r.stdout).not.toContain('\ufffd');
    const out = json(fs.readFileSync(path.join(d, 'r.json'), 'utf8'));
    expect(out.errors).toEqual([{ file: '<stdin>', line: 3, column: 21, message: expect.stringMatching(/not valid UTF-8 \(byte 0xE9; Latin-1\?\)/) }]);
  });
});

describe('item 11: an unreadable directory is an input error; the rest is linted', () => {
  test('a symlink loop is reported as a loop, not as a missing file', () => {
    const d = tmp();
    fs.symlinkSync('b.yaml', path.join(d, 'a.yaml'));
    fs.symlinkSync('a.yaml', path.join(d, 'b.yaml'));
    const r = kg(['lint', 'a.yaml', '--format', 'json'], d);
    expect(json(r.stdout).errors[0].message).toContain('symbolic link loop');
  });
});

describe('item 13: a closed pipe ends the output quietly', () => {
  test('kubegrace lint dir | head -1', async () => {
    const d = tmp();
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(d, `d${i}.yaml`), BAD_GRACE.replace(/\bapi\b/g, `api${i}`));
    const child = spawn(process.execPath, [BIN, 'lint', '.'], { cwd: d, env: { ...process.env, NO_COLOR: '1' } });
    let err = '';
    child.stderr.on('data', (b) => (err += b));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((res) => child.on('close', res));
    expect(err).toBe('');
    expect(code).toBe(1);
  });
});

describe('item 14: one bad document never hides the others', () => {
  const doc = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\n`;
  test('a NUL byte beyond the first 8 KB and a Latin-1 byte: errors at the byte, valid documents linted', () => {
    const d = tmp();
    const bytes = Buffer.concat([
      Buffer.from(doc('a') + '# ' + 'x'.repeat(9000) + '\n---\n' + doc('b') + 'data: {k: "'),
      Buffer.from([0]),
      Buffer.from('"}\n---\n' + doc('c') + '---\n' + doc('d') + 'data: {k: caf'),
      Buffer.from([0xe9]),
      Buffer.from('}\n---\n' + doc('e')),
    ]);
    fs.writeFileSync(path.join(d, 'm.yaml'), bytes);
    const r = kg(['lint', 'm.yaml', '--format', 'json'], d);
    const out = json(r.stdout);
    expect(out.summary.objects).toBe(3);
    expect(out.errors.map((e) => [e.line, e.column, e.message.slice(0, 30)])).toEqual([
      [9, 12, 'this document contains a NUL b'],
      [18, 14, 'this document is not valid UTF'],
    ]);
    // --fix never writes such a file (the unreadable documents are not in the text).
    expect(kg(['lint', 'm.yaml', '--fix'], d).stdout).toBeDefined();
    expect(fs.readFileSync(path.join(d, 'm.yaml')).equals(bytes)).toBe(true);
  });
  test('an unterminated quote in document 2 does not hide document 3', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'q.yaml'), doc('a') + '---\n' + doc('b') + 'data: {k: "open}\n---\n' + doc('c'));
    const out = json(kg(['lint', 'q.yaml', '--format', 'json'], d).stdout);
    expect(out.summary.objects).toBe(2);
    expect(out.errors).toHaveLength(1);
    expect([out.errors[0].line, out.errors[0].column]).toEqual([8, 11]);
    expect(out.errors[0].message).toContain('the quote opened here is never closed');
  });
});

describe('quoted values continued on lines indented less than their key (go-yaml accepts them)', () => {
  // Sonatype's nxrm-ha chart renders `value: "-Xms1g \` with its later lines at column 11 under
  // a key at column 15; helm and kubectl take it.
  const text = BAD_GRACE.replace('        image: example/api:1.0\n', '        image: example/api:1.0\n        env:\n        - name: OPTS\n          value: "-Xms1g \\\n    -Dfoo=bar"\n');
  test('lint reads the workload (no input error) and reports its findings at their lines', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), text);
    const out = json(kg(['lint', 'x.yaml', '--format', 'json'], d).stdout);
    expect(out.errors).toEqual([]);
    expect(out.findings.map((f) => f.ruleId)).toContain('grace-period-budget');
  });
  test('--fix leaves the file as it is and says why', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), text);
    const r = kg(['lint', 'x.yaml', '--fix', '--format', 'json'], d);
    expect(fs.readFileSync(path.join(d, 'x.yaml'), 'utf8')).toBe(text);
    expect(json(r.stdout).errors.map((e) => e.message)).toEqual([expect.stringMatching(/^--fix did not write this file: a quoted value continues on line 20 indented less than its key/)]);
  });
});

describe('flow collections continued at their key\'s column (go-yaml accepts them)', () => {
  // Review round 30: helm/charts stable/minio 5.0.26 (vendored by mattermost-enterprise-edition)
  // renders `command: [ "/bin/sh",` with its later items at the key's column; kubectl and helm
  // install read it. The reviewer's reproducer 02 (01 plus another workload in the namespace).
  const text = `apiVersion: v1
kind: Service
metadata:
  name: minio
  namespace: demo
spec:
  selector:
    app: minio
  ports:
  - name: http
    port: 9000
    targetPort: 9000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: minio
  namespace: demo
spec:
  replicas: 1
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 100%
      maxUnavailable: 0
  selector:
    matchLabels:
      app: minio
  template:
    metadata:
      labels:
        app: minio
    spec:
      containers:
        - name: minio
          image: "minio/minio:RELEASE.2019-05-14T23-57-45Z"
          command: [ "/bin/sh",
          "-ce",
          "/usr/bin/docker-entrypoint.sh minio server /export" ]
          ports:
            - name: http
              containerPort: 9000
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: demo
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: mysql:8
`;
  test('lint reads the Deployment (no input error, exit 0) and reports its findings at the file\'s columns', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'm.yaml'), text);
    const r = kg(['lint', 'm.yaml', '--format', 'json'], d);
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(out.errors).toEqual([]);
    expect(out.summary.objects).toBe(3);
    const findings = out.findings as unknown as Array<{ ruleId: string; object: { kind: string; name: string }; line: number; column: number }>;
    expect(findings.map((f) => `${f.ruleId} ${f.object.kind}/${f.object.name} ${f.line}:${f.column}`).sort()).toEqual([
      'prestop-missing Deployment/minio 35:11',
      'readiness-probe-missing Deployment/minio 35:11',
    ]);
  });
  test('a document that cannot be read: what the others find missing is info, and says why', () => {
    // The same file with the flow sequence really broken (no comma, no closing bracket): the
    // Deployment is not read, and the Service's "matches no pod template" may be wrong.
    const d = tmp();
    fs.writeFileSync(path.join(d, 'm.yaml'), text.replace('"-ce",', '"-ce"').replace('server /export" ]', 'server /export"'));
    const r = kg(['lint', 'm.yaml', '--format', 'json'], d);
    expect(r.code).toBe(2);
    const out = json(r.stdout);
    expect(out.errors.map((e) => `${e.line}:${e.column} ${e.message.slice(0, 17)}`)).toEqual(['38:11 YAML syntax error']);
    const findings = out.findings as unknown as Array<{ ruleId: string; severity: string; message: string }>;
    expect(findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['service-selector-ports info']);
    expect(findings[0].message).toMatch(/^a document of this file could not be read \(the input error at line 38\), and what this finds missing may be there: Service\/minio: spec.selector \{app: minio\} matches no pod template/);
  });
  test('--fix leaves the file as it is and says why', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'm.yaml'), text);
    const r = kg(['lint', 'm.yaml', '--fix', '--format', 'json'], d);
    expect(fs.readFileSync(path.join(d, 'm.yaml'), 'utf8')).toBe(text);
    expect(json(r.stdout).errors.map((e) => e.message)).toEqual([expect.stringMatching(/^--fix did not write this file: a flow collection \(\[…\] or \{…\}\) continues on lines 38, 39 indented no more than its key/)]);
  });
});

describe('item 15: precise messages', () => {
  test('UTF-16 is called UTF-16, not binary', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'u.yaml'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('kind: x\n', 'utf16le')]));
    fs.writeFileSync(path.join(d, 'n.yaml'), Buffer.from('kind: x\n', 'utf16le'));
    const out = json(kg(['lint', 'u.yaml', 'n.yaml', '--format', 'json'], d).stdout);
    expect(out.errors.map((e) => e.message.slice(0, 40))).toEqual(['UTF-16 text (byte-order mark), not UTF-8', 'UTF-16 text (no byte-order mark), not UT']);
  });
  test('an undefined alias is not called an alias bomb; 101 uses of one scalar anchor are fine', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: *nope}\n');
    fs.writeFileSync(path.join(d, 'b.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\nx: &v "1"\ndata: {${Array.from({ length: 101 }, (_, i) => `k${i}: *v`).join(', ')}}\n`);
    const out = json(kg(['lint', 'a.yaml', 'b.yaml', '--format', 'json'], d).stdout);
    expect(out.errors.map((e) => [e.file, e.message])).toEqual([['a.yaml', expect.stringContaining("unknown anchor 'nope'")]]);
    expect(out.summary.objects).toBe(1);
  });
});

describe('item 9: every numeric flag of simulate is bounded', () => {
  test.each([
    [['--replicas', '10000000'], '--replicas must be a whole number from 1 to 10000'],
    [['--replicas', '5', '--surge', '1e9'], '--surge must be a whole number from 1 to 10000'],
    [['--replicas', '5', '--min-ready', '1e12'], '--min-ready must be a number of seconds from 0 to 86400'],
    [['--replicas', '5', '--startup', '1e300'], '--startup must be a number of seconds from 0 to 86400'],
    [['--replicas', '5', '--probability', '0.9999999'], '--probability must be above 0 and at most 0.999'],
    [['--replicas', '5', '--backoff', 'exponential:1-100000'], 'waits above 3600 s are not modelled'],
  ])('%j is refused', (args, msg) => {
    const r = kg(['simulate', 'rollout', ...args], os.tmpdir());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
  });
  test('the largest allowed inputs finish (the worst case took 1.9 s on the dev box)', () => {
    const r = kg(['simulate', 'rollout', '--replicas', '10000', '--backoff', 'exponential:0.001-3600', '--probability', '0.999', '--format', 'json'], os.tmpdir());
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).replicas ?? JSON.parse(r.stdout).input?.replicas).toBe(10000);
  }, 60000);
});

describe('item 17: control characters from manifests are inert in every format', () => {
  const evil = 'app\\n::error file=evil.yaml,line=1::forged\\u001b[31mred\\u009b2J';
  const yaml = BAD_GRACE.replace('- name: app', `- name: "${evil}"`);
  test.each(['text', 'json', 'sarif', 'junit', 'github'])('%s', (format) => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), yaml);
    const r = kg(['lint', 'x.yaml', '--format', format], d);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('forged');
    // No raw ESC/CSI, and no line of the output starts a workflow command except kubegrace's own.
    expect(r.stdout).not.toMatch(/[\u001b\u009b]/);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('::error file=evil.yaml'))).toEqual([]);
    if (format === 'github') expect(r.stdout).toContain('app%0A::error file=evil.yaml,line=1::forged\\u001b[31mred\\u009b2J');
    if (format === 'json') expect(JSON.parse(r.stdout).findings.some((f: { message: string }) => f.message.includes('\u001b[31m'))).toBe(true);
  });
});

describe('item 15: --kube-version accepts the supported range only; no Node warning leaks', () => {
  test.each([['1.2', 'did you mean 1.20?'], ['1.99', 'outside the versions kubegrace knows (1.20 to 1.37)'], ['', '--kube-version is empty']])('%j', (v, msg) => {
    const r = kg(['lint', '-', '--kube-version', v], os.tmpdir(), 'a: 1\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
  });
  test('1.20 and 1.37 are accepted', () => {
    for (const v of ['1.20', '1.37', '1.31.4']) expect(kg(['lint', '-', '--kube-version', v], os.tmpdir(), 'a: 1\n').code).toBe(0);
  });
  test('a collection used as a key is an input error, with nothing on stderr', () => {
    const r = kg(['lint', '-', '--format', 'json'], os.tmpdir(), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  ? [a, b]\n  : x\n');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).errors[0].message).toContain('invalid map key');
  });
});

describe('an object written wrong is an input error, not a document skipped (not-an-object.ts)', () => {
  test('`Kind:` in one document: exit 2, the error at it, the other documents and files still linted; values-like files still skipped', () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'x.yaml'), `${BAD_GRACE}---\napiVersion: apps/v1\nKind: Deployment\nmetadata:\n  name: web2\nspec:\n  replicas: 2\n`);
    fs.writeFileSync(path.join(d, 'meta.yaml'), 'apiVersion: v2\nname: chart\nversion: 1.0.0\n---\nkind: DaemonSet\nimage:\n  repository: fluent/fluent-bit\n');
    const alone = json(kg(['lint', 'x.yaml', '--format', 'json'], d).stdout);
    const r = kg(['lint', '.', '--format', 'json'], d);
    expect(r.code).toBe(2);
    const report = json(r.stdout);
    expect(report.errors).toEqual([{ file: 'x.yaml', line: BAD_GRACE.split('\n').length + 1, column: 1, message: expect.stringMatching(/^object "web2": no kind \(there is "Kind": keys are case-sensitive\)/) }]);
    expect(report.findings.length).toBeGreaterThan(0);
    expect(report.findings).toEqual(alone.findings);
  });

  test('a kubectl dump cut short at a line (kind: List comes after the items): exit 2 and one error, where it passed before', () => {
    const d = tmp();
    const items = Array.from({ length: 30 }, (_, i) => `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c${i}\n    namespace: ns\n  data:\n    a: b\n`).join('');
    const dump = `apiVersion: v1\nitems:\n${items}kind: List\nmetadata:\n  resourceVersion: ""\n`;
    fs.writeFileSync(path.join(d, 'dump.yaml'), dump);
    expect(kg(['lint', 'dump.yaml'], d).code).toBe(0);
    fs.writeFileSync(path.join(d, 'dump.yaml'), dump.split('\n').slice(0, 100).join('\n') + '\n');
    const r = kg(['lint', 'dump.yaml'], d);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('1:1  error  a List without kind: kubectl writes "kind: List" after the items, so this file was probably cut short');
    expect(r.stdout).toContain('in 1 file, 0 objects');
  });
});
