/**
 * A JSON reader with CPython `json.loads` semantics that keeps what JS `JSON.parse` throws away
 * (spec chain-determinism.md §2 "Parse raw", §4 "int vs float comes from the JSON lexeme").
 *
 * Values are a small tagged tree so that `1` (int) and `1.0` (float), big ints and NaN survive.
 * The loop stores tool arguments as {@link PyPlain} (see {@link toPlain}); the tree is only the
 * in-memory form used for keys and reprs.
 */

import { pyFloatRepr } from "./float.ts";

export type PyValue =
  | { t: "null" }
  | { t: "bool"; v: boolean }
  | { t: "int"; v: bigint }
  | { t: "float"; v: number }
  | { t: "str"; v: string }
  | { t: "list"; items: PyValue[] }
  /** Entries in first-insertion order with the last value for a repeated key (Python dict). */
  | { t: "dict"; entries: Array<[string, PyValue]> };

export type ParseResult = { ok: true; value: PyValue } | { ok: false; error: string };

/**
 * How deep a model's JSON (tool-call arguments, an error body) may nest before it counts as unparsable,
 * as CPython's RecursionError makes it (spec chain-determinism.md §2: "parse fails -> malformed"). The
 * tree walkers below (toPlain, fromPlain, pyRepr, the sequence keys) recurse once per level, which is
 * safe at this depth in Node and workerd alike (each allows well over ten thousand frames).
 */
export const PY_JSON_MAX_DEPTH = 900;

/**
 * How deep our own stored rows may nest when read back ({@link parseLossless}, {@link fromPlain}): a
 * record wraps a tool call's arguments in a few levels (output → row → tool_call_sequence → entry →
 * args), so anything {@link parsePyJson} accepted as arguments must still read back inside one.
 */
export const STORED_MAX_DEPTH = PY_JSON_MAX_DEPTH + 32;

// CPython 3.11+ refuses int() on more than 4300 digits (sys.int_info.str_digits_check_threshold
// default); json.loads surfaces that as a ValueError, which the harness treats as malformed.
const MAX_INT_DIGITS = 4300;

class ParseError extends Error {}

/**
 * Parses `text` as CPython's `json.loads` would (strict mode): whitespace is only space, tab,
 * CR and LF; `NaN`, `Infinity`, `-Infinity` are accepted; a number lexeme containing `.`, `e`
 * or `E` is a float (so `1e400` is `inf`), otherwise an exact int; duplicate keys keep the
 * first position and the last value; raw control characters inside strings are rejected; a
 * `\u` high surrogate followed by a `\u` low surrogate is joined, lone ones are kept.
 * A value inside more than `maxDepth` containers is a failure too: CPython's `json.loads` raises
 * RecursionError near its recursion limit (1000 frames), and so deep a text must not overflow ours.
 * Never throws: a failure is reported as `{ ok: false }` so the caller can mark args malformed.
 */
export function parsePyJson(text: string, maxDepth: number = PY_JSON_MAX_DEPTH): ParseResult {
  const p: Cursor = { s: text, i: 0, maxDepth };
  try {
    skipWs(p);
    const value = readValue(p, 0);
    skipWs(p);
    if (p.i !== text.length) throw new ParseError(`Extra data at ${p.i}`);
    return { ok: true, value };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, error: e.message };
    // Deep nesting: Python raises RecursionError; we report it as malformed rather than crash.
    if (e instanceof RangeError) return { ok: false, error: e.message };
    throw e;
  }
}

type Cursor = { s: string; i: number; maxDepth: number };

