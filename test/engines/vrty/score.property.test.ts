import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultIdf, score, WEIGHTS, type Idf, type VrtyResult } from "../../../src/engines/vrty/index.ts";
import { goldenIdf } from "./fixture.ts";

let tables: Idf[];
beforeAll(async () => {
  tables = [await goldenIdf(), await defaultIdf()];
});

function checkInvariants(r: VrtyResult): void {
  for (const v of [r.composite, r.relevance, r.coherence, r.completeness, r.conciseness]) {
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(1);
  }
  const weighted =
    WEIGHTS.relevance * r.relevance +
    WEIGHTS.coherence * r.coherence +
    WEIGHTS.completeness * r.completeness +
    WEIGHTS.conciseness * r.conciseness;
  expect(r.composite).toBe(weighted);
  for (const e of Object.values(r.explanations)) expect(e).toMatch(/^[A-Z][a-z]+: [01]\.\d\d - .+\.$/);
}

// Mixes ASCII words and punctuation with arbitrary code points, lone surrogates, emoji, CJK and
// combining marks, so both the ASCII fast path and the NFKD path are exercised.
const piece = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.string({
    unit: fc.constantFrom(
      "a",
      "é",
      "Å",
      "ﬁ",
      "ß",
      "\u0301",
      "😀",
      "巴",
      "\ud800",
      "\udc00",
      ".",
      "?",
      "!",
      " ",
      "\n",
      "\r",
      "7",
    ),
  }),
  fc.constantFrom("Paris", "capital", "France", "the", "is", ". ", "\n", "London"),
);
const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(" "));

describe("score properties", () => {
  it("never throws and keeps every value finite, in [0, 1], with composite = weighted sum", () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 1 }), (prompt, response, t) => {
        checkInvariants(score(prompt, response, tables[t]));
      }),
      { numRuns: 500 },
    );
  });

  it("is a pure function of its inputs (same bytes on a second call)", () => {
    fc.assert(
      fc.property(text, text, (prompt, response) => {
        const idf = tables[1];
        expect(JSON.stringify(score(prompt, response, idf))).toBe(JSON.stringify(score(prompt, response, idf)));
      }),
      { numRuns: 200 },
    );
  });

  it("handles a 100,000-character input", () => {
    const big = fc.sample(fc.string({ unit: "binary", minLength: 100_000, maxLength: 100_000 }), {
      numRuns: 1,
      seed: 7,
    })[0];
    const words = "Paris is the capital of France. ".repeat(3200).slice(0, 100_000);
    for (const idf of tables) {
      checkInvariants(score(big, big, idf));
      checkInvariants(score(words, big, idf));
      checkInvariants(score(big, words, idf));
    }
  });
});
