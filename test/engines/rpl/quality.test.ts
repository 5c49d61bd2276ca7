// Stability (spec rpl.md §10) and PQS v1 (§11) at their documented points and boundaries.
import { describe, expect, it } from "vitest";
import { pqsV1, stability, stabilityBand } from "../../../src/engines/rpl/index.ts";

describe("stability", () => {
  // §10: iqr = 0 → 1/(1+0) = 1; iqr = s = 0.2 → 1/(1+1) = 0.5.
  it("scores 1.0 at zero spread and 0.5 at iqr = s", () => {
    expect(stability([0.3, 0.3, 0.3]).score).toBe(1);
    // basis [0, 0.1, 0.2, 0.3, 0.4]: p25 = 0.1, p75 = 0.3 → iqr ≈ 0.2.
    expect(stability([0, 0.1, 0.2, 0.3, 0.4]).score).toBeCloseTo(0.5, 12);
  });

  it("gives score 0 and iqr 0 for an empty basis (as the original)", () => {
    expect(stability([])).toMatchObject({ iqr: 0, score: 0 });
  });

  it.each([
    [0.05, "high"],
    [0.0500001, "medium"],
    [0.3, "medium"],
    [0.3000001, "low"],
  ])("bands iqr %f as %s", (iqr, band) => {
    expect(stabilityBand(iqr)).toBe(band);
  });
});

describe("pqsV1", () => {
  // 100·(0.4·1 + 0.4·(1 − 0) + 0.2·1) = 100; width is capped at 0.5, so width 0.9 scores like 0.5.
  it("truncates toward zero and caps the width term", () => {
    expect(pqsV1(1, 0, 1).pqs).toBe(100);
    expect(pqsV1(0, 0.9, 0).pqs).toBe(0);
    // 100·(0.4·0.5 + 0.4·(1 − 0.1/0.5) + 0.2·0.5) = 20 + 32 + 10 = 62 (up to rounding) → 61 or 62, never rounded up past.
    expect(pqsV1(0.5, 0.1, 0.5).pqs).toBe(Math.trunc(100 * (0.4 * 0.5 + 0.4 * (1 - 0.1 / 0.5) + 0.2 * 0.5)));
  });

  it("sets each gate at its threshold inclusively", () => {
    expect(pqsV1(0.25, 0.3, 0.98)).toMatchObject({
      gate_compliance_ok: 1,
      gate_stability_ok: 1,
      gate_precision_ok: 1,
      pqs_version: "v1",
    });
    expect(pqsV1(0.2499, 0.3001, 0.9799)).toMatchObject({
      gate_compliance_ok: 0,
      gate_stability_ok: 0,
      gate_precision_ok: 0,
    });
  });
});
