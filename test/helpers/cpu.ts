/**
 * CPU milliseconds this process has used (user + system). Hang and blow-up bounds in tests are
 * taken in CPU time, not wall time: a loaded CI machine stretches the wall clock of a quick run
 * past any bound, but not its CPU time, while a hang or an exponential blow-up exceeds both.
 */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
