// numpy `default_rng` parity (spec rpl.md §9): every seed entry of $REFERENCE_DIR/rpl/numpy_rng_vectors.json
// and every recorded stream or call sequence in it, matched exactly. The file is read losslessly and every
// integer is compared as a decimal string, so a 64/128-bit value is exact whether it is written as a string
// (as the file's notes say) or as a JSON number. Streams are recognised by their names, which carry the
// call's arguments (`integers_0_<n>_size<m>`, `choice_<n>keys_size<m>_x<k>_then_integers_0_<n2>_size<m2>`),
// and call sequences by their content (`calls` + `state_after`).
import { describe, expect, it } from "vitest";
import { isRawJson, type PyPlain } from "../../../src/engines/python/index.ts";
import { defaultRng, Pcg64, seedSequence } from "../../../src/engines/stats/index.ts";
import { describeReference, itEachCase, lossless } from "../../support/reference.ts";

/** A losslessly read integer (JSON number of any size, or decimal string) as a decimal string. */
function decimal(v: PyPlain | undefined): string {
  if (typeof v === "string" && /^\d+$/.test(v)) return v;
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  if (isRawJson(v) && /^\d+$/.test(v.rawJSON)) return v.rawJSON;
  throw new TypeError(`not an unsigned integer: ${JSON.stringify(v)}`);
}
const decimals = (vs: PyPlain | undefined): string[] => {
  if (!Array.isArray(vs)) throw new TypeError(`not a list: ${JSON.stringify(vs)}`);
  return vs.map(decimal);
};
const strs = (xs: Iterable<number | bigint>): string[] => Array.from(xs, (x) => x.toString());
const obj = (v: PyPlain | undefined): Record<string, PyPlain> => v as Record<string, PyPlain>;

/** numpy `integers(low, high, size)` (int64): low + the bounded draw on [0, high − low). */
function integers(rng: Pcg64, low: number, high: number, size: number): number[] {
  return rng.integers(high - low, size).map((x) => x + low);
}

type Check = { name: string; run: () => void };

