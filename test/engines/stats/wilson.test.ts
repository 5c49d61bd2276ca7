import path from "node:path";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { wilson } from "../../../src/engines/stats/index.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const FILE = path.resolve(ROOT, process.env.REFERENCE_DIR ?? "../shared/reference", "chain-determinism", "wilson_vectors.jsonl");
const vectors = readFileSync(FILE, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

describe("wilson (wilson_vectors.jsonl)", () => {
  it("has the 45 lines the README announces", () => {
    expect(vectors).toHaveLength(45);
  });

  it.each(vectors.filter((v) => v.expected).map((v) => [v.k, v.n, v.z, v.expected]))("wilson(%i, %i, %d) is bit-exact", (k, n, z, expected) => {
    // Same IEEE operation order as the reference, so exact equality (not a tolerance) must hold.
    expect(wilson(k, n, z)).toEqual(expected);
  });

  it.each(vectors.filter((v) => v.expected_error).map((v) => [v.k, v.n, v.z]))("wilson(%i, %i, %d) rejects", (k, n, z) => {
    expect(() => wilson(k, n, z)).toThrow(RangeError);
  });
});

describe("wilson", () => {
  it("uses z = 1.96 by default", () => {
    // k=0, n=1: p=0, z2=3.8416, denom=4.8416, center=(1.9208)/4.8416, half=1.96*sqrt(0.9604)/4.8416
    // = 1.9208/4.8416, so hi = 2*1.9208/4.8416 = 0.79345... and lo = 0.
    const [lo, hi] = wilson(0, 1);
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(3.8416 / 4.8416, 12);
  });

  it("returns [null, null] when n = 0", () => {
    expect(wilson(0, 0)).toEqual([null, null]);
  });

  it.each([
    [1.5, 3],
    [0, -1],
    [4, 3],
    [NaN, 3],
    [0, 2.5],
  ])("throws RangeError naming the parameter for k=%d, n=%d", (k, n) => {
    expect(() => wilson(k, n)).toThrow(/wilson: [kn] /);
  });

  it("rejects a negative or non-finite z", () => {
    expect(() => wilson(1, 2, -1)).toThrow(RangeError);
    expect(() => wilson(1, 2, Infinity)).toThrow(RangeError);
  });
});
