// Frozen-estimator parity (spec rpl.md §9–§11): every line of $REFERENCE_DIR/rpl/aggregate_vectors.jsonl.
// Logit-space values (ell_hat, CI, dist_head, diagnostics, stability basis/IQR) use only + − × ÷ and
// comparisons, so they must match bit for bit; values through exp/log/pow match to 1e-12 relative (README).
import { describe, expect, it } from "vitest";
import { aggregateClustered, aggregateSamples, logit, makeBootstrapSeed, pqsV1, stability, type RplSample } from "../../../src/engines/rpl/index.ts";
import { referenceFiles } from "../../support/reference.ts";

const vectors = referenceFiles("rpl").lines("aggregate_vectors.jsonl").map((l) => JSON.parse(l));

function close(actual: number, expected: number, rel = 1e-12): void {
  if (actual === expected) return;
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.max(Math.abs(expected), Number.MIN_VALUE));
}

describe("aggregate vectors", () => {
  it("has lines to check", () => expect(vectors.length).toBeGreaterThan(0));

  it.each(vectors.map((v) => [v.name, v]))("%s", async (_name, v) => {
    const byTemplate: [string, number[]][] = v.by_template;
    if (v.probs_by_template) {
      // The stored logits came from the probabilities through the clipped logit (exp/log: 1e-12).
      v.probs_by_template.forEach((ps: number[], i: number) => ps.forEach((p, j) => close(logit(p), byTemplate[i][1][j])));
    }
    if (v.seed_derivation) {
      const d = v.seed_derivation;
      const seed = await makeBootstrapSeed({ claim: d.claim, model: d.model, promptVersionFull: d.prompt_version, K: d.K, R: d.R, templateHashes: byTemplate.map(([k]) => k), center: d.center, trim: d.trim, B: d.B });
      expect(seed.toString()).toBe(v.seed);
    }
    const agg = aggregateClustered(byTemplate, { seed: v.seed, B: v.B, center: v.center, trim: v.trim, fixedM: v.fixed_m });
    expect(agg.ell_hat).toBe(v.ell_hat);
    expect(agg.ci_logit).toEqual(v.ci_logit);
    expect(agg.ci_logit_raw).toEqual(v.ci_logit_raw_percentiles);
    expect(Array.from(agg.dist.subarray(0, v.dist_head.length))).toEqual(v.dist_head);
    expect(agg.dist.length).toBe(v.B);
    const { bootstrap_seed, B, center, trim, ...diag } = agg.diagnostics;
    expect(diag).toEqual(v.diagnostics);
    expect(Object.keys(diag.counts_by_template)).toEqual(Object.keys(v.diagnostics.counts_by_template));
    expect([bootstrap_seed, B, center, trim]).toEqual([v.seed, v.B, v.center, v.trim]);
    expect(agg.template_means).toEqual(v.stability_basis);

    close(agg.prob_true_rpl, v.prob_true_rpl);
    close(agg.ci95[0], v.ci95[0]);
    close(agg.ci95[1], v.ci95[1]);
    close(agg.ci_width, v.ci_width);
    expect(agg.is_stable).toBe(v.is_stable);

    const stab = stability(agg.template_means);
    expect(stab.iqr).toBe(v.stability_iqr_logit);
    close(stab.score, v.stability_score);
    expect(stab.band).toBe(v.stability_band);

    const q = pqsV1(stab.score, agg.ci_width, v.rpl_compliance_rate);
    expect(q.pqs).toBe(v.pqs);
    expect([q.gate_compliance_ok, q.gate_stability_ok, q.gate_precision_ok]).toEqual([v.gate_compliance_ok, v.gate_stability_ok, v.gate_precision_ok]);
  });
});

describe("aggregateSamples", () => {
  // The seed-derived vectors describe whole runs: feed their logits as valid samples (in key order) plus
  // as many invalid rows as the compliance rate implies; the seed must be derived from the valid keys.
  const derived = vectors.filter((v) => v.seed_derivation);

  it.each(derived.map((v) => [v.name, v]))("reproduces %s from sample rows with a derived seed", async (_name, v) => {
    const d = v.seed_derivation;
    const samples: RplSample[] = [];
    for (const [key, logits] of v.by_template as [string, number[]][]) for (const l of logits) samples.push({ prompt_sha256: key, valid: true, prob: null, logit: l });
    const valid = samples.length;
    const attempted = Math.round(valid / v.rpl_compliance_rate);
    for (let i = valid; i < attempted; i++) samples.push({ prompt_sha256: "invalid", valid: false, prob: null });
    const run = await aggregateSamples({ samples, claim: d.claim, model: d.model, promptVersionFull: d.prompt_version, K: d.K, R: d.R, B: d.B });
    expect(run.bootstrap_seed).toBe(v.seed);
    expect(run.ell_hat).toBe(v.ell_hat);
    expect(run.ci_logit).toEqual(v.ci_logit);
    expect(run.rpl_compliance_rate).toBe(v.rpl_compliance_rate);
    expect(run.pqs).toBe(v.pqs);
    expect(run.stability_band).toBe(v.stability_band);
  });

  it("throws a RangeError naming the reason when fewer than 3 samples are valid", async () => {
    const samples: RplSample[] = [
      { prompt_sha256: "a", valid: true, prob: 0.4 },
      { prompt_sha256: "b", valid: true, prob: 0.6 },
      { prompt_sha256: "c", valid: false, prob: null },
    ];
    await expect(aggregateSamples({ samples, claim: "c", model: "m", promptVersionFull: "p", K: 3, R: 1 })).rejects.toThrow(/at least 3 valid samples.*got 2 of 3/);
    await expect(aggregateSamples({ samples, claim: "c", model: "m", promptVersionFull: "p", K: 3, R: 1 })).rejects.toBeInstanceOf(RangeError);
  });

  it("uses the config seed before the env seed, and the env seed before the derived one", async () => {
    const samples: RplSample[] = [0.2, 0.3, 0.4, 0.5].map((p, i) => ({ prompt_sha256: `t${i % 2}`, valid: true, prob: p }));
    const base = { samples, claim: "c", model: "m", promptVersionFull: "p", K: 2, R: 2, B: 50 };
    expect((await aggregateSamples({ ...base, seed: "7", envSeed: "9" })).bootstrap_seed).toBe("7");
    expect((await aggregateSamples({ ...base, envSeed: "9" })).bootstrap_seed).toBe("9");
    const derivedSeed = await makeBootstrapSeed({ claim: "c", model: "m", promptVersionFull: "p", K: 2, R: 2, templateHashes: ["t0", "t1"], B: 50 });
    expect((await aggregateSamples(base)).bootstrap_seed).toBe(derivedSeed.toString());
  });
});

describe("aggregateClustered argument checks", () => {
  it.each([
    ["no templates", [], {}],
    ["an empty template", [["a", []]], {}],
    ["trim 0.5", [["a", [1]]], { trim: 0.5 }],
    ["B = 0", [["a", [1]]], { B: 0 }],
    ["fixedM = 0", [["a", [1]]], { fixedM: 0 }],
    ["a seed of 2^64", [["a", [1]]], { seed: "18446744073709551616" }],
  ])("rejects %s", (_label, byTemplate, opts) => {
    expect(() => aggregateClustered(byTemplate as [string, number[]][], { seed: 1, ...opts })).toThrow(RangeError);
  });
});
