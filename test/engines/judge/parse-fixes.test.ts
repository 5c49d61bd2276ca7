// The four deliberate differences from the original parser (docs/evaluators/judge.md; spec
// cross-judge.md §3 and §6 item 9; src/engines/judge/parse.ts FIX-*). Self-contained: every input is written
// here and every expectation derived by hand in a comment, so these run without the reference folder. The
// original's result is derived from the spec's extraction steps (§3) to show what each fix changes.
// Also tested: the content predicate (deliberateFixes) the parse parity test uses to recognise these cases.
import { describe, expect, it } from "vitest";
import { judgeCritic, parseVerdict } from "../../../src/engines/judge/index.ts";
import { contentAnswer, deliberateFixes, fakeEndpoint, withoutFixTriggers } from "./support.ts";

const critic = { name: "critic-x", model: "m", api_key: "k" };

async function judge(raw: string) {
  const { connect } = fakeEndpoint(contentAnswer(raw));
  return judgeCritic(critic, "q", { connect, now: () => 0 });
}

describe("FIX-think: a brace inside a <think> block no longer hides the answer", () => {
  const raw = '<think>weigh {pros} and cons</think>\n{"kind": "KEEP", "confidence": 0.9}';

  it("reads the answer after the block and keeps the block in raw_response", async () => {
    // Original (§3 step 3): i = the "{" of "{pros}", j = the final "}", so the span
    // '{pros} and cons</think>\n{"kind": …}' is not JSON → PARSE_FAIL. Ours drops the block first, so the
    // span is '{"kind": "KEEP", "confidence": 0.9}': KEEP, 0.9, no reasoning key → "".
    const got = await judge(raw);
    expect([got.kind, got.confidence, got.error, got.reasoning]).toEqual(["KEEP", 0.9, null, ""]);
    expect(got.raw_response).toBe(raw); // the audit copy keeps the think block
  });

  it("works inside a ```json fence and with several blocks", () => {
    // Fence line and closing fence are removed (§3 step 2), both blocks dropped: only the answer remains.
    const fenced =
      '```json\n<think>{a}</think><think>b}</think>\n{"kind": "reject", "confidence": "0.25", "reasoning": "r"}\n```';
    const got = parseVerdict(fenced, "c");
    expect([got.kind, got.confidence, got.reasoning, got.error]).toEqual(["REJECT", 0.25, "r", null]);
  });

  it("still fails when nothing but the block holds braces", () => {
    // The block is dropped → no "{" left → PARSE_FAIL; reasoning and raw_response are the whole answer.
    const only = "<think>maybe {KEEP}</think> I am not sure.";
    const got = parseVerdict(only, "c");
    expect([got.kind, got.confidence, got.error, got.reasoning, got.raw_response]).toEqual([
      "PARSE_FAIL",
      0,
      "parse_fail",
      only,
      only,
    ]);
  });
});

describe("FIX-comma: a trailing comma before an indented closing bracket is repaired", () => {
  it("repairs `,\\n  }`", async () => {
    // Original: the span fails json.loads; its repair replaces only the exact ",\n}" (here ",\n  }"
    // is not that) → PARSE_FAIL. Ours also accepts spaces around the line break → KEEP 0.9.
    const got = await judge('{\n  "kind": "KEEP",\n  "confidence": 0.9,\n  }');
    expect([got.kind, got.confidence, got.error, got.reasoning]).toEqual(["KEEP", 0.9, null, ""]);
  });

  it("repairs an indented `]` too", () => {
    // '"tags": ["a",\n    ],' → '"tags": ["a"\n    ],' : valid JSON; the label and confidence are read.
    const got = parseVerdict('{"kind": "SPLIT",\n  "tags": ["a",\n    ],\n  "confidence": 0.4\n}', "c");
    expect([got.kind, got.confidence, got.error]).toEqual(["SPLIT", 0.4, null]);
  });

  it("keeps the original's exact repair and its refusal of an inline trailing comma", () => {
    // ",\n}" is what the original repairs: KEEP 0.9 in both. ", }" has no line break: both fail.
    expect(parseVerdict('{"kind": "KEEP",\n"confidence": 0.9,\n}', "c").kind).toBe("KEEP");
    const inline = '{"kind": "KEEP", "confidence": 0.9, }';
    expect([parseVerdict(inline, "c").kind, parseVerdict(inline, "c").reasoning]).toEqual(["PARSE_FAIL", inline]);
  });
});

