// Bootstrap-seed parity (spec rpl.md §8): every line of $REFERENCE_DIR/rpl/seed_vectors.jsonl, exact.
// K, R, B and trim are written into the hashed canonical string with Python str(), where int 16 and float
// 16.0 differ; so each line is also read losslessly and the test checks that those fields have the Python
// type the engine formats them as (K, R, B ints; trim a float) before comparing the canonical string.
import { describe, expect, it } from "vitest";
import { isRawJson, type PyPlain } from "../../../src/engines/python/index.ts";
import { bootstrapSeedCanonical, makeBootstrapSeed, parseSeed } from "../../../src/engines/rpl/index.ts";
import {
  describeReference,
  itEachCase,
  lossless,
  pythonErrorOf,
  expectPythonRejection,
} from "../../support/reference.ts";

/** Python type of a losslessly read JSON number: "int" for an integer lexeme, "float" for one with `.`/`e`. */
function pyNumberType(v: PyPlain | undefined): "int" | "float" | "not a number" {
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (isRawJson(v)) return /^-?\d+$/.test(v.rawJSON) ? "int" : "float";
  return "not a number";
}

/** A losslessly read integer (JSON number of any size, or decimal string) as a decimal string. */
function decimal(v: PyPlain | undefined): string {
  if (typeof v === "string" || (typeof v === "number" && Number.isInteger(v))) return String(v);
  if (isRawJson(v) && /^\d+$/.test(v.rawJSON)) return v.rawJSON;
  throw new TypeError(`not an integer: ${JSON.stringify(v)}`);
}

const inputOf = (v: any) => ({
  claim: v.claim,
  model: v.model,
  promptVersionFull: v.prompt_version,
  K: v.K,
  R: v.R,
  templateHashes: v.template_hashes,
  center: v.center,
  trim: v.trim,
  B: v.B,
});

describeReference("seed vectors", "rpl", ["seed_vectors.jsonl"], (ref) => {
  const lines = ref.records("seed_vectors.jsonl");
  const seeds = lines.filter((r) => pythonErrorOf(r.value) === null);
  const errors = lines.filter((r) => pythonErrorOf(r.value) !== null);

  itEachCase(
    seeds,
    (r) => `line ${r.line} (${JSON.stringify(r.value.claim)}): canonical string and 64-bit seed`,
    "seed line",
    async (r) => {
      const v = r.value;
      const py = lossless(r.text) as Record<string, PyPlain>;
      for (const f of ["K", "R", "B"])
        expect(pyNumberType(py[f]), `${f} goes through str(); the engine writes it as an int`).toBe("int");
      expect(pyNumberType(py.trim), "trim goes through str(); the engine writes it as a float").toBe("float");

      const input = inputOf(v);
      expect(bootstrapSeedCanonical(input)).toBe(v.canonical);
      const seed = await makeBootstrapSeed(input);
      expect(seed.toString()).toBe(decimal(py.seed));
      // seed_hex is the same integer in hex; compared as a number so zero-padding or a 0x prefix do not matter.
      expect(seed).toBe(BigInt(`0x${String(v.seed_hex).replace(/^0x/i, "")}`));
    },
  );

  itEachCase(
    errors,
    (r) => `line ${r.line}: raises like Python's ${pythonErrorOf(r.value)}`,
    "line with an expected error",
    async (r) => {
      await expectPythonRejection(() => makeBootstrapSeed(inputOf(r.value)), pythonErrorOf(r.value)!);
    },
  );
});

describe("parseSeed", () => {
  it("keeps 64-bit seeds exact and rejects out-of-range ones", () => {
    expect(parseSeed("18446744073709551615")).toBe(2n ** 64n - 1n);
    expect(() => parseSeed("18446744073709551616")).toThrow(RangeError);
    expect(() => parseSeed(-1)).toThrow(RangeError);
    expect(() => parseSeed(2 ** 60)).toThrow(RangeError);
  });

  // Python str(0.0) is "0.0"; JS String(0) is "0".
  it("writes an integral trim the way Python str(float) does", () => {
    expect(
      bootstrapSeedCanonical({
        claim: "c",
        model: "m",
        promptVersionFull: "p",
        K: 1,
        R: 1,
        templateHashes: [],
        trim: 0,
      }),
    ).toContain("|trim=0.0|");
  });
});
