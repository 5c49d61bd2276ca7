// Textbook nominal Krippendorff alpha (src/engines/stats/krippendorff.ts). Known values are derived by hand
// below; the published examples (0.743, 0.095) are checked against the reference files in
// test/engines/judge/alpha.test.ts (vectors m01, m02).
import { describe, expect, it } from "vitest";
import { nominalAlpha } from "../../../src/engines/stats/index.ts";

describe("nominalAlpha", () => {
  it("derives alpha from the coincidence matrix of a 3-unit example", () => {
    // Units: [A,A], [A,B], [B,B] (2 raters each, m_u = 1 ⇒ each ordered pair weighs 1/(m_u−1) = 1).
    //   o_AA = 2 (unit 1), o_AB = o_BA = 1 (unit 2), o_BB = 2 (unit 3).
    //   n_A = 3, n_B = 3, n = 6; Σ_{c≠k} o = 2; Σ_{c≠k} n_c n_k = 2·3·3 = 18.
    //   α = 1 − (n−1)·2/18 = 1 − 10/18 = 4/9.
    const r = nominalAlpha([["A", "A"], ["A", "B"], ["B", "B"]]);
    expect(r.alpha).toBeCloseTo(4 / 9, 15);
    expect(r.coincidence).toEqual([[2, 1], [1, 2]]);
    expect([r.pairable, r.units_used, r.totals]).toEqual([6, 3, [3, 3]]);
  });

  it("weighs a 3-value unit by 1/(m_u − 1) and drops single-value units", () => {
    // Units: [A,A,B], [B,B,null], [C,null,null] (the last has one value: unpairable, dropped).
    //   Unit 1 (m=3, weight 1/2): ordered pairs AA:2, AB:2, BA:2 → o_AA=1, o_AB=o_BA=1.
    //   Unit 2 (m=2, weight 1): BB:2 → o_BB=2.
    //   n_A = 2, n_B = 3, n = 5; Σ_{c≠k} o = 2; Σ_{c≠k} n_c n_k = 2·2·3 = 12.
    //   α = 1 − 4·2/12 = 1/3.
    const r = nominalAlpha([["A", "A", "B"], ["B", "B", null], ["C", null, null]]);
    expect(r.alpha).toBeCloseTo(1 / 3, 15);
    expect([r.pairable, r.units_used, r.categories]).toEqual([5, 2, ["A", "B", "C"]]);
  });

  it("is exactly 1 for perfect agreement across at least two categories", () => {
    // Σ_{c≠k} o_ck = 0 ⇒ α = 1 − 0.
    expect(nominalAlpha([["X", "X", "X"], ["Y", "Y", null]]).alpha).toBe(1);
  });

  it("is undefined (null) for identical ratings in one category, empty input and unpairable units", () => {
    // One category ⇒ Σ_{c≠k} n_c n_k = 0 (0/0); no unit with two values ⇒ n = 0.
    expect(nominalAlpha([["K", "K"], ["K", "K"]]).alpha).toBeNull();
    expect(nominalAlpha([]).alpha).toBeNull();
    expect(nominalAlpha([["K", null], [null, "R"]]).alpha).toBeNull();
  });

  it("is negative for systematic disagreement", () => {
    // [A,B],[B,A]: o_AB = o_BA = 2, n_A = n_B = 2, n = 4 ⇒ α = 1 − 3·4/8 = −1/2.
    expect(nominalAlpha([["A", "B"], ["B", "A"]]).alpha).toBeCloseTo(-0.5, 15);
  });

  it("handles more categories than its initial buffers", () => {
    // 20 units, each [Lk, Lk]: perfect agreement over 20 categories ⇒ α = 1.
    const units = Array.from({ length: 20 }, (_, k) => [`L${k}`, `L${k}`]);
    const r = nominalAlpha(units);
    expect(r.alpha).toBe(1);
    expect(r.totals).toEqual(Array(20).fill(2));
  });
});
