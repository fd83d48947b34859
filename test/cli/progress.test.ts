import { CliIO, progress, PROGRESS_MIN_FILES } from '../../lib/cli/io';

function io(tty: boolean): CliIO & { err: string } {
  const o = { cwd: '/', err: '', stdout: () => undefined, readStdin: () => '', stdoutIsTTY: false, stderrIsTTY: tty, stderr: (s: string) => (o.err += s) };
  return o;
}

describe('progress indicator', () => {
  test('only on a terminal and only for many files', () => {
    expect(progress(io(false), 500)).toBeUndefined();
    expect(progress(io(true), PROGRESS_MIN_FILES - 1)).toBeUndefined();
  });
  test('draws on stderr and erases itself', () => {
    const o = io(true);
    const bar = progress(o, 40)!;
    bar.update(1, 40);
    bar.update(40, 40);
    bar.done();
    expect(o.err).toContain('40/40 files');
    expect(o.err.endsWith('\r\u001b[2K')).toBe(true);
  });
  test('shows files and objects done and the rate', () => {
    const o = io(true);
    let t = 1000;
    const bar = progress(o, 40, () => t)!;
    t = 3000;
    bar.update(20, 40, 5000);
    expect(o.err).toBe('\r\u001b[2Klinting [############............] 20/40 files, 5000 objects, 2500 objects/s');
    t = 3050;
    bar.update(21, 40, 5100);
    expect(o.err.split('\r').length).toBe(2); // not redrawn within 100 ms
    bar.done();
    expect(o.err.endsWith('\r\u001b[2K')).toBe(true);
  });
});
