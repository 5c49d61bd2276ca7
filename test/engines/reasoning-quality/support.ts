// Shared helpers of the reasoning-quality parity tests.
//
// - Reading: every reference file is read inside `describeRq` (test/support/reference.ts describeReference), so
//   a clone without $REFERENCE_DIR collects the files and reports the parity blocks as skipped.
// - Lines: `vectorLines` gives every non-empty line of a .jsonl file twice: `value`, the input side, with plain
//   JS numbers for the engine; and `exact`, the expected side, read like Python's json.loads (`lossless`), so
//   `30.0` (float) and `30` (int) stay distinct. Both come from the same lossless parse (NaN/Infinity survive).
// - Comparing: `expectPy(actual, expected)` walks the lossless expected value. Strings, booleans, nulls and
//   Python ints are exact; Python floats are exact by default, or within the README's 1e-12 where the README says
//   so (unrounded floats: raw, per_item, aggregated, tables, custom q, effective_weights). The engine returns plain
//   JS numbers, which carry no int/float tag: `numbers` says which kind the engine's value is (its declared type,
//   e.g. metric scores are floats, token counts ints; [C] produces the same kinds), and "any" lets it stand for
//   either where Python's kind depends on the input. An expected int never takes a tolerance and never matches a
//   non-integral number; a `JSON.rawJSON` value (how a lossless engine keeps `1.0`) must carry the same kind.
// - CODE_PARITY: the options that reproduce [C] where the spec's [D] defaults deliberately differ.
import { expect } from "vitest";
import { fromPlain, isRawJson, parsePyJson, type PyPlain, type PyValue } from "../../../src/engines/python/index.ts";
import type { ItemRecord, MetricOptions } from "../../../src/engines/reasoning-quality/index.ts";
import { describeReference, lossless, type ReferenceSuite } from "../../support/reference.ts";

export const SUITE = "reasoning-quality";
/** The README's tolerance for unrounded floats. */
export const TOL = 1e-12;

/** A parity block over files of $REFERENCE_DIR/reasoning-quality (skipped, or failed under REFERENCE_REQUIRED=1, when absent). */
export function describeRq(title: string, files: readonly string[], body: (ref: ReferenceSuite) => void): void {
  describeReference(title, SUITE, files, body);
}

/**
 * [C]'s behaviour where spec §4/§6 [D] changed it: items without perturbations stay in RS's C with RS_i = 0,
 * and failed generations (0 tokens) take part in ES's min–max.
 */
export const CODE_PARITY: MetricOptions = { rsWithoutPerturbations: "zero", esFailedInMinMax: true };

/** One line of a reference .jsonl file. */
export interface VectorLine<T = any> {
  /** 1-based line number in the file. */
  line: number;
  /** The input side: the lossless value with every number a JS number. */
  value: T;
  /** The expected side, lossless (`1.0` is a raw-JSON float, `1` an int): compare it with `expectPy`. */
  exact: any;
  /** "line N (id)", for test names; unique even when a line is duplicated. */
  label: string;
}

