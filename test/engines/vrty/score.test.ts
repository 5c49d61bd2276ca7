import { beforeAll, describe, expect, it } from "vitest";
import { MAX_TOKENS, prepareIdf, score, type Idf, type IdfTableData } from "../../../src/engines/vrty/index.ts";
import { clamp01, cosFromSums, WEIGHTS } from "../../../src/engines/vrty/score.ts";
import { fixtureData, GOLDEN, goldenIdf } from "./fixture.ts";

const PROMPT = "What is the capital of France?";
let idf: Idf;
beforeAll(async () => {
  idf = await goldenIdf();
});

describe("README parity (spec §8 golden table)", () => {
  it("scores 'Paris is the capital of France.' exactly as the README", () => {
    // Prompt content terms {capital, france}; response tokens paris is the capital of france:
    // 6 tokens, 3 unique content terms. tf = 1 everywhere, so v = idf.
    // dot = 5·5 + 5·5 = 50 (capital, france); na = 50; nb = 25 + 25 + p² with p = 4.7604…
    // relevance = 50 / (√50 · √(50 + p²)) = 0.8295310065985427 (README: …426, one ulp away)
    // completeness = (5 + 5) / (5 + 5) = 1; coherence = 1 (one sentence); conciseness = 3/6
    // composite = 0.35·rel + 0.20·1 + 0.30·1 + 0.15·0.5 = 0.8653358523094898
    const r = score(PROMPT, "Paris is the capital of France.", idf);
    expect(r.composite).toBe(0.8653358523094898);
    expect(Math.abs(r.relevance - 0.8295310065985426)).toBeLessThan(1e-12);
    expect(r.coherence).toBe(1);
    expect(r.completeness).toBe(1);
    expect(r.conciseness).toBe(0.5);
    expect(r.explanations).toEqual({
      relevance: "Relevance: 0.83 - response strongly overlaps with the prompt's key terms.",
      coherence: "Coherence: 1.00 - adjacent sentences carry consistent topic.",
      completeness: "Completeness: 1.00 - most of the prompt's key terms appear in the response.",
      conciseness: "Conciseness: 0.50 - response has moderate information density.",
    });
    expect(r.vrty_version).toBe("1.0.1");
    expect(r.weights).toEqual({ relevance: 0.35, coherence: 0.2, completeness: 0.3, conciseness: 0.15 });
    expect(r.idf_sha256).toBe(idf.sha256);
  });

  // One content token, no shared term: relevance 0, completeness 0, coherence 1 (one sentence),
  // conciseness 1/1; composite = 0.20·1 + 0.15·1 = 0.35 (0.35·0 and 0.30·0 add exact zeros).
  it.each(["Paris.", "London.", "Banana."])("scores %s at exactly 0.35", (response) => {
    const r = score(PROMPT, response, idf);
    expect(r.composite).toBe(0.35);
    expect([r.relevance, r.coherence, r.completeness, r.conciseness]).toEqual([0, 1, 0, 1]);
  });

  it("builds the result with keys in ascending order at every level", () => {
    const r = score(PROMPT, "Paris is the capital of France.", idf);
    for (const obj of [r, r.explanations, r.weights]) {
      const keys = Object.keys(obj);
      expect(keys).toEqual([...keys].sort());
    }
    expect(Object.keys(r)).toHaveLength(9);
  });
});

