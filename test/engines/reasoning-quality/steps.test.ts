// Step splitting, traces and the whitespace token count (spec §5, §1.2, §6): every line of
// steps_vectors.jsonl, all exact. Then the [D] `sentence` splitter.
import { describe, expect, it } from "vitest";
import { apiSteps, lexicalCoherence, localSteps, runTrace, sentenceSteps, splitSteps, storedTrace, whitespaceTokenCount } from "../../../src/engines/reasoning-quality/index.ts";
import { vectors } from "./support.ts";

const steps = vectors("steps_vectors.jsonl");

describe("steps_vectors.jsonl", () => {
  it("reads every line", () => expect(steps.length).toBe(26));

  it.each(steps.map((v) => [`${v.id} ${JSON.stringify(v.response)}`, v]))("%s", (_n, v: any) => {
    const e = v.expected;
    expect(apiSteps(v.response)).toEqual(e.api_steps);
    expect(localSteps(v.response)).toEqual(e.local_steps);
    expect(splitSteps(v.response, "api")).toEqual(e.api_steps);
    expect(splitSteps(v.response, "legacy_dot")).toEqual(e.local_steps);
    expect(storedTrace(apiSteps(v.response))).toEqual(e.evaluator_reasoning_trace_api);
    expect(runTrace(apiSteps(v.response))).toBe(e.evaluator_k_trace_api);
    expect(runTrace(localSteps(v.response))).toBe(e.evaluator_k_trace_local);
    expect(whitespaceTokenCount(v.response)).toBe(e.whitespace_token_count);
    expect(lexicalCoherence(storedTrace(apiSteps(v.response)))).toBe(e.ls_heuristic_api);
    expect(lexicalCoherence(localSteps(v.response))).toBe(e.ls_heuristic_local);
  });
});

describe("sentence splitter (§5 [D])", () => {
  it("keeps decimals and abbreviations inside a step", () => {
    expect(sentenceSteps("The price is 3.5 dollars. So two cost 7.0 dollars.")).toEqual(["The price is 3.5 dollars.", "So two cost 7.0 dollars."]);
    expect(sentenceSteps("Use e.g. a ruler, i.e. a straight edge. Dr. Smith agrees.")).toEqual(["Use e.g. a ruler, i.e. a straight edge.", "Dr. Smith agrees."]);
  });

  it("splits at ! and ?, at newlines, and drops list markers", () => {
    expect(sentenceSteps("What? Really! Yes.")).toEqual(["What?", "Really!", "Yes."]);
    expect(sentenceSteps("Steps:\n1. add 2\n2) multiply\n- done")).toEqual(["Steps:", "add 2", "multiply", "done"]);
    expect(sentenceSteps("No. It is not.")).toEqual(["No.", "It is not."]);
  });

  it("gives no steps for a blank response (stored as [\"\"])", () => {
    expect(sentenceSteps("  \n ")).toEqual([]);
    expect(storedTrace(sentenceSteps(""))).toEqual([""]);
  });

  it("rejects an unknown rule", () => expect(() => splitSteps("a", "words" as never)).toThrow(RangeError));
});
