// Batch agreement (spec cross-judge.md §10 item 2): per-critic agreement with the consensus and the
// pairwise critic table. Values are derived by hand in the comments.
import { describe, expect, it } from "vitest";
import { batchAgreement, itemAlpha } from "../../../src/engines/judge/index.ts";

describe("batchAgreement", () => {
  const critics = ["a", "b", "c"];
  const matrix = [
    ["KEEP", "KEEP", "REJECT"],
    ["REJECT", "REJECT", "REJECT"],
    ["KEEP", null, "KEEP"],
  ];
  const consensus = ["KEEP", "REJECT", "KEEP"];
  const r = batchAgreement(matrix, critics, consensus);

  it("reports each critic's agreement with the consensus over its valid verdicts", () => {
    // a: 3/3; b: 2/2 (item 3 missing); c: item 1 disagrees → 2/3.
    expect(r.per_critic.map((c) => [c.critic, c.agree, c.items])).toEqual([
      ["a", 3, 3],
      ["b", 2, 2],
      ["c", 2, 3],
    ]);
  });

  it("tabulates raw agreement and alpha for each critic pair", () => {
    // a–b: items 1,2 both rated, both agree → 2/2; a–c: 2/3; b–c: items 1,2 → 1/2.
    expect(r.pairwise.map((p) => [p.a, p.b, p.agree, p.items])).toEqual([
      ["a", "b", 2, 2],
      ["a", "c", 2, 3],
      ["b", "c", 1, 2],
    ]);
    // a–b: [K,K],[R,R] → perfect agreement over two categories → α = 1.
    expect(r.pairwise[0].alpha).toBe(1);
  });

  it("computes the whole-matrix alpha", () => {
    // Unit 1 (m=3, w=1/2): KK:2, KR:2, RK:2 → o_KK=1, o_KR=o_RK=1; unit 2: RR:6·1/2 → o_RR=3;
    // unit 3 (m=2): KK:2 → o_KK += 2. n_K = 3+1 = 4, n_R = 1+3 = 4, n = 8; Σ_{c≠k} o = 2;
    // Σ_{c≠k} n_c n_k = 2·4·4 = 32 ⇒ α = 1 − 7·2/32 = 0.5625.
    expect(r.alpha.alpha).toBeCloseTo(0.5625, 15);
  });

  it("rejects ragged rows", () => {
    expect(() => batchAgreement([["KEEP"]], critics)).toThrow(RangeError);
  });
});

describe("itemAlpha (reference per-item indicator)", () => {
  it("is 1 for agreement, ~0 for any disagreement, null below two valid verdicts", () => {
    const v = (kind: string, error: string | null = null) => ({ kind, error });
    expect(itemAlpha([v("K"), v("K")])).toBe(1);
    expect(Math.abs(itemAlpha([v("K"), v("K"), v("R")])!)).toBeLessThan(1e-9);
    expect(itemAlpha([v("K"), v("R", "timeout")])).toBeNull();
  });
});
