// Sampling-plan parity (spec rpl.md §3, §5): every line of $REFERENCE_DIR/rpl/sampler_vectors.jsonl, exact.
import { describe, expect, it } from "vitest";
import { balancedIndices, imbalanceRatio, planSampling, plannedCounts, replicateIndices } from "../../../src/engines/rpl/index.ts";
import { referenceFiles } from "../../support/reference.ts";

const lines = referenceFiles("rpl").lines("sampler_vectors.jsonl").map((l) => JSON.parse(l));
const plans = lines.filter((v) => v.kind === undefined);
const balancedOnly = lines.filter((v) => v.kind === "balanced_only");

describe("sampler vectors", () => {
  it("covers every line of the file", () => {
    expect(plans.length + balancedOnly.length).toBe(lines.length);
    expect(plans.length).toBeGreaterThan(0);
    expect(balancedOnly.length).toBeGreaterThan(0);
  });

  it.each(plans.map((v, i) => [i, v.claim, v]))("plan %i (%s) matches exactly", async (_i, _c, v) => {
    const plan = await planSampling({ claim: v.claim, model: v.model, promptVersionFull: v.prompt_version, tBank: v.T_bank, T: v.T, K: v.K });
    expect(plan.sha256_hex_prefix8).toBe(v.sha256_hex_prefix8);
    expect(plan.rotation_offset).toBe(v.offset);
    expect(plan.T_stage).toBe(v.T_stage);
    expect(plan.tpl_indices).toEqual(v.tpl_indices);
    expect(plan.seq).toEqual(v.seq);
    expect(plan.seq_bank).toEqual(v.seq_bank);
    expect(plan.planned_counts).toEqual(v.counts);
    expect(plan.planned_imbalance_ratio).toBe(v.imbalance);
  });

  it.each(balancedOnly.map((v) => [v.T, v.K, v.offset, v]))("balanced_indices_with_rotation(T=%i, K=%i, offset=%i)", (T, K, offset, v) => {
    const seq = balancedIndices(T, K, offset);
    expect(seq).toEqual(v.seq);
    expect(plannedCounts(seq, T)).toEqual(v.counts);
    expect(imbalanceRatio(plannedCounts(seq, T))).toBe(v.imbalance);
  });
});

describe("balancedIndices", () => {
  // §18.1: blocks, not the docstring's interleaving [0,1,2,3,4,0,1].
  it("lays out repeats in consecutive blocks", () => {
    expect(balancedIndices(5, 7)).toEqual([0, 0, 1, 1, 2, 3, 4]);
  });

  it("is empty for T <= 0 or K <= 0", () => {
    expect(balancedIndices(0, 4)).toEqual([]);
    expect(balancedIndices(3, 0)).toEqual([]);
  });
});

describe("replicateIndices", () => {
  // Slots [a, b, a] with R = 2: a gets 0,1 then 2,3 (occ = 1); b gets 0,1.
  it("numbers each template's replicates 0..count·R−1 in slot order", () => {
    expect(replicateIndices(["a", "b", "a"], 2).map((x) => x.replicate_idx)).toEqual([0, 1, 0, 1, 2, 3]);
  });
});

describe("imbalanceRatio", () => {
  // §3.5: max/min over the nonzero counts only; all-zero counts give 1.0.
  it("ignores zero counts", () => {
    expect(imbalanceRatio([2, 0, 4])).toBe(2);
    expect(imbalanceRatio([0, 0])).toBe(1);
  });
});
