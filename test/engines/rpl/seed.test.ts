// Bootstrap-seed parity (spec rpl.md §8): every line of $REFERENCE_DIR/rpl/seed_vectors.jsonl, exact.
import { describe, expect, it } from "vitest";
import { bootstrapSeedCanonical, makeBootstrapSeed, parseSeed } from "../../../src/engines/rpl/index.ts";
import { referenceFiles } from "../../support/reference.ts";

const vectors = referenceFiles("rpl").lines("seed_vectors.jsonl").map((l) => JSON.parse(l));

describe("seed vectors", () => {
  it("has lines to check", () => expect(vectors.length).toBeGreaterThan(0));

  it.each(vectors.map((v, i) => [i, v.claim, v]))("line %i (%s): canonical string and 64-bit seed", async (_i, _c, v) => {
    const input = { claim: v.claim, model: v.model, promptVersionFull: v.prompt_version, K: v.K, R: v.R, templateHashes: v.template_hashes, center: v.center, trim: v.trim, B: v.B };
    expect(bootstrapSeedCanonical(input)).toBe(v.canonical);
    const seed = await makeBootstrapSeed(input);
    expect(seed.toString()).toBe(v.seed);
    expect(seed.toString(16).padStart(16, "0")).toBe(v.seed_hex);
  });
});

describe("parseSeed", () => {
  it("keeps 64-bit seeds exact and rejects out-of-range ones", () => {
    expect(parseSeed("18446744073709551615")).toBe(2n ** 64n - 1n);
    expect(() => parseSeed("18446744073709551616")).toThrow(RangeError);
    expect(() => parseSeed(-1)).toThrow(RangeError);
    expect(() => parseSeed(2 ** 60)).toThrow(RangeError);
  });

  // Python str(0.0) is "0.0"; JS String(0) is "0".
  it("writes an integral trim the way Python str(float) does", () => {
    expect(bootstrapSeedCanonical({ claim: "c", model: "m", promptVersionFull: "p", K: 1, R: 1, templateHashes: [], trim: 0 })).toContain("|trim=0.0|");
  });
});
