// Python floats as text, both ways: `repr(float)` (float → text) and `float()` over the decimal strings the
// reasoning-quality matcher extracts (text → float). The JSON-value `float()` of the judge's parser, with
// Python's bare NaN/Infinity tokens, is in plain.ts.
import { pyStrip } from "./str.ts";

/**
 * Python `repr(float)` (spec chain-determinism.md §4): shortest round-trip digits; exponent form
 * `d[.ddd]e±XX` when the decimal exponent is < -4 or >= 16, else positional with at least one fractional
 * digit; `-0.0`, `inf`, `-inf`, `nan`. JS `toExponential()` without an argument yields the same
 * shortest digit string CPython's repr uses, so only the layout differs.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const [mant, expText] = Math.abs(x).toExponential().split("e");
  const exp = Number(expText);
  const digits = mant.replace(".", "");
  if (exp < -4 || exp >= 16) {
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${mant}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac === "" ? "0" : frac}`;
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
 * `float(s)` for plain decimal strings (optional sign, Unicode digits, at most one dot, Python whitespace
 * around), or null where Python raises ValueError. Exponents, underscores, `inf` and `nan` are not
 * accepted: the reasoning-quality reference never hands such strings to `float()`. Number() is correctly
 * rounded, like CPython's strtod.
 */
export function pyDecimalFloat(s: string): number | null {
  const t = asciiDigits(pyStrip(s));
  if (!PY_DECIMAL.test(t)) return null;
  return Number(t);
}