describe("input contract (spec §5)", () => {
  const NO_RESPONSE = (label: string) => `${label}: 0.00 - response contained no scorable tokens.`;

  it.each([
    ["empty", ""],
    ["whitespace", " \t\n\r  "],
    ["punctuation", "?!... --- ,;:"],
    ["CJK only", "巴黎是法国的首都。"],
    ["stopword only", "It is."],
  ])("scores an %s response 0 everywhere", (_, response) => {
    const r = score(PROMPT, response, idf);
    expect([r.composite, r.relevance, r.coherence, r.completeness, r.conciseness]).toEqual([0, 0, 0, 0, 0]);
    expect(r.explanations).toEqual({
      coherence: NO_RESPONSE("Coherence"),
      completeness: NO_RESPONSE("Completeness"),
      conciseness: NO_RESPONSE("Conciseness"),
      relevance: NO_RESPONSE("Relevance"),
    });
  });

  it.each(["", "  ", "What is it?", "日本語"])(
    "zeroes relevance and completeness for the empty prompt %j",
    (prompt) => {
      const r = score(prompt, "Paris is the capital of France.", idf);
      expect(r.relevance).toBe(0);
      expect(r.completeness).toBe(0);
      expect(r.explanations.relevance).toBe("Relevance: 0.00 - prompt contained no scorable tokens.");
      expect(r.explanations.completeness).toBe("Completeness: 0.00 - prompt contained no scorable tokens.");
      // Coherence and conciseness are scored normally: 1 sentence → 1; 3 unique content / 6 tokens.
      expect(r.coherence).toBe(1);
      expect(r.conciseness).toBe(0.5);
      // composite = 0.20·1 + 0.15·0.5 = 0.275 (computed in the same order)
      expect(r.composite).toBe(0.35 * 0 + 0.2 * 1 + 0.3 * 0 + 0.15 * 0.5);
    },
  );

  it("ignores everything after the 2048th token", () => {
    // 2048 tokens of "alpha beta. " followed by content that would change every dimension.
    const head = "alpha beta. ".repeat(MAX_TOKENS / 2);
    const a = score("alpha gamma", head, idf);
    const b = score("alpha gamma", head + "gamma delta! Gamma gamma epsilon.\nzeta", idf);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    // Sanity: the same tail inside the limit does change the result.
    const c = score("alpha gamma", "gamma delta! " + head, idf);
    expect(c.completeness).not.toBe(a.completeness);
  });

  it("truncates the prompt too", () => {
    const head = "alpha ".repeat(MAX_TOKENS);
    expect(score(head + "paris", "paris", idf).relevance).toBe(0);
    expect(score(head.slice(6) + "paris", "paris", idf).relevance).toBeGreaterThan(0);
  });

  it("folds accents, ligatures and full-width forms like their ASCII spelling", () => {
    const ascii = score("Whàt ïs thé capitâl of Frânce?", "Pàris ïs thé capitâl of Frànce.", idf);
    expect(JSON.stringify(ascii)).toBe(JSON.stringify(score(PROMPT, "Paris is the capital of France.", idf)));
    // ﬁ (U+FB01) → "fi", full-width Ｐａｒｉｓ → "paris".
    expect(score("ﬁsh", "fish", idf).relevance).toBe(1);
    expect(score("paris", "Ｐａｒｉｓ", idf).relevance).toBe(1);
  });

  it("drops characters without a decomposition, such as ß", () => {
    // "straße" → "strae", which is not "strasse".
    expect(score("strasse", "straße", idf).relevance).toBe(0);
    expect(score("strae", "straße", idf).relevance).toBe(1);
  });

  it("gives relevance 1 and completeness 1 when the response repeats the prompt", () => {
    const text = "Explain the capital gains tax in France and Paris.";
    const r = score(text, text, idf);
    expect(r.relevance).toBe(1);
    expect(r.completeness).toBe(1);
  });

  it("scores a single word with no special case", () => {
    // "capital": 1 token, shared with the prompt. completeness = 5 / (5 + 5) = 0.5;
    // relevance = 25 / (√50 · √25) = 1/√2; conciseness = 1; coherence = 1.
    const r = score(PROMPT, "capital", idf);
    expect(r.completeness).toBe(0.5);
    expect(r.relevance).toBe(25 / (Math.sqrt(50) * Math.sqrt(25)));
    expect(r.conciseness).toBe(1);
    expect(r.coherence).toBe(1);
  });

  it("throws a TypeError naming the parameter for non-string input", () => {
    expect(() => score(undefined as unknown as string, "x", idf)).toThrow(/score: prompt/);
    expect(() => score("x", 3 as unknown as string, idf)).toThrow(/score: response/);
  });
});

