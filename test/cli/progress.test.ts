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
});
