/**
 * CPython 3.11 `str` methods and `re` classes, ported exactly enough that the reasoning-quality golden
 * vectors (README "Traps for a JS port") hold: Unicode-aware `\s`, `\w`/`\b`, `str.strip()`, `str.split()`,
 * `str.splitlines()`, `re.escape`. JavaScript's own `\s`, `\b` and `trim()` differ from Python on non-ASCII
 * text. Code points are in code-points.ts, `float()` over Unicode digits and `repr(float)` in float.ts.
 */

/**
 * Python's whitespace (`str.isspace()`, and `re`'s `\s` on str patterns): JS `\s` lacks U+001C–U+001F and
 * U+0085 and wrongly includes U+FEFF. Written as a character-class body so it can be embedded in patterns.
 */
export const PY_WS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/** `re` `\s` as a class (use with the `u` flag). */
export const S = `[${PY_WS}]`;

/**
 * `re` `\w` on str patterns: `str.isalnum()` or `_`. Letters (L*) and numbers (Nd/Nl/No) cover it; combining
 * marks are not word characters in Python either.
 */
export const W = "[\\p{L}\\p{N}_]";

/** `\b` immediately before a word character (the only way the reference patterns use it). */
export const B_BEFORE_WORD = `(?<!${W})`;
/** `\b` immediately after a word character. */
export const B_AFTER_WORD = `(?!${W})`;

const LEADING_WS = new RegExp(`^${S}+`, "u");
const TRAILING_WS = new RegExp(`${S}+$`, "u");
const WS_RUNS = new RegExp(`${S}+`, "u");
const ONLY_WS = new RegExp(`^${S}*$`, "u");
// str.splitlines() boundaries: \r\n first so it counts once.
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/u;

/** `s.strip()` with Python's whitespace set. */
export function pyStrip(s: string): string {
  return s.replace(LEADING_WS, "").replace(TRAILING_WS, "");
}

/** `s.rstrip(chars)`: drop trailing characters that occur in `chars` (code points). */
export function pyRstripChars(s: string, chars: string): string {
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let end = cps.length;
  while (end > 0 && set.has(cps[end - 1])) end--;
  return cps.slice(0, end).join("");
}

/** True when `s.strip()` would be empty. */
export function isBlank(s: string): boolean {
  return ONLY_WS.test(s);
}

/** `s.split()` with no separator: runs of Python whitespace, no empty pieces. */
export function pySplit(s: string): string[] {
  return s.split(WS_RUNS).filter((t) => t !== "");
}

/** `re.sub(r'\s+', repl, s)` with Python's `\s`. */
export function collapseWhitespace(s: string, repl = " "): string {
  return s.replace(new RegExp(`${S}+`, "gu"), repl);
}

/** `s.splitlines()` (a trailing line break does not add an empty line). */
export function pySplitlines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split(LINE_BREAKS);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** `re.escape(s)` equivalent for building a JS pattern. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
