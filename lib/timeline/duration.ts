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

/** A per-container seconds hint: a bare value for every container, `name=value` entries for one each. */
export interface PerContainerSeconds {
  /** A bare value: applies to every container without its own entry. */
  all?: number;
  byName: Record<string, number>;
  /** The comma-separated parts that could not be read (ignored). */
  bad: string[];
}

/**
 * Parses hints such as `kubegrace.dev/prestop-seconds` and `kubegrace.dev/sidecar-drain-seconds`:
 * comma-separated entries, each seconds or a Go duration ("25", "25s") for all containers, or
 * `name=value` for one.
 */
export function parsePerContainerSeconds(v: string | undefined): PerContainerSeconds {
  const out: PerContainerSeconds = { byName: {}, bad: [] };
  if (v === undefined) return out;
  for (const raw of v.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? undefined : part.slice(0, eq).trim();
    const s = parseSeconds(eq < 0 ? part : part.slice(eq + 1));
    if (s === undefined || name === '') out.bad.push(part);
    else if (name === undefined) out.all = s;
    else out.byName[name] = s;
  }
  return out;
}
