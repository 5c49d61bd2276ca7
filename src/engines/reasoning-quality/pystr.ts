/**
 * The few CPython 3.11 string and float behaviours the reference code leans on, ported exactly enough that
 * the golden vectors (README "Traps for a JS port") hold: Unicode-aware `\s`, `\d`, `\w`/`\b`,
 * `str.strip()`, `str.split()`, `str.splitlines()`, code-point lengths, `float()` over Unicode digits and
 * `repr(float)`. JavaScript's own `\s`, `\b`, `trim()` and `\d` differ from Python on non-ASCII text.
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

/** `len(s)`: Python counts code points, JavaScript UTF-16 units. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s[:n]` in code points. */
export function codePointPrefix(s: string, n: number): string {
  let out = "";
  let i = 0;
  for (const ch of s) {
    if (i++ >= n) break;
    out += ch;
  }
  return out;
}

const ND = /^\p{Nd}$/u;

/**
 * Value of one Unicode decimal digit (category Nd). Unicode encodes every Nd digit in runs of ten, 0 to 9,
 * and adjacent runs (e.g. the 50 mathematical digits U+1D7CE–U+1D7FF) each start at 0, so the value is the
 * number of Nd code points directly before it, modulo 10.
 */
export function decimalDigitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  let before = 0;
  while (ND.test(String.fromCodePoint(cp - before - 1))) before++;
  return before % 10;
}

/** Replace every Unicode decimal digit by its ASCII digit, as `float()` and `int()` read them. */
export function asciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (ch) => String(decimalDigitValue(ch)));
}

// The decimal forms `float()` accepts that the matcher's regexes can produce (sign, digits, one dot).
const PY_DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

/**
 * `float(s)` for plain decimal strings (optional sign, Unicode digits, at most one dot), or null where
 * Python raises ValueError. Exponents, underscores, `inf` and `nan` are not accepted: the reference code
 * never hands such strings to `float()`. Number() is correctly rounded, like CPython's strtod.
 */
export function pyFloat(s: string): number | null {
  const t = asciiDigits(pyStrip(s));
  if (!PY_DECIMAL.test(t)) return null;
  return Number(t);
}

/**
 * `repr(x)` for a float: the shortest round-tripping digits (as JS's Number#toString), laid out the
 * Python way: fixed notation with ".0" when the decimal exponent is in (-4, 16], else `d.ddde±XX`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, expPart] = String(Math.abs(x)).split("e");
  const [intPart, fracPart = ""] = mantissa.split(".");
  let digits = intPart + fracPart;
  // Value = 0.<digits> × 10^decpt.
  let decpt = intPart.length + (expPart === undefined ? 0 : Number(expPart));
  while (digits.startsWith("0")) {
    digits = digits.slice(1);
    decpt--;
  }
  digits = digits.replace(/0+$/, "");
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const e = decpt - 1;
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** `re.escape(s)` equivalent for building a JS pattern. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Python's `sorted()` order for strings: by code point, which differs from JS's UTF-16 sort above U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}
