// Answer validity (spec rpl.md §6 as amended by the issue: strict JSON, prob_true in [0, 1], no URLs).
import { describe, expect, it } from "vitest";
import { checkAnswer, containsUrl, parseAnswer } from "../../../src/engines/rpl/index.ts";

const ok = {
  prob_true: 0.42,
  confidence_self: 0.6,
  assumptions: ["a"],
  reasoning_bullets: ["x", "y", "z"],
  contrary_considerations: ["c", "d"],
  ambiguity_flags: [],
};

describe("parseAnswer", () => {
  it("accepts strict JSON with a numeric prob_true in [0, 1]", () => {
    expect(parseAnswer(JSON.stringify(ok))).toMatchObject({ prob: 0.42, valid: true, reason: null });
    expect(parseAnswer('{"prob_true": 0}')).toMatchObject({ prob: 0, valid: true });
    expect(parseAnswer('{"prob_true": 1}')).toMatchObject({ prob: 1, valid: true });
  });

  // ba26b14: an unparsable answer becomes an invalid sample instead of aborting the run.
  it.each([
    ["prose around JSON", 'Sure! {"prob_true": 0.4}', "unparsable"],
    ["a code fence", '```json\n{"prob_true": 0.4}\n```', "unparsable"],
    ["an array", "[0.4]", "not_object"],
    ["no prob_true", '{"p": 0.4}', "missing_prob_true"],
    ["a numeric string", '{"prob_true": "0.4"}', "prob_true_not_number"],
    // Python would take True as 1.0 (bool is an int); the port rejects it (§18.5).
    ["a boolean", '{"prob_true": true}', "prob_true_not_number"],
    ["null", '{"prob_true": null}', "prob_true_not_number"],
    ["a value above 1", '{"prob_true": 1.2}', "prob_true_out_of_range"],
    ["a negative value", '{"prob_true": -0.1}', "prob_true_out_of_range"],
    ["a URL in a bullet", '{"prob_true": 0.4, "reasoning_bullets": ["see HTTPS://example.org"]}', "contains_url"],
    ["www. in an assumption", '{"prob_true": 0.4, "assumptions": ["per WWW.who.int"]}', "contains_url"],
  ])("marks %s invalid", (_label, text, reason) => {
    const r = parseAnswer(text);
    expect(r.valid).toBe(false);
    expect(r.reason).toBe(reason);
  });
});

describe("containsUrl", () => {
  it("looks into nested arrays, objects and keys, case-insensitively", () => {
    expect(containsUrl({ a: [{ b: "x http://y" }] })).toBe(true);
    expect(containsUrl({ "www.key": 1 })).toBe(true);
    expect(containsUrl({ a: ["https:/ not a url", "wwwdot"] })).toBe(false);
  });

  it("does not flag numbers or plain text", () => {
    expect(checkAnswer(ok).valid).toBe(true);
  });
});

// Issue "Hardening": a model's answer nested 100,000 levels must be checked, not overflow the stack.
describe("containsUrl on deep answers", () => {
  it("finds a URL at the bottom of a 100,000-level answer, and none in one without", () => {
    let withUrl: unknown = "see https://example.com";
    let without: unknown = "no link here";
    for (let i = 0; i < 100_000; i++) {
      withUrl = [withUrl];
      without = { k: without };
    }
    expect(containsUrl(withUrl)).toBe(true);
    expect(containsUrl(without)).toBe(false);
  });
});