describe("FIX-nan: a NaN confidence becomes 0, not 1.0", () => {
  // Original: json.loads accepts the bare NaN token and float("nan") is NaN; max(0, min(1, nan)) is 1.0
  // (min keeps its first argument when the comparison is false). Ours maps NaN to 0; the rest is read as usual.
  it.each([
    ['{"kind": "KEEP", "confidence": NaN, "reasoning": "nan"}', "nan"],
    ['{"kind": "KEEP", "confidence": "nan", "reasoning": "s"}', "s"],
    ['{"kind": "KEEP", "confidence": " -NaN ", "reasoning": "t"}', "t"],
  ])("%s", async (raw, reasoning) => {
    const got = await judge(raw);
    expect([got.kind, got.confidence, got.reasoning, got.error]).toEqual(["KEEP", 0, reasoning, null]);
  });

  it("keeps the infinities as the original reads them (+inf → 1, -inf → 0)", () => {
    // min(1, inf) = 1; max(0, min(1, -inf)) = 0: no quirk there, so no change.
    expect(parseVerdict('{"kind":"KEEP","confidence":Infinity}', "c").confidence).toBe(1);
    expect(parseVerdict('{"kind":"KEEP","confidence":"-inf"}', "c").confidence).toBe(0);
  });
});

describe('FIX-percent: "85%" reads as 0.85, not 0', () => {
  // Original: float("85%") raises → 0.0. Ours reads a percentage as its fraction, then clamps to [0, 1].
  it.each([
    ['"85%"', 0.85], // 85 / 100
    ['" 12.5 % "', 0.125], // 12.5 / 100
    ['"150%"', 1], // 1.5 clamped to 1
    ['"-5%"', 0], // −0.05 clamped to 0
  ])("confidence %s → %s", async (conf, expected) => {
    const got = await judge(`{"kind": "KEEP", "confidence": ${conf}, "reasoning": "s"}`);
    expect([got.kind, got.confidence, got.reasoning, got.error]).toEqual(["KEEP", expected, "s", null]);
  });

  it('leaves what the original reads alone: a bare 85 still clamps to 1, "high" still reads 0', () => {
    // 85 is ambiguous (0..100 or out of range): min(1, 85) = 1. float("high") raises → 0.
    expect(parseVerdict('{"kind":"KEEP","confidence":85}', "c").confidence).toBe(1);
    expect(parseVerdict('{"kind":"KEEP","confidence":"high"}', "c").confidence).toBe(0);
  });
});

describe("deliberateFixes: the content predicate of the parse parity test", () => {
  it.each([
    ['<think>weigh {pros}</think>\n{"kind": "KEEP"}', ["think"]],
    ['{\n  "kind": "KEEP",\n  }', ["comma"]],
    ['{"kind": "KEEP",\r\n}', ["comma"]], // "\r\n" is not the exact ",\n}" the original repairs
    ['{"kind": "KEEP", "confidence": NaN}', ["nan"]],
    ['{"kind": "KEEP", "confidence": "NAN"}', ["nan"]],
    ['{"kind": "KEEP", "confidence": "85%"}', ["percent"]],
    ['<think>{x}</think>{"kind": "KEEP",\n  "confidence": "85%",\n }', ["think", "comma", "percent"]],
  ])("flags %j as %j", (raw, fixes) => {
    expect(deliberateFixes(raw)).toEqual(fixes);
  });

  it.each([
    '{"kind": "KEEP", "confidence": 0.9, "reasoning": "ok"}',
    '{"kind": "KEEP",\n"confidence": 0.9,\n}', // the exact form the original repairs
    '{"kind": "KEEP", "confidence": 0.9, }', // inline comma: both fail
    '<think>no braces here</think>\n{"kind": "KEEP"}',
    'Option {A} vs {B}. Final: {"kind": "KEEP"}', // braces in prose outside a think block: both fail
    '{"kind": "KEEP", "confidence": Infinity}',
    '{"kind": "KEEP", "confidence": "inf"}',
    '{"kind": "KEEP", "confidence": 85}',
    '{"kind": "KEEP", "confidence": "high"}',
    '{"kind": "KEEP", "reasoning": "confidence NaN, about 85%"}',
  ])("does not flag %j", (raw) => {
    expect(deliberateFixes(raw)).toEqual([]);
  });

  it("rewrites each trigger into what the original reads the same way", () => {
    // Think block dropped; ",\n  }" → ",\n}"; NaN → 0; "85%" → 0.85.
    expect(withoutFixTriggers('<think>{x}</think>{"kind": "K",\n  "confidence": NaN,\n  }')).toBe(
      '{"kind": "K",\n  "confidence": 0,\n}',
    );
    expect(withoutFixTriggers('{"confidence": " 85 % "}')).toBe('{"confidence": 0.85}');
  });
});

// Issue "Hardening": a verdict nested past what Python's str() can print must not crash the critic's unit.
describe("deeply nested verdicts", () => {
  it("a kind nested 5,000 levels is a parse failure, not a stack overflow", () => {
    const deep = `{"kind": ${"[".repeat(5000)}"KEEP"${"]".repeat(5000)}, "confidence": 0.9}`;
    const v = parseVerdict(deep, "c1");
    expect(v.kind).toBe("PARSE_FAIL");
    expect(v.error).toBe("parse_fail");
  });

  it("a reasoning nested within the limit is still printed as Python does", () => {
    const v = parseVerdict(`{"kind": "KEEP", "reasoning": [[1, "a"]]}`, "c1");
    // str([[1, 'a']]) in Python.
    expect(v.reasoning).toBe("[[1, 'a']]");
  });
});
