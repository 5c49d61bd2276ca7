// Python's `str()` and `float()` of values that JS `JSON.parse` returned (plain objects, arrays, numbers):
// the judge's parser (spec cross-judge.md §3) renders labels and reasoning with `str()` and reads confidence
// with `float()`, and its prompt templates format values with `str()`.
//
// Not the same functions as `pyRepr`/`pyStrRepr` (py-repr.ts) over the lossless tree: JSON.parse has already
// lost the int/float distinction, and strings nested in lists and dicts are escaped only for backslash,
// quote, \n, \r and \t (Python also escapes other control and non-printable characters). Kept apart and
// unchanged: putting the lossless functions in their place would change the judge's verdicts for such values.

/** Sentinels standing in for Python's bare JSON tokens NaN / Infinity / -Infinity, which JSON.parse rejects. */
export const PY_NAN = "\u0000py:NaN";
export const PY_INF = "\u0000py:Infinity";
export const PY_NINF = "\u0000py:-Infinity";

function pyFloatStr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return String(x);
}

/**
 * Python `str(value)` for a JSON value. Divergence: JSON.parse loses the int/float distinction, so
 * `1.0` prints as "1" where Python prints "1.0"; small exponents differ too (Python "1e-05", JS "1e-5").
 */
export function pyStr(value: unknown): string {
  if (typeof value === "string")
    return value === PY_NAN ? "nan" : value === PY_INF ? "inf" : value === PY_NINF ? "-inf" : value;
  return plainRepr(value);
}

/** How deep `pyStr` follows a model's JSON; CPython's own repr stops near 1,000 with a RecursionError. */
export const PY_REPR_MAX_DEPTH = 900;

function plainRepr(value: unknown, depth = 0): string {
  if (depth > PY_REPR_MAX_DEPTH) throw new RangeError(`pyStr: the value nests deeper than ${PY_REPR_MAX_DEPTH} levels`);
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pyFloatStr(value);
  if (typeof value === "string") {
    if (value === PY_NAN || value === PY_INF || value === PY_NINF) return pyStr(value);
    // Python picks single quotes unless the string holds one and no double quote.
    const q = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    return q + (q === "'" ? body.replace(/'/g, "\\'") : body) + q;
  }
  if (Array.isArray(value)) return `[${value.map((v) => plainRepr(v, depth + 1)).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${plainRepr(k)}: ${plainRepr(v, depth + 1)}`)
      .join(", ")}}`;
  }
  return String(value);
}

const PY_FLOAT_RE = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_SPECIAL_RE = /^([+-]?)(nan|inf|infinity)$/i;

/**
 * Python `float(value)` for a JSON value, or null where Python raises (lists, objects, "high", "85%").
 * Booleans are 1/0; strings may carry surrounding whitespace, underscores between digits, "nan", "inf".
 */
export function pyFloat(value: unknown): number | null {
  if (value === true) return 1;
  if (value === false) return 0;
  if (typeof value === "number") return value;
  if (typeof value !== "string") return null;
  if (value === PY_NAN) return NaN;
  if (value === PY_INF) return Infinity;
  if (value === PY_NINF) return -Infinity;
  const s = value.trim();
  if (PY_FLOAT_RE.test(s)) return Number(s.replace(/_/g, ""));
  const m = PY_SPECIAL_RE.exec(s);
  if (m) return m[2].toLowerCase() === "nan" ? NaN : m[1] === "-" ? -Infinity : Infinity;
  return null;
}

/**
 * Replace bare NaN / Infinity / -Infinity tokens outside string literals by sentinel strings so that
 * JSON.parse accepts what Python's json.loads accepts (spec §3, vectors p32, hp16).
 */
export function substitutePyTokens(text: string): string {
  if (!/NaN|Infinity/.test(text)) return text;
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === "\\") out += text[++i] ?? "";
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (text.startsWith("NaN", i)) {
      out += JSON.stringify(PY_NAN);
      i += 2;
    } else if (text.startsWith("-Infinity", i)) {
      out += JSON.stringify(PY_NINF);
      i += 8;
    } else if (text.startsWith("Infinity", i)) {
      out += JSON.stringify(PY_INF);
      i += 7;
    } else out += ch;
  }
  return out;
}
