import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { STOPWORDS, STOPWORDS_SHA256, stopwordsCanonicalText } from "../../../src/engines/vrty/stopwords.ts";

describe("stopwords (spec §2.2)", () => {
  it("holds the 153 distinct apostrophe-free NLTK words", () => {
    expect(STOPWORDS).toHaveLength(153);
    expect(new Set(STOPWORDS).size).toBe(153);
    for (const w of STOPWORDS) expect(w).toMatch(/^[a-z]+$/);
  });

  it("contains what/is/the/of and not the §8 content words", () => {
    for (const w of ["what", "is", "the", "of", "isn", "t", "ll"]) expect(STOPWORDS).toContain(w);
    for (const w of ["paris", "capital", "france", "london", "computer", "system", "bill"])
      expect(STOPWORDS).not.toContain(w);
  });

  it("matches the committed STOPWORDS_SHA256", () => {
    expect(createHash("sha256").update(stopwordsCanonicalText()).digest("hex")).toBe(STOPWORDS_SHA256);
  });
});
