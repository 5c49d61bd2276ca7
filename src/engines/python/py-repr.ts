// Python `repr()` of strings and of the lossless tree, for the reference's record texts
// (spec chain-determinism.md §2 `_raw_value_repr`, `_raw_arguments_*`; §4 float payloads).
import { pyFloatRepr } from "./float.ts";
import type { PyValue } from "./lossless-json.ts";

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
