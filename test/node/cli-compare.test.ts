// `assay compare`'s detail lines, from each evaluator's typed details: the cases the end-to-end test
// (test/cli/compare.test.ts) cannot make the simulators produce, such as unpaired runs, a tie, a prior
// that did not move or models in one run only. Expected lines are written out by hand.
import { describe, expect, it } from "vitest";
import type { Comparison } from "@assay/sdk";
import { detailLines } from "../../cli/src/commands/compare.ts";

type Of<E extends Comparison["evaluator"]> = Extract<Comparison, { evaluator: E }>;

function comparison<E extends Comparison["evaluator"]>(evaluator: E, details: Of<E>["details"]): Of<E> {
  const c = {
    object: "comparison",
    evaluator,
    base: { id: "run_b" },
    head: { id: "run_h" },
    confidence: 0.95,
    min_effect: 0,
    paired: true,
    verdict: "no_change",
    metrics: [],
    flipped: [],
    details,
  };
  return c as unknown as Of<E>;
}

describe("assay compare: detail lines", () => {
  it("chain-determinism: paired with its discordant queries, or why not paired", () => {
    const paired = comparison("chain-determinism", {
      pairing: {
        paired: true,
        queries: 10,
        measurable_in_both: 9,
        discordant: { stable_to_diverged: 4, diverged_to_stable: 1 },
      },
      modal_share: [],
      measurable_changes: [],
    });
    expect(detailLines(paired)).toEqual([
      "paired by query: 9 of 10 measurable in both runs; 4 stable → diverged, 1 diverged → stable",
    ]);
    const unpaired = comparison("chain-determinism", {
      pairing: { paired: false, reason: "different suites" },
      modal_share: { base_mean: null, head_mean: null, base: [], head: [] },
    });
    expect(detailLines(unpaired)).toEqual(["not paired: different suites"]);
  });

  it("rpl: what varies (nothing: no line), the winner or none, whether the prior moved", () => {
    const moved = comparison("rpl", {
      dimension: "prompt_version",
      winner: { run_id: "run_h", rule: "pqs" },
      prob_true_rpl: { two_sided: true, moved: true, direction: "up" },
    });
    expect(detailLines(moved)).toEqual([
      "varies: prompt_version",
      "winner: run_h (rule: pqs)",
      "prob_true_rpl moved up (two-sided: a prior that moves is neither better nor worse)",
    ]);
    const tie = comparison("rpl", {
      dimension: null,
      winner: { run_id: null, rule: "tie" },
      prob_true_rpl: { two_sided: true, moved: false, direction: null },
    });
    expect(detailLines(tie)).toEqual([
      "winner: none (rule: tie)",
      "prob_true_rpl did not move (two-sided: a prior that moves is neither better nor worse)",
    ]);
  });

  it("judge: consensus changes and contested counts", () => {
    const c = comparison("judge", {
      items: 8,
      consensus_changes: 6,
      accuracy: null,
      per_critic: [],
      contested: { base: 0, head: 3 },
    });
    expect(detailLines(c)).toEqual(["consensus changed on 6 of 8 items", "contested items: base 0, head 3"]);
  });

  it("reasoning-quality: why not paired, models in one run only, ranks unchanged or changed (unranked shown as such)", () => {
    const models = { compared: ["a", "b"], base_only: ["c"], head_only: ["d", "e"] };
    const unpaired = comparison("reasoning-quality", {
      models,
      rank_changes: { balanced: [] },
      unpaired_reason: "a dataset was deleted",
    });
    expect(detailLines(unpaired)).toEqual([
      "not paired: a dataset was deleted",
      "models only in base (not compared): c",
      "models only in head (not compared): d, e",
      "ranks: unchanged in every strategy",
    ]);
    const moved = comparison("reasoning-quality", {
      models: { compared: ["a", "b"], base_only: [], head_only: [] },
      rank_changes: {
        balanced: [{ model: "a", base_rank: 1, head_rank: null }],
        accuracy_first: [{ model: "b", base_rank: 2, head_rank: 1 }],
      },
      items: 4,
      correctness: {},
    });
    expect(detailLines(moved)).toEqual(["rank changes:", "  balanced: a 1 → unranked", "  accuracy_first: b 2 → 1"]);
    // No strategy compared: nothing about ranks.
    expect(
      detailLines(
        comparison("reasoning-quality", {
          models: { compared: [], base_only: [], head_only: [] },
          rank_changes: {},
          items: 0,
          correctness: {},
        }),
      ),
    ).toEqual([]);
  });
});
