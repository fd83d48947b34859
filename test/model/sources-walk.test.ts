/** Item 11 of issue 12: a directory that cannot be read is an input error; the rest is linted. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// readdirSync is not configurable on the real module, and the tests run as root (who reads every
// directory), so the EACCES is simulated through a module mock.
jest.mock('fs', () => {
  const real = jest.requireActual('fs');
  return { ...real, readdirSync: jest.fn(real.readdirSync) };
});
// eslint-disable-next-line import/first
import { collectSources } from '../../lib/model/sources';

test('readdir failing with EACCES: an error for that directory, the other files are read', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-walk-'));
  fs.mkdirSync(path.join(d, 'locked'));
  fs.writeFileSync(path.join(d, 'locked', 'hidden.yaml'), 'a: 1\n');
  fs.writeFileSync(path.join(d, 'x.yaml'), 'a: 1\n');
  const real = jest.requireActual('fs').readdirSync;
  (fs.readdirSync as unknown as jest.Mock).mockImplementation((p: fs.PathLike, o?: unknown) => {
    if (String(p).endsWith('locked')) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    return real(p, o);
  });
  const r = collectSources([d], { cwd: d });
  expect(r.sources.map((s) => s.file)).toEqual(['x.yaml']);
  expect(r.errors).toEqual([{ file: 'locked', line: 1, column: 1, message: expect.stringContaining('permission denied') }]);
});