/** The lossless value with raw-JSON numbers (integral floats, big ints) turned into JS numbers: engine inputs. */
export function inputForm(p: PyPlain): any {
  if (p === null || typeof p !== "object") return p;
  if (isRawJson(p)) {
    const r = parsePyJson(p.rawJSON);
    if (!r.ok) throw new Error(`bad raw JSON ${p.rawJSON}`);
    return r.value.t === "int" ? Number(r.value.v) : (r.value as { v: number }).v;
  }
  if (Array.isArray(p)) return p.map(inputForm);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p))
    Object.defineProperty(out, k, { value: inputForm(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Every non-empty line of a .jsonl file, in file order (read inside a describeRq body only). */
export function vectorLines(ref: ReferenceSuite, file: string): VectorLine[] {
  return ref
    .text(file)
    .split("\n")
    .map((text, i) => ({ line: i + 1, text }))
    .filter((l) => l.text.trim() !== "")
    .map(({ line, text }) => {
      const exact = lossless(text);
      const value = inputForm(exact);
      const id = value && typeof value === "object" && typeof value.id === "string" ? ` (${value.id})` : "";
      return { line, value, exact, label: `line ${line}${id}` };
    });
}

/** A whole .json file, losslessly: `{ value, exact }` as for a line. */
export function vectorFile(ref: ReferenceSuite, file: string): { value: any; exact: any } {
  const exact = lossless(ref.text(file));
  return { value: inputForm(exact), exact };
}

export type PyCompare = {
  /** Absolute tolerance for Python floats (default 0: exact, and -0.0 ≠ 0.0). Python ints are always exact. */
  tol?: number;
  /** Let actual objects carry keys the expected one lacks (e.g. our record's extra fields). Default false. */
  extraKeys?: boolean;
  /**
   * The kind of the engine's plain JS numbers here: "float" (metric values), "int" (counts; a non-integral number
   * is a float), or "any" (default: Python's kind follows the input, so either matches by value).
   */
  numbers?: "any" | "int" | "float";
};

const show = (x: unknown): string => {
  if (typeof x === "bigint") return `${x}n`;
  if (isRawJson(x)) return `raw(${x.rawJSON})`;
  if (Object.is(x, -0)) return "-0";
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
};

/** The actual value's number kind: a JS number's comes from `numbers`; bigint and raw-JSON values are tagged. */
function actualNumber(
  a: unknown,
  numbers: Required<PyCompare>["numbers"],
): { kind: "any" | "int" | "float"; v: number; big?: bigint } | null {
  if (typeof a === "number") return { kind: numbers === "int" && !Number.isInteger(a) ? "float" : numbers, v: a };
  if (typeof a === "bigint") return { kind: "int", v: Number(a), big: a };
  if (isRawJson(a)) {
    const r = parsePyJson(a.rawJSON);
    if (r.ok && r.value.t === "int") return { kind: "int", v: Number(r.value.v), big: r.value.v };
    if (r.ok && r.value.t === "float") return { kind: "float", v: r.value.v };
  }
  return null;
}

function diff(actual: unknown, e: PyValue, opts: Required<PyCompare>, path: string, out: string[]): void {
  const bad = (what: string) => out.push(`${path || "(root)"}: ${what}`);
  switch (e.t) {
    case "null":
    case "bool":
    case "str": {
      const want = e.t === "null" ? null : e.v;
      if (!Object.is(actual, want)) bad(`expected ${show(want)}, got ${show(actual)}`);
      return;
    }
    case "int": {
      const a = actualNumber(actual, opts.numbers);
      const ok =
        a !== null &&
        a.kind !== "float" &&
        (a.big !== undefined ? a.big === e.v : Number.isInteger(a.v) && BigInt(a.v) === e.v);
      if (!ok) bad(`expected int ${e.v}, got ${a?.kind === "float" ? "float " : ""}${show(actual)}`);
      return;
    }
    case "float": {
      const a = actualNumber(actual, opts.numbers);
      const x = e.v;
      let ok = a !== null && a.kind !== "int";
      if (ok) {
        const v = a!.v;
        if (opts.tol === 0 || !Number.isFinite(x)) ok = Object.is(v, x);
        else ok = Number.isFinite(v) && Math.abs(v - x) <= opts.tol;
      }
      if (!ok)
        bad(
          `expected float ${show(x)}${opts.tol ? ` (±${opts.tol})` : ""}, got ${a?.kind === "int" ? "int " : ""}${show(actual)}`,
        );
      return;
    }
    case "list": {
      if (!Array.isArray(actual)) return void bad(`expected a list, got ${show(actual)}`);
      if (actual.length !== e.items.length)
        return void bad(`expected ${e.items.length} entries, got ${actual.length}: ${show(actual)}`);
      e.items.forEach((item, i) => diff(actual[i], item, opts, `${path}[${i}]`, out));
      return;
    }
    case "dict": {
      if (actual === null || typeof actual !== "object" || Array.isArray(actual) || isRawJson(actual))
        return void bad(`expected an object, got ${show(actual)}`);
      const obj = actual as Record<string, unknown>;
      const keys = new Set(e.entries.map(([k]) => k));
      for (const [k, v] of e.entries) {
        if (!Object.hasOwn(obj, k)) bad(`missing key "${k}"`);
        else diff(obj[k], v, opts, `${path}.${k}`, out);
      }
      if (!opts.extraKeys)
        for (const k of Object.keys(obj)) if (!keys.has(k) && obj[k] !== undefined) bad(`unexpected key "${k}"`);
      return;
    }
  }
}

/** Where `actual` differs from the lossless `expected` (empty when it matches). */
export function pyMismatches(actual: unknown, expected: PyPlain, opts: PyCompare = {}): string[] {
  const out: string[] = [];
  diff(
    actual,
    fromPlain(expected),
    { tol: opts.tol ?? 0, extraKeys: opts.extraKeys ?? false, numbers: opts.numbers ?? "any" },
    "",
    out,
  );
  return out;
}

/** Asserts that `actual` matches the lossless `expected` (see PyCompare); reports every differing path. */
export function expectPy(actual: unknown, expected: PyPlain, label = "", opts: PyCompare = {}): void {
  expect(pyMismatches(actual, expected, opts), label).toEqual([]);
}

/** |actual − expected| ≤ tol; nulls must match exactly. For hand-derived expectations. */
export function closeTo(actual: number | null | undefined, expected: number | null, tol = TOL, label = ""): void {
  if (expected === null || actual === null || actual === undefined) return expect(actual, label).toBe(expected);
  expect(Math.abs(actual - expected), `${label} ${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

/** Element-wise closeTo, same length. */
export function closeList(actual: readonly (number | null)[], expected: readonly (number | null)[], label = ""): void {
  expect(actual.length, label).toBe(expected.length);
  expected.forEach((e, i) => closeTo(actual[i], e, TOL, `${label}[${i}]`));
}

/** A `kind: "records"` record (`gold`) as the engine's ItemRecord (`gold_answer`). */
export function toItemRecord(r: any): ItemRecord {
  const { gold, ...rest } = r;
  return { ...rest, gold_answer: gold };
}

/** Python `==` on JSON values (dict key order ignored; 1 == 1.0), as `list.index` and `in` use it. */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object") return false; // NaN ≠ NaN, as in Python
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && pyEquals((a as any)[k], (b as any)[k]));
  }
  return false;
}
