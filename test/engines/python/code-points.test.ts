// Python's code-point view of strings (src/engines/python/code-points.ts), against the definition itself:
// decode both strings into code points (Array.from yields a lone surrogate as its own code point, as Python
// holds it) and compare those lists. Issue 15 merged three copies of the order (reasoning-quality's,
// chain-determinism's sequence-key and metrics ones) into compareCodePoints; the sequence-key copy put a
// lone surrogate after U+E000–U+FFFF, where Python puts it before.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints, headCodePoints, lenCodePoints } from "../../../src/engines/python/index.ts";

const codePointsOf = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

/** Python `a < b` etc. as a sign, from the code-point lists. */
function pythonOrder(a: string, b: string): number {
  const x = codePointsOf(a);
  const y = codePointsOf(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return Math.sign(x[i] - y[i]);
  return Math.sign(x.length - y.length);
}

// Units where the orders differ: ASCII, the surrogate ranges' edges, U+E000–U+FFFF, and full pairs.
const UNITS = [
  "a",
  "b",
  "\u00e9",
  "\ud7ff",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\ue000",
  "\uffff",
  "\ud800\udc00",
  "\ud83d\ude00",
  "\udbff\udfff",
];
const piece = fc.array(fc.constantFrom(...UNITS), { maxLength: 5 }).map((p) => p.join(""));

describe("compareCodePoints", () => {
  it("orders as Python does, lone surrogates and pairs included", () => {
    fc.assert(
      fc.property(piece, piece, piece, (shared, a, b) => {
        // A shared prefix makes the first difference fall after a surrogate, where pairs are split.
        expect(Math.sign(compareCodePoints(shared + a, shared + b))).toBe(pythonOrder(shared + a, shared + b));
      }),
      { numRuns: 20_000 },
    );
  });

  it("puts an astral character after U+FFFF and a lone surrogate before U+E000", () => {
    // U+1F600 > U+FFFF, although its first UTF-16 unit (0xD83D) is below 0xFFFF; sorted(["\ue000", "\ud800"])
    // in Python is ['\ud800', '\ue000'] (0xD800 < 0xE000).
    expect(["\ud83d\ude00", "\uffff", "a"].sort(compareCodePoints)).toEqual(["a", "\uffff", "\ud83d\ude00"]);
    expect(["\ue000", "\ud800"].sort(compareCodePoints)).toEqual(["\ud800", "\ue000"]);
    // A lone high surrogate against the same surrogate completed into a pair: 0xD83D < U+1F600.
    expect(Math.sign(compareCodePoints("\ud83dx", "\ud83d\ude00"))).toBe(-1);
    expect(compareCodePoints("ab", "ab")).toBe(0);
    expect(Math.sign(compareCodePoints("ab", "abc"))).toBe(-1);
  });
});

describe("headCodePoints and lenCodePoints", () => {
  it("slice and count code points as Python's s[:n] and len(s)", () => {
    fc.assert(
      fc.property(piece, fc.nat({ max: 8 }), (s, n) => {
        expect(headCodePoints(s, n)).toBe(String.fromCodePoint(...codePointsOf(s).slice(0, n)));
        expect(lenCodePoints(s)).toBe(codePointsOf(s).length);
      }),
      { numRuns: 5_000 },
    );
  });
});
