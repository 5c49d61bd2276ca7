// CQ matcher parity (spec §2.1): every line of cq_vectors.jsonl, every expected field compared losslessly and
// exactly (the num values included, so -0.0 stays -0.0). Then the legacy7 chain (§2.2), whose rules are our [D],
// and the rounding-aware flag (§2.3); the reference lines those need are found by their content.
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
import { pyFloatRepr } from "../../../src/engines/python/index.ts";
import { itEachCase } from "../../support/reference.ts";
import { describeRq, expectPy, vectorLines, type VectorLine } from "./support.ts";

/** The README's fields of `expected`, as our matcher computes them. */
function ours(response: string, gold: string) {
  const correct = isCorrect(response, gold);
  const naive = naiveSubstringMatch(response, gold);
  const kind = goldKind(gold);
  return {
    correct,
    gold_kind: kind,
    canonical_gold: canonicalGold(gold),
    extracted: extractAnswer(response, gold),
    naive_substring_match: naive,
    differs_from_naive: correct !== naive,
    ...(kind === "num"
      ? { extracted_value: extractNumber(response), canonical_gold_value: canonicalGoldValue(gold) }
      : {}),
  };
}

/**
 * §2.3 [D] rounding-aware rule, derived by hand: a numeric gold written as plain digits with d ≥ 1 decimals
 * ("1.33", after the norm's trailing-punctuation strip and comma removal) also accepts |Δ| ≤ 0.5·10^-d + 1e-9.
 * Returns d, 0 for a plain integer gold, or null for a gold this derivation does not cover.
 */
function plainGoldDecimals(gold: string): number | null {
  const g = gold
    .trim()
    .replace(/[.,;:!?*]+$/, "")
    .replaceAll(",", "");
  const m = /^-?[0-9]+(?:\.([0-9]+))?$/.exec(g);
  return m ? (m[1]?.length ?? 0) : null;
}

describeRq("cq_vectors.jsonl (canonical matcher)", ["cq_vectors.jsonl"], (ref) => {
  const lines = vectorLines(ref, "cq_vectors.jsonl");
  const name = (l: VectorLine) => `${l.label} ${l.value.note ?? ""}`;

  itEachCase(lines, name, "line in cq_vectors.jsonl", (l) => {
    const { response, gold } = l.value;
    // The only numbers are extracted_value / canonical_gold_value, Python float()s.
    expectPy(ours(response, gold), l.exact.expected, l.label, { numbers: "float" });
    expect(isCorrect(response, gold, { matcher: "canonical" }), "explicit canonical matcher").toBe(
      isCorrect(response, gold),
    );
    if (goldKind(gold) !== "num") expect(canonicalGoldValue(gold)).toBeNull();
  });

  // §2.2: the hardened legacy7 exists to reject the regression false positives of the unrestricted substring rule
  // ("5" in "25", "D" in "drastic"): regression lines that the naive rule accepts and the canonical matcher rejects.
  const regressions = lines.filter(
    (l) =>
      /regression/i.test(l.value.note ?? "") && l.value.expected.naive_substring_match && !l.value.expected.correct,
  );
  itEachCase(
    regressions,
    (l) => `legacy7 rejects ${name(l)}`,
    "regression line that the naive substring rule accepts and the canonical matcher rejects",
    (l) => {
      const { response, gold } = l.value;
      expect(legacy7Match(response, gold)).toEqual({ correct: false, strategy: null });
      expect(isCorrect(response, gold, { matcher: "legacy7" })).toBe(false);
    },
  );

  const numeric = lines.filter(
    (l) =>
      l.value.expected.gold_kind === "num" &&
      l.value.expected.extracted_value !== null &&
      l.value.expected.canonical_gold_value !== null,
  );
  const decimalGold = numeric.filter((l) => (plainGoldDecimals(l.value.gold) ?? 0) >= 1);
  itEachCase(
    decimalGold,
    (l) => `roundingAware on ${name(l)}`,
    "num line with a decimal gold and an extracted number",
    (l) => {
      const e = l.value.expected;
      const d = plainGoldDecimals(l.value.gold)!;
      const accept = e.correct || Math.abs(e.extracted_value - e.canonical_gold_value) <= 0.5 * 10 ** -d + 1e-9;
      expect(isCorrect(l.value.response, l.value.gold, { roundingAware: true })).toBe(accept);
      expect(isCorrect(l.value.response, l.value.gold)).toBe(e.correct);
    },
  );

  const integerGold = numeric.filter((l) => plainGoldDecimals(l.value.gold) === 0);
  itEachCase(
    integerGold,
    (l) => `roundingAware leaves ${name(l)}`,
    "num line with an integer gold and an extracted number",
    (l) => {
      // Integer golds keep the 1e-3 tolerance.
      expect(isCorrect(l.value.response, l.value.gold, { roundingAware: true })).toBe(l.value.expected.correct);
    },
  );
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

  it("rejects the §2.2 regression false positives of the unrestricted substring rule", () => {
    // spec §2.1/§2.2: "The answer is 25." vs gold 5 and "This is drastic." vs gold D are wrong.
    for (const [pred, gold] of [
      ["The answer is 25.", "5"],
      ["This is drastic.", "D"],
    ]) {
      expect(naiveSubstringMatch(pred, gold)).toBe(true);
      expect(isCorrect(pred, gold, { matcher: "legacy7" })).toBe(false);
    }
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
    // Gold "1.33" has d = 2 decimals: |1.333 − 1.33| = 0.003 > 1e-3, but ≤ 0.5·10^-2 + 1e-9.
    expect(isCorrect("Each person gets 1.333 apples.", "1.33")).toBe(false);
    expect(isCorrect("Each person gets 1.333 apples.", "1.33", { roundingAware: true })).toBe(true);
    // |1.336 − 1.33| = 0.006 > 0.005.
    expect(isCorrect("about 1.336", "1.33", { roundingAware: true })).toBe(false);
    // Integer golds keep the 1e-3 tolerance.
    expect(isCorrect("5.4", "5", { roundingAware: true })).toBe(false);
  });
});
