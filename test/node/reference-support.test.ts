// The parity tests' own support (test/support/reference.ts): how reference lines are read and how a
// missing folder is reported.
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { expectPythonError, missingReference, pyJsonLoads, REFERENCE_ROOT } from "../support/reference.ts";

describe("pyJsonLoads", () => {
  it("reads what Python's json writes: NaN, Infinity, big ints", () => {
    expect(pyJsonLoads('[NaN, -Infinity, 1.0, 12345678901234567890, {"a": null}]')).toEqual([
      NaN,
      -Infinity,
      1,
      12345678901234567890n,
      { a: null },
    ]);
  });
});

describe("missingReference", () => {
  it("names the files a folder lacks", () => {
    const dir = mkdtempSync(join(tmpdir(), "assay-ref-"));
    mkdirSync(join(dir, "suite"));
    writeFileSync(join(dir, "suite", "a.jsonl"), "{}\n");
    // REFERENCE_ROOT is fixed for the run, so reach the temporary folder relative to it.
    const suite = join(relative(REFERENCE_ROOT, dir), "suite");
    expect(missingReference(suite, ["a.jsonl", "b.jsonl"])).toEqual(["b.jsonl"]);
  });
});

describe("expectPythonError", () => {
  it("accepts the JavaScript class a Python class maps to, and refuses another", () => {
    expectPythonError(() => {
      throw new RangeError("k > n");
    }, "ValueError");
    expect(() =>
      expectPythonError(() => {
        throw new SyntaxError("nope");
      }, "ValueError"),
    ).toThrow();
    expect(() => expectPythonError(() => 1, "ValueError")).toThrow();
  });
});
