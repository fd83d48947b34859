/** Parses a Go duration ("1m30s", "500ms", "2h", "0") into seconds; undefined if malformed. */
export function parseGoDuration(s: string): number | undefined {
  const t = s.trim();
  if (t === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t))) {
    total += Number(m[1]) * unit[m[2]];
    matched = re.lastIndex;
  }
  return matched === t.length && matched > 0 ? total : undefined;
}

/** Parses a `sleep` argument as coreutils does: a number with an optional s/m/h/d suffix. */
export function parseSleepArg(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(s.trim());
  if (!m) return undefined;
  const mult: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };
  return Number(m[1]) * mult[m[2]];
}

/** Seconds from a hint value: a number ("20") or a Go duration ("20s"). */
export function parseSeconds(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  return parseGoDuration(t);
}
