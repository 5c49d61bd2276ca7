import { describe, expect, it } from "vitest";
import { wilson } from "../../../src/engines/stats/index.ts";
import { describeReference, expectPythonError, itEachCase, lossless, type RefLine } from "../../support/reference.ts";
import { asJsNumbers, lineName } from "../chain-determinism/parity.ts";

type WilsonLine = {
  k: number;
  n: number;
  z?: number;
  expected?: [number, number] | [null, null];
  expected_error?: string;
};

// The reference's z when a line gives one; without it, the default (1.96, as the harness).
const run = ({ k, n, z }: WilsonLine) => (z === undefined ? wilson(k, n) : wilson(k, n, z));
const call = (r: RefLine<WilsonLine>) =>
  `wilson(${r.value.k}, ${r.value.n}${r.value.z === undefined ? "" : `, ${r.value.z}`})`;

describeReference("wilson (wilson_vectors.jsonl)", "chain-determinism", ["wilson_vectors.jsonl"], (ref) => {
  const lines = ref.records<WilsonLine>("wilson_vectors.jsonl");

  it("has only lines with an expected interval or an expected error", () => {
    for (const r of lines)
      expect(r.value.expected !== undefined || typeof r.value.expected_error === "string", lineName(r)).toBe(true);
  });

  itEachCase(
    lines.filter((r) => r.value.expected !== undefined),
    (r) => lineName(r, `${call(r)} is bit-exact`),
    "line with an expected interval",
    (r) => {
      // Same IEEE operation order as the reference, so exact equality (not a tolerance) must hold.
      // The expected pair is read losslessly; wilson returns JS numbers, so `1.0` there is the number 1.
      expect(run(r.value)).toEqual(asJsNumbers((lossless(r.text) as { expected: unknown }).expected));
    },
  );

  itEachCase(
    lines.filter((r) => r.value.expected_error !== undefined),
    (r) => lineName(r, `${call(r)} raises like ${r.value.expected_error}`),
    "line with an expected_error",
    (r) => {
      expectPythonError(() => run(r.value), r.value.expected_error!);
    },
  );
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