describe("dimensions (spec §4)", () => {
  it("averages adjacent-sentence cosines for coherence", () => {
    // Sentences (content terms): [paris capital], [capital france], [banana].
    // Pair 1 shares capital: dot = 25, norms √(p²+25), √50 → cos1 = 25/(√(p²+25)·√50); pair 2: 0.
    const p = GOLDEN.paris;
    const cos1 = 25 / (Math.sqrt(p * p + 25) * Math.sqrt(50));
    const r = score(PROMPT, "Paris capital. Capital France!\nBanana", idf);
    expect(r.coherence).toBe((cos1 + 0) / 2);
  });

  it("drops stopword-only sentences before pairing", () => {
    // "It is." has no content token, so France pairs directly with France: cos = 1.
    expect(score(PROMPT, "France. It is. France.", idf).coherence).toBe(1);
  });

  it("counts stopwords in conciseness's denominator and unique content terms in its numerator", () => {
    // Tokens: the, capital, the, capital, of, france, paris, paris → 8; unique content 3 → 3/8.
    const r = score(PROMPT, "The capital, the capital of France: Paris, Paris", idf);
    expect(r.conciseness).toBe(3 / 8);
    expect(r.explanations.conciseness).toBe(
      "Conciseness: 0.38 - response has low information density (repetition or padding).",
    );
  });

  it("rounds an exact tie half-to-even in explanations (conciseness 1/8 → 0.12)", () => {
    // 8 tokens, 1 unique content term (paris) → 0.125, a binary tie; Python prints 0.12.
    const r = score(PROMPT, "Paris is the of the a an the", idf);
    expect(r.conciseness).toBe(0.125);
    expect(r.explanations.conciseness).toBe(
      "Conciseness: 0.12 - response has low information density (repetition or padding).",
    );
  });

  it("weights OOV terms with idf_oov", () => {
    // Prompt {capital, zebra}; response has only zebra → completeness = oov / (5 + oov).
    const oov = Math.log(5401) + 1;
    expect(score("capital zebra", "zebra", idf).completeness).toBe(oov / (5 + oov));
  });

  it("computes the composite left to right from the pinned weights", () => {
    const r = score(PROMPT, "Paris, the capital. France has a capital city!", idf);
    const expected =
      WEIGHTS.relevance * r.relevance +
      WEIGHTS.coherence * r.coherence +
      WEIGHTS.completeness * r.completeness +
      WEIGHTS.conciseness * r.conciseness;
    expect(r.composite).toBe(expected);
    expect(WEIGHTS).toEqual({ relevance: 0.35, coherence: 0.2, completeness: 0.3, conciseness: 0.15 });
  });
});

describe("cosine clamp (spec §4)", () => {
  it("clamps a rounding overshoot to exactly 1", () => {
    // 0.2 / (√0.2 · √0.2) = 1.0000000000000002 in float64.
    expect(0.2 / (Math.sqrt(0.2) * Math.sqrt(0.2))).toBeGreaterThan(1);
    expect(cosFromSums(0.2, 0.2, 0.2)).toBe(1);
  });

  it("returns 0 when either norm is 0 and clamps negatives", () => {
    expect(cosFromSums(0, 0, 5)).toBe(0);
    expect(cosFromSums(0, 5, 0)).toBe(0);
    expect(clamp01(-1e-17)).toBe(0);
    expect(clamp01(0.5)).toBe(0.5);
  });
});

describe("determinism (spec §7)", () => {
  it("returns byte-identical JSON over 1000 calls", () => {
    const response = "Paris is the capital of France. It sits on the Seine!\nMany visit Paris.";
    const first = JSON.stringify(score(PROMPT, response, idf));
    for (let i = 0; i < 1000; i++) expect(JSON.stringify(score(PROMPT, response, idf))).toBe(first);
  });

  it("gives the same sha256 and results for a table built in another key order", async () => {
    const terms = ["capital", "france", "paris", "seine", "visit", "city", "river", "zz9"];
    const forward: Record<string, number> = {};
    terms.forEach((t, i) => (forward[t] = 1 + i * 0.37));
    const shuffled: Record<string, number> = {};
    for (const t of [...terms].reverse()) shuffled[t] = forward[t];
    const d1 = fixtureData(forward);
    const d2 = Object.fromEntries(Object.entries({ ...fixtureData(shuffled) }).reverse()) as IdfTableData;
    expect(Object.keys(d2)).not.toEqual(Object.keys(d1));
    const [a, b] = await Promise.all([prepareIdf(d1), prepareIdf(d2)]);
    expect(b.sha256).toBe(a.sha256);
    const response = "Paris is a city on the river Seine. Visit Paris, the capital of France!";
    expect(JSON.stringify(score(PROMPT, response, b))).toBe(JSON.stringify(score(PROMPT, response, a)));
  });

  it("does not depend on which call came before (scratch buffers are reset)", async () => {
    const other = await prepareIdf(fixtureData({ banana: 2, paris: 3 }));
    const before = JSON.stringify(score(PROMPT, "Paris is the capital of France.", idf));
    score("banana split", "banana ".repeat(3000), other);
    score("", "zebra quagga. okapi!", other);
    expect(JSON.stringify(score(PROMPT, "Paris is the capital of France.", idf))).toBe(before);
  });
});
