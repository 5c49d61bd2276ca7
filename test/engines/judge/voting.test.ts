// Voting parity (spec cross-judge.md §4, §5, §7): every line of $REFERENCE_DIR/cross-judge/voting_vectors.jsonl.
// "custom:<fn>" lines pass the legacy function itself as the strategy, as the reference did. A line that
// raises in the reference must throw here, with its own `raises` class mapped by expectPythonError.
import { describe, expect, it } from "vitest";
import {
  aggregateVerdicts,
  first_disagreement,
  majority,
  weighted,
  type Strategy,
  type Verdict,
} from "../../../src/engines/judge/index.ts";
import { describeReference, expectPythonError, type RefLine } from "../../support/reference.ts";
import { closeTo, lineName } from "./support.ts";

/** The legacy `cross_judge.aggregation` functions the README names as `custom:<name>`. */
const CUSTOM: Record<string, Strategy> = {
  "custom:weighted": weighted,
  "custom:first_disagreement": first_disagreement,
  "custom:majority_legacy": majority,
};

function strategyOf(name: string): string | Strategy {
  if (!name.startsWith("custom:")) return name;
  const fn = CUSTOM[name];
  if (!fn) throw new Error(`unknown custom strategy ${name}: the README lists ${Object.keys(CUSTOM).join(", ")}`);
  return fn;
}

describeReference("voting vectors", "cross-judge", ["voting_vectors.jsonl"], (ref) => {
  const records = ref.records("voting_vectors.jsonl");

  it("holds at least one line", () => expect(records.length).toBeGreaterThan(0));

  it.each(records.map((r) => [lineName(r), r] as const))("%s", (_n, r: RefLine) => {
    const v = r.value;
    const run = () =>
      aggregateVerdicts("q", v.verdicts as Verdict[], { voting: strategyOf(v.strategy), votingKwargs: v.kwargs ?? {} });
    const e = v.expected;
    if (e.raises) {
      // Only the failure (and its class, as a hint) is portable (README).
      expectPythonError(run, e.raises);
      return;
    }
    const got = run();
    expect([got.consensus, got.disagreement, got.voting]).toEqual([e.consensus, e.disagreement, e.voting]);
    closeTo(got.agreement_pct, e.agreement_pct);
    closeTo(got.avg_confidence, e.avg_confidence);
    closeTo(got.krippendorff_alpha, e.krippendorff_alpha);
    expect(got.verdicts).toEqual(v.verdicts);
  });
});

describe("weighted voting", () => {
  const votes = [
    { kind: "KEEP", error: null, confidence: 0.9, critic_id: "a" },
    { kind: "REJECT", error: null, confidence: 0.6, critic_id: "b" },
    { kind: "REJECT", error: null, confidence: 0.6, critic_id: "c" },
    { kind: "KEEP", error: "timeout", confidence: 1, critic_id: "d" },
  ];
  it("sums confidences by default: REJECT 0.6+0.6 = 1.2 beats KEEP 0.9 (d errored, ignored)", () => {
    expect(weighted(votes)).toEqual(["REJECT", true]);
  });
  it("multiplies by critic weight: KEEP 3×0.9 = 2.7 beats REJECT 1.2", () => {
    expect(weighted(votes, { weights: { a: 3 } })).toEqual(["KEEP", true]);
  });
  it("counts heads without confidence: REJECT 2 vs KEEP 1", () => {
    expect(weighted(votes, { use_confidence: false })).toEqual(["REJECT", true]);
  });
  it("is addressable by name and rejects unknown kwargs", () => {
    expect(aggregateVerdicts("q", votes, { voting: "Weighted" }).consensus).toBe("REJECT");
    expect(() => weighted(votes, { priority: ["KEEP"] })).toThrow(TypeError);
  });
});
