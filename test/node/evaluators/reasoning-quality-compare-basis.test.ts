// Issue 23: a reasoning-quality comparison resamples kept per-item score columns instead of the engine's
// ItemScores, for speed; every figure of every resample must be the engine's `summarise`, bit for bit.
import { describe, expect, it } from "vitest";
import { summarise, type ItemScores } from "../../../src/engines/reasoning-quality/index.ts";
import { defaultRng } from "../../../src/engines/stats/index.ts";
import { columnsOf, setFigures, type RqModelBasis } from "../../../src/evaluators/reasoning-quality/compare-basis.ts";

type Methods = { ls: "model" | "lexical" | "none"; ss: "jaccard" | "none" };

/** Per-item scores from a seed: some failed items, some without perturbations, some LS without step pairs (null). */
function scoresOf(seed: number, n: number, methods: Methods): { engine: ItemScores; basis: RqModelBasis } {
  const rng = defaultRng(seed);
  const u = () => rng.below(1_000_000) / 1_000_000;
  const failed = Array.from({ length: n }, () => rng.below(10) === 0);
  const cq = failed.map((f) => (f ? 0 : rng.below(2)));
  const eligible = Array.from({ length: n }, () => rng.below(4) !== 0);
  const ls = Array.from({ length: n }, () => (methods.ls === "none" ? null : rng.below(8) === 0 ? null : u()));
  const ss = Array.from({ length: n }, () => (methods.ss === "none" ? null : u()));
  const engine: ItemScores = {
    cq,
    cs: cq.map(() => u()),
    cs_labels: cq.map(() => null),
    rs: cq.map(() => u()),
    in_C: cq.map((c, i) => eligible[i] && c === 1),
    rs_eligible: eligible,
    ls,
    ss,
    tokens: cq.map(() => 5 + rng.below(400)),
    failed,
    cq_matcher: "canonical",
    ls_method: methods.ls,
    ls_failed_pairs: 0,
    ss_method: methods.ss,
    options: { matcher: "canonical", roundingAware: false, rsWithoutPerturbations: "skip", esFailedInMinMax: false },
  };
  const flag = (xs: boolean[]) => xs.map((x) => (x ? 1 : 0));
  const basis = {
    model: "m",
    ls_method: methods.ls,
    ss_method: methods.ss,
    ss_stored: true,
    scores: {
      cq,
      cs: engine.cs,
      rs: engine.rs,
      in_c: flag(engine.in_C),
      rs_eligible: flag(eligible),
      ls,
      ss,
      tokens: engine.tokens,
      failed: flag(failed),
    },
  } as RqModelBasis;
  return { engine, basis };
}

describe("setFigures", () => {
  it.each([
    [{ ls: "lexical", ss: "jaccard" } as Methods, 1],
    [{ ls: "model", ss: "none" } as Methods, 2],
    [{ ls: "none", ss: "jaccard" } as Methods, 3],
  ])("gives summarise's raw and rounded figures on the whole set and on resamples (%o)", (methods, seed) => {
    const n = 257;
    const { engine, basis } = scoresOf(seed, n, methods);
    const columns = columnsOf(basis);
    const whole = summarise(engine);
    expect(setFigures(columns)).toEqual({ raw: whole.raw, rounded: whole.raw_metrics });
    const rng = defaultRng(seed + 10);
    for (let b = 0; b < 100; b++) {
      const size = b === 0 ? 0 : b === 1 ? 1 : n;
      const idx = Array.from({ length: size }, () => rng.below(n));
      const set = summarise(engine, idx);
      // toEqual compares numbers with Object.is: the same doubles, not close ones.
      expect(setFigures(columns, Uint32Array.from(idx))).toEqual({ raw: set.raw, rounded: set.raw_metrics });
    }
  });

  it("leaves robustness out when no resampled item had perturbations, and ES at 0 when every item failed", () => {
    const { engine, basis } = scoresOf(4, 20, { ls: "lexical", ss: "jaccard" });
    const noneEligible = engine.rs_eligible.flatMap((e, i) => (e ? [] : [i]));
    const failed = engine.failed.flatMap((f, i) => (f ? [i] : []));
    expect(noneEligible.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    expect(setFigures(columnsOf(basis), noneEligible).raw.robustness).toBeNull();
    expect(setFigures(columnsOf(basis), failed).raw.efficiency).toBe(0);
    expect(setFigures(columnsOf(basis), failed).raw).toEqual(summarise(engine, failed).raw);
  });
});
