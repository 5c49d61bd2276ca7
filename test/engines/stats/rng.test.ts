// numpy `default_rng` parity (spec rpl.md §9): every seed of $REFERENCE_DIR/rpl/numpy_rng_vectors.json,
// every recorded stream, matched exactly.
import { describe, expect, it } from "vitest";
import { defaultRng, Pcg64, seedSequence } from "../../../src/engines/stats/index.ts";
import { referenceFiles } from "../../support/reference.ts";

type SeedVector = {
  seed: string;
  seedsequence_entropy_words_u32_le: number[];
  seedsequence_pool_u32: number[];
  seedsequence_generate_state_u32x8: number[];
  seedsequence_generate_state_u64x4: string[];
  pcg64_initial_state: { state: string; inc: string };
  pcg64_random_raw_first20: string[];
  generator_streams: Record<string, number[]> & { choice_16keys_size16_x3_then_integers_0_3_size50: { choice: number[][]; integers: number[] } };
  aggregate_pattern_counts_2_2_3_1: {
    calls: ({ call: "choice"; n: number; size: number; out_idx: number[] } | { call: "integers"; low: number; high: number; size: number; out: number[] })[];
    state_after: { state: string; has_uint32: number; uinteger: number | string };
  };
};

const vectors = referenceFiles("rpl").json<{ seeds: SeedVector[] }>("numpy_rng_vectors.json").seeds;

describe("numpy default_rng parity", () => {
  it("reads all seeds of the vector file", () => {
    expect(vectors.length).toBe(7);
  });

  describe.each(vectors.map((v) => [v.seed, v] as const))("seed %s", (_seed, v) => {
    it("mixes the SeedSequence pool and generates the state words", () => {
      const { pool, state } = seedSequence(BigInt(v.seed));
      expect(pool).toEqual(v.seedsequence_pool_u32);
      expect(state).toEqual(v.seedsequence_generate_state_u32x8);
      const u64 = [0, 1, 2, 3].map((i) => ((BigInt(state[2 * i + 1]) << 32n) | BigInt(state[2 * i])).toString());
      expect(u64).toEqual(v.seedsequence_generate_state_u64x4);
    });

    it("seeds PCG64 to the recorded state and increment", () => {
      const { state, inc, has_uint32 } = defaultRng(BigInt(v.seed)).state;
      expect(state.toString()).toBe(v.pcg64_initial_state.state);
      expect(inc.toString()).toBe(v.pcg64_initial_state.inc);
      expect(has_uint32).toBe(0);
    });

    it("emits the first 20 random_raw outputs", () => {
      const rng = defaultRng(v.seed);
      expect(Array.from({ length: 20 }, () => rng.next64().toString())).toEqual(v.pcg64_random_raw_first20);
    });

    it.each([2, 3, 5, 8, 16])("draws integers(0, %i, size=50) on a fresh generator", (n) => {
      expect(defaultRng(v.seed).integers(n, 50)).toEqual(v.generator_streams[`integers_0_${n}_size50`]);
    });

    it("draws choice x3 then integers(0, 3) from one stream, sharing the 32-bit buffer", () => {
      const rng = defaultRng(v.seed);
      const rec = v.generator_streams.choice_16keys_size16_x3_then_integers_0_3_size50;
      expect([rng.integers(16, 16), rng.integers(16, 16), rng.integers(16, 16)]).toEqual(rec.choice);
      expect(rng.integers(3, 50)).toEqual(rec.integers);
    });

    it("replays the aggregate-style call sequence and ends in the recorded state", () => {
      const rng = defaultRng(v.seed);
      const rec = v.aggregate_pattern_counts_2_2_3_1;
      for (const call of rec.calls) {
        if (call.call === "choice") expect(rng.integers(call.n, call.size)).toEqual(call.out_idx);
        else {
          expect(call.low).toBe(0);
          expect(rng.integers(call.high, call.size)).toEqual(call.out);
        }
      }
      const st = rng.state;
      expect(st.state.toString()).toBe(rec.state_after.state);
      expect(st.has_uint32).toBe(rec.state_after.has_uint32);
      expect(String(st.uinteger)).toBe(String(rec.state_after.uinteger));
    });
  });
});

describe("Pcg64.below", () => {
  it("draws nothing when n = 1 (numpy returns 0 for an empty range without touching the stream)", () => {
    const a = defaultRng(7);
    const b = defaultRng(7);
    expect(a.below(1)).toBe(0);
    expect(a.next32()).toBe(b.next32());
  });

  it("returns next32 unchanged for n = 2^32", () => {
    expect(defaultRng(3).below(2 ** 32)).toBe(defaultRng(3).next32());
  });

  // Lemire with a large n exercises the split 64-bit product; cross-check against BigInt arithmetic.
  it("matches a BigInt Lemire reference for large n", () => {
    const n = 4_000_000_007 - 1;
    const a = defaultRng(11);
    const b = defaultRng(11);
    for (let i = 0; i < 200; i++) {
      let m = BigInt(b.next32()) * BigInt(n);
      if ((m & 0xffffffffn) < BigInt(n)) {
        const thr = (2n ** 32n - BigInt(n)) % BigInt(n);
        while ((m & 0xffffffffn) < thr) m = BigInt(b.next32()) * BigInt(n);
      }
      expect(a.below(n)).toBe(Number(m >> 32n));
    }
  });

  // Rejection is too rare to show up in recorded streams (p <= n/2^32), so script next32 instead:
  // a first word whose low product half is below (2^32 − n) mod n must be redrawn.
  it.each([
    // n = 3: thr = 2^32 mod 3 = 1; x = 0 → low half 0 < 1, rejected; x = 2^32−1 → high half 2.
    [3, 2],
    // n = 2^32 − 1 (split-product path): thr = 1; x = 0 rejected; x = 2^32−1 → (2^32−1)^2 >> 32 = 2^32 − 2.
    [2 ** 32 - 1, 2 ** 32 - 2],
  ])("redraws when the low half falls below the threshold (n = %i)", (n, expected) => {
    class Scripted extends Pcg64 {
      words = [0, 0xffffffff];
      override next32(): number {
        return this.words.shift()!;
      }
    }
    const rng = new Scripted(0n, 0n);
    expect(rng.below(n)).toBe(expected);
    expect(rng.words).toEqual([]);
  });

  it.each([0, -1, 1.5, 2 ** 32 + 1])("rejects n = %s", (n) => {
    expect(() => defaultRng(1).below(n)).toThrow(RangeError);
  });

  it("rejects negative or fractional seeds", () => {
    expect(() => defaultRng(-1)).toThrow(RangeError);
    expect(() => defaultRng("1.5")).toThrow(RangeError);
    expect(() => new Pcg64(0n, 0n).next32()).not.toThrow();
  });
});
