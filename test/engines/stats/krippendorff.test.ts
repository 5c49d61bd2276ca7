// Textbook nominal Krippendorff alpha (src/engines/stats/krippendorff.ts). Known values are derived by hand
// below, including Krippendorff's (2011) two published examples (0.743 and 0.095), written out here from the
// paper so they run without the reference folder; test/engines/judge/alpha.test.ts also finds them in the
// reference files by their notes.
import { describe, expect, it } from "vitest";
import { nominalAlpha } from "../../../src/engines/stats/index.ts";

describe("nominalAlpha", () => {
  it("derives alpha from the coincidence matrix of a 3-unit example", () => {
    // Units: [A,A], [A,B], [B,B] (2 raters each, m_u = 1 ⇒ each ordered pair weighs 1/(m_u−1) = 1).
    //   o_AA = 2 (unit 1), o_AB = o_BA = 1 (unit 2), o_BB = 2 (unit 3).
    //   n_A = 3, n_B = 3, n = 6; Σ_{c≠k} o = 2; Σ_{c≠k} n_c n_k = 2·3·3 = 18.
    //   α = 1 − (n−1)·2/18 = 1 − 10/18 = 4/9.
    const r = nominalAlpha([
      ["A", "A"],
      ["A", "B"],
      ["B", "B"],
    ]);
    expect(r.alpha).toBeCloseTo(4 / 9, 15);
    expect(r.coincidence).toEqual([
      [2, 1],
      [1, 2],
    ]);
    expect([r.pairable, r.units_used, r.totals]).toEqual([6, 3, [3, 3]]);
  });

  it("weighs a 3-value unit by 1/(m_u − 1) and drops single-value units", () => {
    // Units: [A,A,B], [B,B,null], [C,null,null] (the last has one value: unpairable, dropped).
    //   Unit 1 (m=3, weight 1/2): ordered pairs AA:2, AB:2, BA:2 → o_AA=1, o_AB=o_BA=1.
    //   Unit 2 (m=2, weight 1): BB:2 → o_BB=2.
    //   n_A = 2, n_B = 3, n = 5; Σ_{c≠k} o = 2; Σ_{c≠k} n_c n_k = 2·2·3 = 12.
    //   α = 1 − 4·2/12 = 1/3.
    const r = nominalAlpha([
      ["A", "A", "B"],
      ["B", "B", null],
      ["C", null, null],
    ]);
    expect(r.alpha).toBeCloseTo(1 / 3, 15);
    expect([r.pairable, r.units_used, r.categories]).toEqual([5, 2, ["A", "B", "C"]]);
  });

  it("is exactly 1 for perfect agreement across at least two categories", () => {
    // Σ_{c≠k} o_ck = 0 ⇒ α = 1 − 0.
    expect(
      nominalAlpha([
        ["X", "X", "X"],
        ["Y", "Y", null],
      ]).alpha,
    ).toBe(1);
  });

  it("is undefined (null) for identical ratings in one category, empty input and unpairable units", () => {
    // One category ⇒ Σ_{c≠k} n_c n_k = 0 (0/0); no unit with two values ⇒ n = 0.
    expect(
      nominalAlpha([
        ["K", "K"],
        ["K", "K"],
      ]).alpha,
    ).toBeNull();
    expect(nominalAlpha([]).alpha).toBeNull();
    expect(
      nominalAlpha([
        ["K", null],
        [null, "R"],
      ]).alpha,
    ).toBeNull();
  });

  it("is negative for systematic disagreement", () => {
    // [A,B],[B,A]: o_AB = o_BA = 2, n_A = n_B = 2, n = 4 ⇒ α = 1 − 3·4/8 = −1/2.
    expect(
      nominalAlpha([
        ["A", "B"],
        ["B", "A"],
      ]).alpha,
    ).toBeCloseTo(-0.5, 15);
  });

  it("reproduces the published 12-unit, 4-coder example with missing values (α = 0.743)", () => {
    // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", nominal example; units are the
    // columns of the paper's table (coders A–D), null = no value. Unit 12 has one value: unpairable.
    const units = [
      ["1", "1", null, "1"],
      ["2", "2", "3", "2"],
      ["3", "3", "3", "3"],
      ["3", "3", "3", "3"],
      ["2", "2", "2", "2"],
      ["1", "2", "3", "4"],
      ["4", "4", "4", "4"],
      ["1", "1", "2", "1"],
      ["2", "2", "2", "2"],
      [null, "5", "5", "5"],
      [null, null, "1", "1"],
      [null, "3", null, null],
    ];
    // Coincidences (the paper's table): unit 2 [2,2,2,3] (m=4, w=1/3) adds o_22 = 3·2/3 = 2, o_23 = o_32 = 3/3 = 1;
    // unit 6 [1,2,3,4] adds 1/3 to each off-diagonal pair; unit 8 [1,1,1,2] adds o_11 = 2, o_12 = o_21 = 1; … giving
    //   o = [[7, 4/3, 1/3, 1/3, 0], [4/3, 10, 4/3, 1/3, 0], [1/3, 4/3, 8, 1/3, 0], [1/3, 1/3, 1/3, 4, 0], [0, 0, 0, 0, 3]],
    //   n_c = 9, 13, 10, 5, 3; n = 40; Σ_{c≠k} o = 8; Σ_{c≠k} n_c n_k = 40² − (81+169+100+25+9) = 1216.
    //   α = 1 − 39·8/1216 = 113/152 = 0.7434…
    const r = nominalAlpha(units);
    expect(r.categories).toEqual(["1", "2", "3", "4", "5"]);
    const third = 1 / 3;
    const expected = [
      [7, 4 * third, third, third, 0],
      [4 * third, 10, 4 * third, third, 0],
      [third, 4 * third, 8, third, 0],
      [third, third, third, 4, 0],
      [0, 0, 0, 0, 3],
    ];
    r.coincidence.forEach((row, c) => row.forEach((o, k) => expect(o).toBeCloseTo(expected[c][k], 12)));
    r.totals.forEach((t, c) => expect(t).toBeCloseTo([9, 13, 10, 5, 3][c], 12));
    expect([r.pairable, r.units_used]).toEqual([40, 11]);
    expect(r.alpha).toBeCloseTo(113 / 152, 12);
    expect(r.alpha!.toFixed(3)).toBe("0.743");
  });

  it("reproduces the published 2-coder binary example (α = 0.095)", () => {
    // Krippendorff (2011), binary data, two observers, ten units: A = 0 1 0 0 0 0 0 0 1 0, B = 1 1 1 0 0 1 0 0 0 0.
    //   Agreeing units: [1,1] once → o_11 = 2; [0,0] five times → o_00 = 10; disagreeing [0,1]/[1,0] four
    //   times → o_01 = o_10 = 4. n_0 = 14, n_1 = 6, n = 20. α = 1 − 19·8/(2·14·6) = 1 − 152/168 = 2/21 = 0.0952…
    const A = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0];
    const B = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0];
    const r = nominalAlpha(A.map((a, u) => [String(a), String(B[u])]));
    expect(r.categories).toEqual(["0", "1"]);
    expect(r.coincidence).toEqual([
      [10, 4],
      [4, 2],
    ]);
    expect([r.totals, r.pairable, r.units_used]).toEqual([[14, 6], 20, 10]);
    expect(r.alpha).toBeCloseTo(2 / 21, 15);
    expect(r.alpha!.toFixed(3)).toBe("0.095");
  });

  it("handles more categories than its initial buffers", () => {
    // 20 units, each [Lk, Lk]: perfect agreement over 20 categories ⇒ α = 1.
    const units = Array.from({ length: 20 }, (_, k) => [`L${k}`, `L${k}`]);
    const r = nominalAlpha(units);
    expect(r.alpha).toBe(1);
    expect(r.totals).toEqual(Array(20).fill(2));
  });
});
