// Step splitting, traces and the whitespace token count (spec §5, §1.2, §6): every line of steps_vectors.jsonl,
// compared losslessly (strings, string lists and the token count exact; the two heuristic LS values are
// unrounded floats, within the README's 1e-12). Then the [D] `sentence` splitter.
import { describe, expect, it } from "vitest";
import {
  apiSteps,
  lexicalCoherence,
  localSteps,
  runTrace,
  sentenceSteps,
  splitSteps,
  storedTrace,
  whitespaceTokenCount,
} from "../../../src/engines/reasoning-quality/index.ts";
import { itEachCase } from "../../support/reference.ts";
import { TOL, describeRq, expectPy, vectorLines } from "./support.ts";

describeRq("steps_vectors.jsonl", ["steps_vectors.jsonl"], (ref) => {
  const lines = vectorLines(ref, "steps_vectors.jsonl");

  itEachCase(
    lines,
    (l) => `${l.label} ${JSON.stringify(l.value.response)}`,
    "line in steps_vectors.jsonl",
    (l) => {
      const response: string = l.value.response;
      const api = apiSteps(response);
      const local = localSteps(response);
      const { ls_heuristic_api, ls_heuristic_local, ...rest } = l.exact.expected;
      const ours = {
        api_steps: api,
        local_steps: local,
        evaluator_reasoning_trace_api: storedTrace(api),
        evaluator_k_trace_api: runTrace(api),
        evaluator_k_trace_local: runTrace(local),
        whitespace_token_count: whitespaceTokenCount(response),
      };
      expectPy(ours, rest, l.label, { numbers: "int" });
      const ls = { ls_heuristic_api: lexicalCoherence(storedTrace(api)), ls_heuristic_local: lexicalCoherence(local) };
      expectPy(ls, { ls_heuristic_api, ls_heuristic_local }, `${l.label} heuristic LS`, { tol: TOL, numbers: "float" });
      // The rule names the pipeline uses give the same splits.
      expectPy(splitSteps(response, "api"), l.exact.expected.api_steps, `${l.label} splitSteps api`);
      expectPy(splitSteps(response, "legacy_dot"), l.exact.expected.local_steps, `${l.label} splitSteps legacy_dot`);
    },
  );
});

describe("sentence splitter (§5 [D])", () => {
  it("keeps decimals and abbreviations inside a step", () => {
    expect(sentenceSteps("The price is 3.5 dollars. So two cost 7.0 dollars.")).toEqual([
      "The price is 3.5 dollars.",
      "So two cost 7.0 dollars.",
    ]);
    expect(sentenceSteps("Use e.g. a ruler, i.e. a straight edge. Dr. Smith agrees.")).toEqual([
      "Use e.g. a ruler, i.e. a straight edge.",
      "Dr. Smith agrees.",
    ]);
  });

  it("splits at ! and ?, at newlines, and drops list markers", () => {
    expect(sentenceSteps("What? Really! Yes.")).toEqual(["What?", "Really!", "Yes."]);
    expect(sentenceSteps("Steps:\n1. add 2\n2) multiply\n- done")).toEqual(["Steps:", "add 2", "multiply", "done"]);
    expect(sentenceSteps("No. It is not.")).toEqual(["No.", "It is not."]);
  });

  it('gives no steps for a blank response (stored as [""])', () => {
    expect(sentenceSteps("  \n ")).toEqual([]);
    expect(storedTrace(sentenceSteps(""))).toEqual([""]);
  });

  it("rejects an unknown rule", () => expect(() => splitSteps("a", "words" as never)).toThrow(RangeError));
});

// The [C] rules on hand-made inputs (the README's definitions: '.'-split, trimmed, empties dropped; the local
// rule turns newlines into ". " first and keeps [response] when nothing is left).
describe("API and local step rules (§5 [C])", () => {
  it("splits on every dot, trims, and drops empty pieces", () => {
    expect(apiSteps(" a. b..c. ")).toEqual(["a", "b", "c"]);
    expect(apiSteps("...")).toEqual([]);
    expect(storedTrace(apiSteps("..."))).toEqual([""]);
    expect(localSteps("x\ny")).toEqual(["x", "y"]);
    expect(localSteps("...")).toEqual(["..."]);
    expect(runTrace(["a", "b"])).toBe("a b");
  });
});
