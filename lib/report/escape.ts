/**
 * Control characters from manifests and file names, made inert in every output format
 * (issue 12 item 17): a container named `x\n::error file=evil.yaml::...` must not forge a
 * GitHub workflow command, and ESC sequences must not reach a terminal or a CI log.
 */

/** C0 and C1 controls, DEL, and the Unicode line/paragraph separators. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_KEEP_NEWLINES = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g;

const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Every control character shown as `\u001b` etc.: one line, nothing for a terminal to run. */
export function escapeControl(s: string): string {
  return s.replace(CONTROL, visible);
}

/** As escapeControl, but CR and LF stay (for formats that encode them themselves). */
export function escapeControlKeepNewlines(s: string): string {
  return s.replace(CONTROL_KEEP_NEWLINES, visible);
}

/**
 * JSON text (JSON.stringify output) with DEL, C1 controls and U+2028/2029 written as \u escapes
 * too (JSON.stringify escapes only C0): the same data, but inert when the JSON is printed.
 * Those characters can only occur inside JSON strings, where the escape means the same.
 */
export function jsonInert(json: string): string {
  return json.replace(/[\u007f-\u009f\u2028\u2029]/g, visible);
}
