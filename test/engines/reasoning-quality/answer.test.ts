// CQ matcher parity (spec §2.1): every line of cq_vectors.jsonl, all fields exact (num values included, so
// -0.0 stays -0.0). Then the legacy7 chain (§2.2), whose rules are our [D], and the rounding-aware flag (§2.3).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalGold,
  canonicalGoldValue,
  extractAnswer,
  extractNumber,
  goldKind,
  hardenedSubstringMatch,
  isCorrect,
  legacy7Match,
  legacyNorm,
  naiveSubstringMatch,
} from "../../../src/engines/reasoning-quality/index.ts";
import { pyFloatRepr } from "../../../src/engines/reasoning-quality/pystr.ts";
import { vectors } from "./support.ts";

const cq = vectors("cq_vectors.jsonl");

describe("cq_vectors.jsonl (canonical matcher)", () => {
  it("reads every line", () => expect(cq.length).toBe(90));

  it.each(cq.map((v) => [`${v.id} ${v.note}`, v]))("%s", (_n, v: any) => {
    const e = v.expected;
    expect(goldKind(v.gold)).toBe(e.gold_kind);
    expect(canonicalGold(v.gold)).toBe(e.canonical_gold);
    expect(extractAnswer(v.response, v.gold)).toBe(e.extracted);
    expect(isCorrect(v.response, v.gold)).toBe(e.correct);
    expect(isCorrect(v.response, v.gold, { matcher: "canonical" })).toBe(e.correct);
    expect(naiveSubstringMatch(v.response, v.gold)).toBe(e.naive_substring_match);
    expect(e.correct !== e.naive_substring_match).toBe(e.differs_from_naive);
    if (e.gold_kind === "num") {
      expect(extractNumber(v.response)).toBe(e.extracted_value);
      expect(canonicalGoldValue(v.gold)).toBe(e.canonical_gold_value);
    } else {
      expect(canonicalGoldValue(v.gold)).toBeNull();
    }
  });
});

describe("Python float repr of extracted numbers", () => {
  it("round-trips and uses Python's layout", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const r = pyFloatRepr(x);
        expect(Object.is(Number(r), x)).toBe(true);
        expect(r).toMatch(/^-?(\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$/);
      }),
      { numRuns: 3000 },
    );
  });

  it("switches to exponent form where CPython does (decimal exponent ≤ -4 or > 16)", () => {
    expect(pyFloatRepr(1e16)).toBe("1e+16");
    expect(pyFloatRepr(1e15)).toBe("1000000000000000.0");
    expect(pyFloatRepr(0.0001)).toBe("0.0001");
    expect(pyFloatRepr(0.00001)).toBe("1e-05");
    expect(pyFloatRepr(1.5e-7)).toBe("1.5e-07");
    expect(pyFloatRepr(-0)).toBe("-0.0");
  });
});

describe("legacy7 matcher (§2.2, rules [D])", () => {
  const cases: [string, string, string | null][] = [
    // [prediction, gold, the strategy that must decide (null = wrong)]
    [" 42 ", "42", "exact"],
    ["**'Paris'**.", "paris", "normalized"],
    ["_yes_", "Yes", "normalized"],
    ["Total: #### 1,234", "1234", "number"],
    ["No, it is not.", "false", "yes_no"],
    ["The correct option is D.", "D", "choice"],
    ["The capital is Paris, France", "Paris", "substring"],
    ["25 apples and 3 pears", "25", "substring"],
    ["I got 5.0004, so about 6", "5", "numeric_tolerance"],
    // The false positives the hardening exists for.
    ["This is drastic.", "D", null],
    ["The answer is 25.", "5", null],
    ["Parisian cafes", "Paris", null],
    ["-25 degrees", "25", null],
    ["1250 items", "25", null],
    ["", "", null],
    ["   ", "yes", null],
  ];

  it.each(cases)("%j vs %j → %s", (pred, gold, strategy) => {
    const got = legacy7Match(pred, gold);
    expect(got.strategy).toBe(strategy);
    expect(got.correct).toBe(strategy !== null);
    expect(isCorrect(pred, gold, { matcher: "legacy7" })).toBe(strategy !== null);
  });

  it("rejects the §2.2 regression false positives (cq_002 \"5\" in 25, cq_067 \"D\" in drastic)", () => {
    for (const v of cq.filter((x) => ["cq_002", "cq_067"].includes(x.id))) expect(isCorrect(v.response, v.gold, { matcher: "legacy7" })).toBe(false);
  });

  it("hardened substring needs ≥ 2 code points and word boundaries on word edges", () => {
    expect(hardenedSubstringMatch("a e b", "e")).toBe(false);
    expect(hardenedSubstringMatch("it is 50% done", "50%")).toBe(true);
    expect(hardenedSubstringMatch("it is 150% done", "50%")).toBe(false);
    expect(hardenedSubstringMatch("see 2.50 or 2,500", "2.5")).toBe(false);
    expect(hardenedSubstringMatch("see 2.5.", "2.5")).toBe(true);
  });

  it("legacyNorm strips markdown and matching quotes repeatedly", () => {
    expect(legacyNorm('  "**Yes**"  ')).toBe("yes");
    expect(legacyNorm("“Paris”")).toBe("paris");
    expect(legacyNorm("'Paris\"")).toBe("'paris\"");
  });

  it("an unknown matcher is rejected", () => {
    expect(() => isCorrect("1", "1", { matcher: "fuzzy" as never })).toThrow(RangeError);
  });
});

describe("cq_rounding_aware (§2.3 [D], default off)", () => {
  it("accepts a more precise answer to a rounded gold only when on", () => {
    const v = cq.find((x) => x.id === "cq_015");
    expect(isCorrect(v.response, v.gold)).toBe(false);
    expect(isCorrect(v.response, v.gold, { roundingAware: true })).toBe(true);
    expect(isCorrect("about 1.336", "1.33", { roundingAware: true })).toBe(false);
    // Integer golds keep the 1e-3 tolerance.
    expect(isCorrect("5.4", "5", { roundingAware: true })).toBe(false);
  });
});
