import { describe, expect, it } from "vitest";
import { compareRuns, ParityError, type ComparedRun } from "../../../src/engines/rpl/index.ts";

const config = { claim: "c", model: "m1", prompt_version: "v1", K: 8, R: 2, T: null, B: 5000, max_output_tokens: 1024 };
const run = (id: string, over: Partial<ComparedRun> & { cfg?: Record<string, unknown> } = {}): ComparedRun => ({
  run_id: id,
  config: { ...config, ...(over.cfg ?? {}) },
  prob_true_rpl: over.prob_true_rpl ?? 0.6,
  ci95: over.ci95 ?? [0.5, 0.7],
  ci_width: over.ci_width ?? 0.2,
  stability_score: over.stability_score ?? 0.8,
  pqs: over.pqs ?? 70,
});

describe("compareRuns", () => {
  it("detects the compared dimension and reports deltas against the first run", () => {
    const c = compareRuns([run("a"), run("b", { cfg: { prompt_version: "v2" }, prob_true_rpl: 0.65, ci_width: 0.1 })]);
    expect(c.dimension).toBe("prompt_version");
    expect(c.parity).toEqual({ claim: "c", model: "m1", K: 8, R: 2, T: null, B: 5000, max_output_tokens: 1024 });
    expect(c.runs.map((r) => r.value)).toEqual(["v1", "v2"]);
    // 0.65 − 0.6 and 0.1 − 0.2, in doubles
    expect(c.runs[1].delta_p).toBe(0.65 - 0.6);
    expect(c.runs[1].delta_ci_width).toBe(0.1 - 0.2);
    expect(c.winner).toEqual({ run_id: "b", rule: "ci_width" });
  });

  it("refuses runs that differ in more than the compared dimension, naming the settings", () => {
    const both = () => compareRuns([run("a"), run("b", { cfg: { model: "m2", prompt_version: "v2" } })]);
    expect(both).toThrow(ParityError);
    try {
      both();
    } catch (e) {
      expect((e as ParityError).fields).toEqual(["model", "prompt_version"]);
    }
    expect(() => compareRuns([run("a"), run("b", { cfg: { K: 16 } })])).toThrow(/differ in K/);
    expect(() => compareRuns([run("a"), run("b", { cfg: { claim: "other" } })])).toThrow(/differ in claim/);
  });

  // Widths 0.200 and 0.198 are within 0.003: a tie on width, so PQS decides; equal PQS → stability; all equal → tie.
  it.each([
    [
      { ci_width: 0.198, pqs: 60 },
      { run_id: "a", rule: "pqs" },
    ],
    [
      { ci_width: 0.198, pqs: 70, stability_score: 0.9 },
      { run_id: "b", rule: "stability" },
    ],
    [
      { ci_width: 0.198, pqs: 70, stability_score: 0.8 },
      { run_id: null, rule: "tie" },
    ],
  ])("breaks near-ties on width by PQS, then stability: %j", (b, expected) => {
    expect(compareRuns([run("a"), run("b", { cfg: { model: "m2" }, ...b })]).winner).toEqual(expected);
  });
});
