// Helpers for the chain-determinism parity tests (not a test file itself). The reference lines are read
// with test/support/reference.ts; these only name the tests and compare an engine's output with a line's
// expected value without losing what Python's json keeps (1 vs 1.0, big ints, NaN, -0.0).
import { isRawJson } from "../../../src/engines/python/index.ts";
import type { RefLine } from "../../support/reference.ts";

/** `line 7 (desc)`: the 1-based line number plus the line's own `id` and/or `desc`, when it has them. */
export function lineName(r: RefLine, what?: string): string {
  const v = r.value as { id?: unknown; desc?: unknown } | null;
  const tags = [v?.id, v?.desc].filter((t) => t !== undefined && t !== null && t !== "").map((t) => `(${String(t)})`);
  return [`line ${r.line}`, ...tags].join(" ") + (what ? `: ${what}` : "");
}

/** A number tagged with its Python type; see {@link typed}. */
export type Typed =
  | null
  | boolean
  | string
  | { int: string }
  | { float: number }
  | Typed[]
  | { dict: Array<[string, Typed]> };

const INT_LEXEME = /^-?[0-9]+$/;

/**
 * A stored-form value (what the engine records, or what `lossless()` reads from a reference line) with
 * every number tagged as Python would type it, so a deep comparison tells `1` from `1.0`, keeps big ints
 * exact, compares NaN with NaN and -0.0 with -0.0 (toEqual uses Object.is), and checks dict key order.
 * Written here rather than with the engine's fromPlain, so a fault there cannot hide in both sides.
 * In the stored form a plain JS number is an int when integral (and not -0), else a float; an integral
 * float or an int beyond 2^53 is a raw-JSON wrapper whose lexeme says which it is. Object keys whose value
 * is `undefined` are left out and `undefined` array items read as null, as JSON.stringify stores them.
 */
export function typed(v: unknown): Typed {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "bigint":
      return { int: v.toString() };
    case "number":
      return Number.isInteger(v) && !Object.is(v, -0) ? { int: String(v) } : { float: v };
    case "object":
      break;
    default:
      throw new TypeError(`typed: a ${typeof v} has no JSON form`);
  }
  if (isRawJson(v))
    return INT_LEXEME.test(v.rawJSON) ? { int: BigInt(v.rawJSON).toString() } : { float: Number(v.rawJSON) };
  if (Array.isArray(v)) return v.map(typed);
  return {
    dict: Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]): [string, Typed] => [k, typed(x)]),
  };
}

/**
 * The lossless expected value as the JS numbers an engine API returns where its type is a plain `number`
 * (stats, intervals, request parameters): a JS number cannot say "float", so there `1.0` must equal `1`;
 * the value itself is still compared exactly (-0.0 stays -0, NaN stays NaN). Use {@link typed} instead
 * wherever the engine keeps the Python type (recorded args, final answers, stored rows).
 */
export function asJsNumbers(v: unknown): unknown {
  if (isRawJson(v)) return Number(v.rawJSON);
  if (Array.isArray(v)) return v.map(asJsNumbers);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asJsNumbers(x)]));
  return v;
}
