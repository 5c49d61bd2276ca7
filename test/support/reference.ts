// Shared by the parity tests: the original tools' golden vectors are read at run time from
// $REFERENCE_DIR/<suite> (default ../shared/reference, relative to the repo root) and never copied here.
//
// A fresh clone has no such folder, so a parity block whose files are missing registers one skipped
// test that says what it needs and where REFERENCE_DIR points (vitest counts it as skipped, not passed).
// CI sets REFERENCE_REQUIRED=1: then a missing file fails the run instead, so parity never skips silently.
//
// Tests are driven by the files' own lines: they iterate over whatever lines the folder holds and find
// the kind of case they need by its content, never by today's line counts or ids.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePyJson, toPlain, type PyPlain, type PyValue } from "../../src/engines/python/index.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const REFERENCE_ROOT = path.resolve(ROOT, process.env.REFERENCE_DIR ?? "../shared/reference");
export const REFERENCE_REQUIRED = process.env.REFERENCE_REQUIRED === "1";

/**
 * One line of a .jsonl file: its 1-based line number, its raw text and its value as plain JavaScript
 * (read as Python's json.loads reads it, so `NaN` and `Infinity` are numbers; ints past 2^53 become
 * BigInt; read `text` with `lossless` where 1.0 must stay apart from 1).
 */
export interface RefLine<T = any> {
  line: number;
  text: string;
  value: T;
}

export interface ReferenceSuite {
  dir: string;
  text(file: string): string;
  json<T = any>(file: string): T;
  /** Non-empty lines of a .jsonl file, raw, so a test can also read them losslessly. */
  lines(file: string): string[];
  /** Every non-empty line of a .jsonl file with its line number and parsed value. */
  records<T = any>(file: string): RefLine<T>[];
}

/** Readers for one reference suite folder, e.g. `referenceFiles("rpl")`. They throw if a file is absent. */
export function referenceFiles(suite: string): ReferenceSuite {
  const dir = path.join(REFERENCE_ROOT, suite);
  const text = (file: string): string => readFileSync(path.join(dir, file), "utf8");
  const numbered = (file: string) =>
    text(file)
      .split("\n")
      .map((t, i) => ({ line: i + 1, text: t }))
      .filter((l) => l.text.trim() !== "");
  return {
    dir,
    text,
    json: <T = any>(file: string): T => JSON.parse(text(file)) as T,
    lines: (file: string): string[] => numbered(file).map((l) => l.text),
    records: <T = any>(file: string): RefLine<T>[] =>
      numbered(file).map((l) => ({ ...l, value: pyJsonLoads(l.text) as T })),
  };
}

/** The files of `suite` that the reference folder lacks. */
export function missingReference(suite: string, files: readonly string[]): string[] {
  return files.filter((f) => !existsSync(path.join(REFERENCE_ROOT, suite, f)));
}

/**
 * A parity block over `files` of `suite`: `body` declares its tests when every file is present.
 * Otherwise the block is one skipped test naming the missing files and REFERENCE_DIR, or, when
 * REFERENCE_REQUIRED=1, one failing test.
 */
export function describeReference(
  title: string,
  suite: string,
  files: readonly string[],
  body: (ref: ReferenceSuite) => void,
): void {
  const missing = missingReference(suite, files);
  if (missing.length === 0) {
    describe(title, () => body(referenceFiles(suite)));
    return;
  }
  const what = `needs ${missing.map((f) => `${suite}/${f}`).join(", ")} in REFERENCE_DIR (${REFERENCE_ROOT})`;
  describe(title, () => {
    if (REFERENCE_REQUIRED)
      it(what, () => expect.fail(`REFERENCE_REQUIRED=1 and the golden vectors are missing: ${what}`));
    else it.skip(`skipped: ${what}`, () => {});
  });
}

/**
 * it.each over the cases a test found in the reference folder by their content. When the folder holds
 * none, one skipped test says so (`none` describes the kind of line that was looked for).
 */
export function itEachCase<T>(
  cases: readonly T[],
  name: (c: T) => string,
  none: string,
  fn: (c: T) => void | Promise<void>,
): void {
  if (cases.length === 0) {
    it.skip(`skipped: the reference folder has no ${none}`, () => {});
    return;
  }
  for (const c of cases) it(name(c), () => fn(c));
}

/** Python's `json.loads` into plain JavaScript values (see RefLine). */
export function pyJsonLoads(text: string): unknown {
  const r = parsePyJson(text);
  if (!r.ok) throw new Error(`reference text is not JSON: ${r.error}`);
  const plain = (v: PyValue): unknown => {
    switch (v.t) {
      case "null":
        return null;
      case "bool":
      case "str":
      case "float":
        return v.v;
      case "int":
        return Number.isSafeInteger(Number(v.v)) ? Number(v.v) : v.v;
      case "list":
        return v.items.map(plain);
      case "dict": {
        const o: Record<string, unknown> = {};
        for (const [k, x] of v.entries)
          Object.defineProperty(o, k, { value: plain(x), enumerable: true, writable: true, configurable: true });
        return o;
      }
    }
  };
  return plain(r.value);
}

/** Python-`json.loads`-faithful read into the stored form (keeps 1.0, big ints, NaN). */
export function lossless(text: string): PyPlain {
  const r = parsePyJson(text);
  if (!r.ok) throw new Error(`reference text is not JSON: ${r.error}`);
  return toPlain(r.value);
}

/**
 * The JavaScript error classes our engines throw where the original raised a Python exception. Engines
 * follow the style guide (RangeError for a bad value, TypeError for a bad type); a Python class not listed
 * here only requires that something is thrown.
 */
const PY_TO_JS: Record<string, readonly (new (...a: any[]) => Error)[]> = {
  ValueError: [RangeError, TypeError],
  TypeError: [TypeError],
  KeyError: [RangeError, TypeError],
  IndexError: [RangeError],
  ZeroDivisionError: [RangeError],
  OverflowError: [RangeError],
};

/** Asserts that `fn` throws what the original's `pyClass` (e.g. "ValueError", or "ValueError: msg") maps to. */
export function expectPythonError(fn: () => unknown, pyClass: string): void {
  const cls = pyClass.split(/[:(\s]/)[0]!;
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, `expected a throw like Python's ${cls}`).toBeInstanceOf(Error);
  const allowed = PY_TO_JS[cls];
  if (allowed)
    expect(
      allowed.some((C) => thrown instanceof C),
      `${cls} → ${(thrown as Error).name}`,
    ).toBe(true);
}

/** {@link expectPythonError} for an engine function that may reject as well as throw. */
export async function expectPythonRejection(fn: () => unknown, pyClass: string): Promise<void> {
  let settled: { ok: true } | { ok: false; error: unknown };
  try {
    await fn();
    settled = { ok: true };
  } catch (error) {
    settled = { ok: false, error };
  }
  expectPythonError(() => {
    if (!settled.ok) throw settled.error;
  }, pyClass);
}

/**
 * The Python exception class a reference line expects instead of outputs, if any: `expected_error`,
 * `raises` or `error`, as a string or as an object with `class`, `type` or `raises` (the suites' READMEs
 * use these names).
 */
export function pythonErrorOf(line: any): string | null {
  for (const k of ["expected_error", "raises", "error"]) {
    const e = line?.[k];
    if (typeof e === "string" && e !== "") return e;
    const cls = e?.class ?? e?.type ?? e?.raises;
    if (typeof cls === "string" && cls !== "") return cls;
  }
  return null;
}