/** The checks one seed entry supports, found by the entry's fields. */
function checksFor(entry: Record<string, PyPlain>): { checks: Check[]; unknown: string[] } {
  const seed = decimal(entry.seed);
  const checks: Check[] = [];
  const unknown: string[] = [];
  const known = new Set(["seed", "seed_hex"]);

  if (entry.seed_hex !== undefined) {
    checks.push({
      name: "seed_hex is the seed",
      run: () => expect(BigInt(`0x${String(entry.seed_hex).replace(/^0x/i, "")}`).toString()).toBe(seed),
    });
  }

  const ssFields = [
    "seedsequence_entropy_words_u32_le",
    "seedsequence_pool_u32",
    "seedsequence_generate_state_u32x8",
    "seedsequence_generate_state_u64x4",
  ];
  ssFields.forEach((f) => known.add(f));
  if (ssFields.some((f) => entry[f] !== undefined)) {
    checks.push({
      name: "mixes the SeedSequence pool and generates the state words",
      run: () => {
        // Entropy = the seed's little-endian 32-bit words, [0] for seed 0 (§9).
        if (entry.seedsequence_entropy_words_u32_le !== undefined) {
          const words: string[] = [];
          for (let s = BigInt(seed); words.length === 0 || s > 0n; s >>= 32n) words.push((s & 0xffffffffn).toString());
          expect(words).toEqual(decimals(entry.seedsequence_entropy_words_u32_le));
        }
        const u32 =
          entry.seedsequence_generate_state_u32x8 === undefined
            ? null
            : decimals(entry.seedsequence_generate_state_u32x8);
        const u64 =
          entry.seedsequence_generate_state_u64x4 === undefined
            ? null
            : decimals(entry.seedsequence_generate_state_u64x4);
        const nWords = u32?.length ?? 2 * (u64?.length ?? 4);
        const { pool, state } = seedSequence(BigInt(seed), nWords);
        if (entry.seedsequence_pool_u32 !== undefined)
          expect(strs(pool)).toEqual(decimals(entry.seedsequence_pool_u32));
        if (u32) expect(strs(state)).toEqual(u32);
        // u64 word i = u32[2i] | u32[2i+1] << 32 (§9).
        if (u64)
          expect(u64.map((_, i) => ((BigInt(state[2 * i + 1]) << 32n) | BigInt(state[2 * i])).toString())).toEqual(u64);
      },
    });
  }

  known.add("pcg64_initial_state");
  if (entry.pcg64_initial_state !== undefined) {
    const init = obj(entry.pcg64_initial_state);
    checks.push({
      name: "seeds PCG64 to the recorded state and increment",
      run: () => {
        const st = defaultRng(BigInt(seed)).state;
        expect(st.state.toString()).toBe(decimal(init.state));
        expect(st.inc.toString()).toBe(decimal(init.inc));
        if (init.state_hex !== undefined) expect(st.state).toBe(BigInt(`0x${init.state_hex}`));
        if (init.inc_hex !== undefined) expect(st.inc).toBe(BigInt(`0x${init.inc_hex}`));
        expect(st.has_uint32).toBe(0);
      },
    });
  }

  for (const key of Object.keys(entry).filter((k) => k.startsWith("pcg64_random_raw"))) {
    known.add(key);
    const expected = decimals(entry[key]);
    checks.push({
      name: `emits the first ${expected.length} random_raw outputs (${key})`,
      run: () => {
        const rng = defaultRng(seed);
        expect(expected.map(() => rng.next64().toString())).toEqual(expected);
      },
    });
  }

  known.add("generator_streams");
  for (const [key, stream] of Object.entries(obj(entry.generator_streams ?? {}))) {
    let m: RegExpMatchArray | null;
    if ((m = key.match(/^integers_(\d+)_(\d+)_size(\d+)$/))) {
      const [low, high, size] = m.slice(1).map(Number);
      checks.push({
        name: `draws integers(${low}, ${high}, size=${size}) on a fresh generator`,
        run: () => expect(strs(integers(defaultRng(seed), low, high, size))).toEqual(decimals(stream)),
      });
    } else if ((m = key.match(/^choice_(\d+)keys_size(\d+)_x(\d+)_then_integers_(\d+)_(\d+)_size(\d+)$/))) {
      const [n, size, times, low, high, size2] = m.slice(1).map(Number);
      const rec = obj(stream);
      checks.push({
        name: `draws choice(${n} keys, size=${size}) x${times} then integers(${low}, ${high}, size=${size2}) from one stream, sharing the 32-bit buffer`,
        run: () => {
          const rng = defaultRng(seed);
          const choices = Array.from({ length: times }, () => strs(rng.integers(n, size)));
          expect(choices).toEqual((rec.choice as PyPlain[]).map(decimals));
          expect(strs(integers(rng, low, high, size2))).toEqual(decimals(rec.integers));
        },
      });
    } else unknown.push(`generator_streams.${key}`);
  }

  // Recorded call sequences on one generator: any field holding `calls` and `state_after`.
  for (const [key, value] of Object.entries(entry)) {
    const rec = value as Record<string, PyPlain> | null;
    if (known.has(key) || !rec || typeof rec !== "object" || !Array.isArray(rec.calls) || rec.state_after === undefined)
      continue;
    known.add(key);
    checks.push({
      name: `replays the recorded call sequence ${key} and ends in the recorded state`,
      run: () => {
        const rng = defaultRng(seed);
        (rec.calls as PyPlain[]).forEach((c, i) => {
          const call = obj(c);
          // numpy choice(list of n, size, replace=True) draws the same stream as integers(0, n, size) (file notes).
          if (call.call === "choice")
            expect(strs(rng.integers(Number(decimal(call.n)), Number(decimal(call.size)))), `call ${i}`).toEqual(
              decimals(call.out_idx),
            );
          else if (call.call === "integers")
            expect(
              strs(
                integers(rng, Number(decimal(call.low ?? 0)), Number(decimal(call.high)), Number(decimal(call.size))),
              ),
              `call ${i}`,
            ).toEqual(decimals(call.out));
          else expect.fail(`call ${i}: unknown call ${JSON.stringify(call.call)}`);
        });
        const after = obj(rec.state_after);
        const st = rng.state;
        expect(st.state.toString()).toBe(decimal(after.state));
        expect(String(st.has_uint32)).toBe(decimal(after.has_uint32));
        expect(String(st.uinteger)).toBe(decimal(after.uinteger));
      },
    });
  }

  for (const key of Object.keys(entry)) if (!known.has(key)) unknown.push(key);
  return { checks, unknown };
}

describeReference("numpy default_rng parity", "rpl", ["numpy_rng_vectors.json"], (ref) => {
  const doc = obj(lossless(ref.text("numpy_rng_vectors.json")));
  const entries = (Array.isArray(doc.seeds) ? doc.seeds : []).map(obj);

  it("has a list of seed entries", () => expect(Array.isArray(doc.seeds)).toBe(true));

  itEachCase(
    entries.map((e, i) => ({ i, e, ...checksFor(e) })),
    ({ i, e }) => `entry ${i} (seed ${decimal(e.seed)}): every field is one this file checks`,
    "seed entry",
    ({ unknown }) => expect(unknown).toEqual([]),
  );

  entries.forEach((e, i) => {
    describe(`entry ${i}: seed ${decimal(e.seed)}`, () => {
      const { checks } = checksFor(e);
      itEachCase(
        checks,
        (c) => c.name,
        `recorded output for seed ${decimal(e.seed)}`,
        (c) => c.run(),
      );
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
