// Python `repr()` and `len()`/slicing over code points, for the reference's record texts
// (spec chain-determinism.md §2 `_raw_value_repr`, `_raw_arguments_*`; §4 float payloads).
import type { PyValue } from "./lossless-json.ts";

/**
 * Python `repr(float)` (spec §4): shortest round-trip digits; exponent form `d[.ddd]e±XX` when
 * the decimal exponent is < -4 or >= 16, else positional with at least one fractional digit;
 * `-0.0`, `inf`, `-inf`, `nan`. JS `toExponential()` without an argument yields the same
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

// Python str.isprintable() is false for categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs except ' '.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python `repr(str)`: single quotes unless the text has `'` and no `"`; escapes as CPython does. */
export function pyStrRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === q || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x7f || ch === " " || !NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + q;
}

/** Python `repr()` of a parsed JSON value (`None`, `True`, `'x'`, `[1, 2.0]`, `{'a': 1}`). */
export function pyRepr(value: PyValue): string {
  switch (value.t) {
    case "null":
      return "None";
    case "bool":
      return value.v ? "True" : "False";
    case "int":
      return value.v.toString();
    case "float":
      return pyFloatRepr(value.v);
    case "str":
      return pyStrRepr(value.v);
    case "list":
      return `[${value.items.map(pyRepr).join(", ")}]`;
    case "dict":
      return `{${value.entries.map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  }
}

/** The first `n` code points of `s` (Python `s[:n]`; JS slice would count UTF-16 units). */
export function headCodePoints(s: string, n: number): string {
  let out = "";
  let k = 0;
  for (const ch of s) {
    if (k++ === n) break;
    out += ch;
  }
  return out;
}

/** Python `len(s)`: code points. */
export function lenCodePoints(s: string): number {
  let k = 0;
  for (const _ of s) k++;
  return k;
}