function skipWs(p: Cursor): void {
  for (;;) {
    const c = p.s.charCodeAt(p.i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) p.i++;
    else return;
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

function readValue(p: Cursor, depth: number): PyValue {
  if (depth > p.maxDepth) throw new ParseError("nesting too deep");
  const s = p.s;
  const c = s[p.i];
  if (c === "{") return readDict(p, depth);
  if (c === "[") return readList(p, depth);
  if (c === '"') return { t: "str", v: readString(p) };
  if (s.startsWith("null", p.i)) return ((p.i += 4), { t: "null" });
  if (s.startsWith("true", p.i)) return ((p.i += 4), { t: "bool", v: true });
  if (s.startsWith("false", p.i)) return ((p.i += 5), { t: "bool", v: false });
  if (s.startsWith("NaN", p.i)) return ((p.i += 3), { t: "float", v: NaN });
  if (s.startsWith("Infinity", p.i)) return ((p.i += 8), { t: "float", v: Infinity });
  if (s.startsWith("-Infinity", p.i)) return ((p.i += 9), { t: "float", v: -Infinity });
  NUMBER.lastIndex = p.i;
  const m = NUMBER.exec(s);
  if (!m) throw new ParseError(`Expecting value at ${p.i}`);
  p.i += m[0].length;
  if (m[1] === undefined && m[2] === undefined) {
    if (m[0].replace("-", "").length > MAX_INT_DIGITS) throw new ParseError("int too long");
    return { t: "int", v: BigInt(m[0]) };
  }
  // Number() rounds the decimal lexeme correctly (IEEE nearest), as CPython's float() does.
  return { t: "float", v: Number(m[0]) };
}

function readDict(p: Cursor, depth: number): PyValue {
  p.i++;
  const index = new Map<string, number>();
  const entries: Array<[string, PyValue]> = [];
  skipWs(p);
  if (p.s[p.i] === "}") return (p.i++, { t: "dict", entries });
  for (;;) {
    if (p.s[p.i] !== '"') throw new ParseError(`Expecting property name at ${p.i}`);
    const key = readString(p);
    skipWs(p);
    if (p.s[p.i] !== ":") throw new ParseError(`Expecting ':' at ${p.i}`);
    p.i++;
    skipWs(p);
    const value = readValue(p, depth + 1);
    const at = index.get(key);
    if (at === undefined) index.set(key, entries.push([key, value]) - 1);
    else entries[at][1] = value;
    skipWs(p);
    const c = p.s[p.i++];
    if (c === "}") return { t: "dict", entries };
    if (c !== ",") throw new ParseError(`Expecting ',' delimiter at ${p.i - 1}`);
    skipWs(p);
  }
}

function readList(p: Cursor, depth: number): PyValue {
  p.i++;
  const items: PyValue[] = [];
  skipWs(p);
  if (p.s[p.i] === "]") return (p.i++, { t: "list", items });
  for (;;) {
    items.push(readValue(p, depth + 1));
    skipWs(p);
    const c = p.s[p.i++];
    if (c === "]") return { t: "list", items };
    if (c !== ",") throw new ParseError(`Expecting ',' delimiter at ${p.i - 1}`);
    skipWs(p);
  }
}

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

function readHex4(p: Cursor, at: number): number {
  const h = p.s.slice(at, at + 4);
  if (!/^[0-9a-fA-F]{4}$/.test(h)) throw new ParseError(`Invalid \\uXXXX escape at ${at}`);
  return parseInt(h, 16);
}

function readString(p: Cursor): string {
  const s = p.s;
  let i = p.i + 1;
  let out = "";
  for (;;) {
    if (i >= s.length) throw new ParseError("Unterminated string");
    const c = s.charCodeAt(i);
    if (c === 0x22) break;
    if (c < 0x20) throw new ParseError(`Invalid control character at ${i}`);
    if (c !== 0x5c) {
      out += s[i++];
      continue;
    }
    const e = s[i + 1];
    if (e === "u") {
      let cp = readHex4(p, i + 2);
      i += 6;
      // CPython joins \uD8xx\uDCxx into one code point; anything else stays a lone surrogate.
      if (cp >= 0xd800 && cp <= 0xdbff && s[i] === "\\" && s[i + 1] === "u") {
        const lo = readHex4(p, i + 2);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          i += 6;
        }
      }
      out += String.fromCodePoint(cp);
    } else if (e !== undefined && e in ESCAPES) {
      out += ESCAPES[e];
      i += 2;
    } else {
      throw new ParseError(`Invalid \\escape at ${i}`);
    }
  }
  p.i = i + 1;
  return out;
}

/**
 * The plain-JS form stored in records: strings, booleans, null, arrays and objects as usual;
 * ints in the safe range as numbers; everything a JS number cannot carry faithfully as
 * `JSON.rawJSON(lexeme)` (ints beyond 2^53 and integral floats such as `1.0` or `1e+16`), so
 * `JSON.stringify` writes them back exactly. NaN and ±Infinity stay JS numbers: JSON cannot
 * express them (stringify writes null), but the in-memory value keeps them for keys.
 * Caveat: a JS object orders integer-like keys first, so the stored key order may differ from
 * the wire order; key order never affects the sequence key (§4 sorts keys).
 */
export type PyPlain = null | boolean | number | string | RawJson | PyPlain[] | { [key: string]: PyPlain };
export type RawJson = { readonly rawJSON: string };

type RawJsonApi = { rawJSON(text: string): RawJson; isRawJSON(value: unknown): value is RawJson };
// Typed locally: TypeScript's es2023 lib does not declare JSON.rawJSON (V8 11.4+, Node 21+, workerd).
const RAW = JSON as unknown as RawJsonApi;

export function isRawJson(value: unknown): value is RawJson {
  return RAW.isRawJSON(value);
}

/**
 * A Python float as `json.dumps` writes it: its `repr()` (`0.0`, `1e-05`, `1e+16`), which
 * `JSON.stringify` then writes as is. For outputs that claim the original's format. NaN and ±Infinity
 * stay numbers (JSON cannot hold them; stringify writes null).
 */
export function pyFloatJson(x: number): number | RawJson {
  return Number.isFinite(x) ? RAW.rawJSON(pyFloatRepr(x)) : x;
}

/** Tree → stored form (see {@link PyPlain}). Object keys are defined, never assigned, so `__proto__` is safe. */
export function toPlain(value: PyValue): PyPlain {
  switch (value.t) {
    case "null":
      return null;
    case "bool":
    case "str":
      return value.v;
    case "int": {
      const n = Number(value.v);
      return Number.isSafeInteger(n) ? n : RAW.rawJSON(value.v.toString());
    }
    case "float": {
      const x = value.v;
      if (!Number.isFinite(x)) return x;
      // Integral floats (incl. -0.0) would read back as ints; keep their Python repr lexeme.
      return Number.isInteger(x) ? RAW.rawJSON(pyFloatRepr(x)) : x;
    }
    case "list":
      return value.items.map(toPlain);
    case "dict": {
      const obj: { [key: string]: PyPlain } = {};
      for (const [k, v] of value.entries)
        Object.defineProperty(obj, k, { value: toPlain(v), enumerable: true, writable: true, configurable: true });
      return obj;
    }
  }
}

/**
 * Stored form (or any JSON.parse output) → tree. JS numbers map to int when integral and to
 * float otherwise (NaN/±Infinity are floats); raw-JSON wrappers are re-read losslessly; bigint
 * is an int. Throws TypeError for values JSON has no form for (undefined, functions, symbols) and for
 * a container inside more than {@link STORED_MAX_DEPTH} others.
 */
export function fromPlain(value: unknown): PyValue {
  return fromPlainAt(value, 0);
}

function fromPlainAt(value: unknown, depth: number): PyValue {
  if (value === null) return { t: "null" };
  switch (typeof value) {
    case "boolean":
      return { t: "bool", v: value };
    case "string":
      return { t: "str", v: value };
    case "bigint":
      return { t: "int", v: value };
    case "number":
      return Number.isInteger(value) && !Object.is(value, -0)
        ? { t: "int", v: BigInt(value) }
        : { t: "float", v: value };
    case "object":
      break;
    default:
      throw new TypeError(`fromPlain: cannot key a value of type ${typeof value}`);
  }
  if (isRawJson(value)) {
    const r = parsePyJson(value.rawJSON);
    if (!r.ok) throw new TypeError(`fromPlain: invalid raw JSON ${value.rawJSON}`);
    return r.value;
  }
  // Deeper than anything we store: refuse plainly rather than overflow the stack further down.
  if (depth > STORED_MAX_DEPTH) throw new TypeError(`fromPlain: value nests deeper than ${STORED_MAX_DEPTH} levels`);
  if (Array.isArray(value)) return { t: "list", items: value.map((v) => fromPlainAt(v, depth + 1)) };
  return {
    t: "dict",
    entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromPlainAt(v, depth + 1)]),
  };
}

/**
 * Reads stored JSON text (e.g. a per-replay row written with JSON.stringify) back into the stored
 * form without merging `1.0` into `1` or rounding big ints, so sequence keys survive storage.
 * Plain `JSON.parse` would silently change the keys of such rows. Rows may nest up to
 * {@link STORED_MAX_DEPTH}, a little more than model arguments may, since a row wraps them.
 * @throws SyntaxError when `text` is not JSON (Python json.loads grammar).
 */
export function parseLossless(text: string): PyPlain {
  const r = parsePyJson(text, STORED_MAX_DEPTH);
  if (!r.ok) throw new SyntaxError(`parseLossless: ${r.error}`);
  return toPlain(r.value);
}

/** Python truthiness of a parsed JSON value (`args or {}`, `if row.get("error_category")`). */
export function pyTruthy(v: PyValue): boolean {
  switch (v.t) {
    case "null":
      return false;
    case "bool":
      return v.v;
    case "int":
      return v.v !== 0n;
    case "float":
      return v.v !== 0; // NaN is truthy in Python, and NaN !== 0.
    case "str":
      return v.v !== "";
    case "list":
      return v.items.length > 0;
    case "dict":
      return v.entries.length > 0;
  }
}
