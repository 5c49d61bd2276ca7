// CPython random.Random parity (spec reasoning-quality.md §9.4 [D]): every stream of every seed in
// $REFERENCE_DIR/reasoning-quality/synthetic_vectors.json `rng`, each from a fresh generator, compared exactly.
import { describe, expect, it } from "vitest";
import { PyRandom, seedKey } from "../../../src/engines/reasoning-quality/pyrandom.ts";
import { referenceFiles } from "../../support/reference.ts";

type MmluLike = { subject_sizes: number[]; per_subject: number; first_25_after_each_shuffle: number[][]; final_shuffle_of_collected_pairs: [number, number][] };
type Streams = Record<string, unknown> & {
  random: number[];
  getrandbits_32: number[];
  generator_call_sequence_first_50: [string, number, number, number][];
  mmlu_like_sequence: MmluLike;
  mt_state_after_seed: { version: number; key: number[]; index: number };
};

const rngVectors = referenceFiles("reasoning-quality").json<{ rng: Record<string, Streams> }>("synthetic_vectors.json").rng;
const seeds = Object.keys(rngVectors);
const fresh = (seed: string) => new PyRandom(BigInt(seed));

// Every stream name the test knows how to check; an unknown one in the file fails "covers every stream".
const RANDINT = /^randint_(-?\d+)_(-?\d+)$/;
const SHUFFLE = /^shuffle_range_(\d+)$/;
const OTHER = new Set(["random", "getrandbits_32", "generator_call_sequence_first_50", "mmlu_like_sequence", "mt_state_after_seed"]);

describe("rng vectors", () => {
  it("has the dataset seeds and the RNG-only edge seeds (0, above 2^32, negative)", () => {
    expect(seeds).toEqual(expect.arrayContaining(["42", "1234", "0", "4294967297", "-42"]));
  });

  it.each(seeds)("seed %s: covers every stream in the file", (seed) => {
    const unknown = Object.keys(rngVectors[seed]).filter((k) => !OTHER.has(k) && !RANDINT.test(k) && !SHUFFLE.test(k));
    expect(unknown).toEqual([]);
    expect(Object.keys(rngVectors[seed]).filter((k) => SHUFFLE.test(k)).length).toBeGreaterThanOrEqual(4);
  });

  it.each(seeds)("seed %s: state right after seeding (init_by_array)", (seed) => {
    expect(fresh(seed).getstate()).toEqual(rngVectors[seed].mt_state_after_seed);
  });

  it.each(seeds)("seed %s: random() doubles, bit for bit", (seed) => {
    const r = fresh(seed);
    const expected = rngVectors[seed].random;
    expect(expected.length).toBe(50);
    expect(expected.map(() => r.random())).toEqual(expected);
  });

  it.each(seeds)("seed %s: getrandbits(32)", (seed) => {
    const r = fresh(seed);
    const expected = rngVectors[seed].getrandbits_32;
    expect(expected.map(() => r.getrandbits(32))).toEqual(expected);
  });

  it.each(seeds)("seed %s: randint streams", (seed) => {
    const streams = Object.keys(rngVectors[seed]).filter((k) => RANDINT.test(k));
    expect(streams.length).toBe(3);
    for (const name of streams) {
      const [, lo, hi] = RANDINT.exec(name)!;
      const r = fresh(seed);
      const expected = rngVectors[seed][name] as number[];
      expect(expected.map(() => r.randint(Number(lo), Number(hi))), name).toEqual(expected);
    }
  });

  it.each(seeds)("seed %s: the generator's interleaved call sequence", (seed) => {
    const r = fresh(seed);
    const calls = rngVectors[seed].generator_call_sequence_first_50;
    expect(calls.length).toBe(50);
    for (const [method, lo, hi, value] of calls) {
      expect(method).toBe("randint");
      expect(r.randint(lo, hi)).toBe(value);
    }
  });

  it.each(seeds)("seed %s: shuffle(list(range(n)))", (seed) => {
    for (const name of Object.keys(rngVectors[seed]).filter((k) => SHUFFLE.test(k))) {
      const n = Number(SHUFFLE.exec(name)![1]);
      const list = Array.from({ length: n }, (_, i) => i);
      expect(fresh(seed).shuffle(list), name).toEqual(rngVectors[seed][name]);
    }
  });

  it.each(seeds)("seed %s: MMLU call pattern (nine shuffles, then one over the collected pairs)", (seed) => {
    const m = rngVectors[seed].mmlu_like_sequence;
    const r = fresh(seed);
    const collected: [number, number][] = [];
    m.subject_sizes.forEach((size, s) => {
      const idx = r.shuffle(Array.from({ length: size }, (_, i) => i)).slice(0, m.per_subject);
      expect(idx, `subject ${s}`).toEqual(m.first_25_after_each_shuffle[s]);
      for (const i of idx) collected.push([s, i]);
    });
    expect(r.shuffle(collected)).toEqual(m.final_shuffle_of_collected_pairs);
  });
});

describe("seeding", () => {
  // Python: abs() of the seed, then 32-bit words least significant first; 0 still gives one word.
  it("splits seeds into little-endian 32-bit words", () => {
    expect(seedKey(0)).toEqual([0]);
    expect(seedKey(42)).toEqual([42]);
    expect(seedKey(-42)).toEqual([42]);
    expect(seedKey(4294967297n)).toEqual([1, 1]); // 2^32 + 1
    expect(seedKey(2n ** 64n - 1n)).toEqual([0xffffffff, 0xffffffff]);
  });

  it("gives the same stream for a number and a bigint seed", () => {
    const a = new PyRandom(4294967297);
    const b = new PyRandom(4294967297n);
    expect([a.random(), a.getrandbits(32)]).toEqual([b.random(), b.getrandbits(32)]);
  });

  it("rejects a fractional seed", () => {
    expect(() => new PyRandom(1.5)).toThrow(RangeError);
  });
});

// Derived from the 32-bit reference stream and CPython's documented construction of wider values
// (getrandbits fills 32-bit words least significant first; the last word keeps its top bits).
describe("getrandbits / _randbelow derived from the 32-bit stream", () => {
  const g = rngVectors["42"].getrandbits_32;

  it("getrandbits(k) for k < 32 keeps the top k bits of one word", () => {
    const r = new PyRandom(42);
    expect([r.getrandbits(1), r.getrandbits(5), r.getrandbits(31)]).toEqual([g[0] >>> 31, g[1] >>> 27, g[2] >>> 1]);
  });

  it("getrandbits(40) = word0 + (top 8 bits of word1)·2^32", () => {
    expect(new PyRandom(42).getrandbits(40)).toBe(g[0] + (g[1] >>> 24) * 2 ** 32);
  });

  it("getrandbitsBigInt(64) = word0 + word1·2^32", () => {
    expect(new PyRandom(42).getrandbitsBigInt(64)).toBe(BigInt(g[0]) + (BigInt(g[1]) << 32n));
  });

  it("getrandbits(0) is 0 and consumes nothing", () => {
    const r = new PyRandom(42);
    expect(r.getrandbits(0)).toBe(0);
    expect(r.getrandbits(32)).toBe(g[0]);
  });

  it("randbelow(10) draws 4 bits per try and rejects values ≥ 10", () => {
    const r = new PyRandom(42);
    const expected = g.map((w) => w >>> 28).filter((v) => v < 10);
    expect(expected.map(() => r.randbelow(10))).toEqual(expected);
  });

  it("randrange(0, 20, 2) is 2·randbelow(10); randrange(stop) is randbelow(stop)", () => {
    const a = new PyRandom(42);
    const b = new PyRandom(42);
    expect([a.randrange(0, 20, 2), a.randrange(7)]).toEqual([2 * b.randbelow(10), b.randbelow(7)]);
  });

  it("randrange with a negative step counts down from start", () => {
    const a = new PyRandom(42);
    const b = new PyRandom(42);
    // range(10, 0, -3) = 10, 7, 4, 1: four values.
    expect(a.randrange(10, 0, -3)).toBe(10 - 3 * b.randbelow(4));
  });

  it("rejects empty ranges and bad widths", () => {
    const r = new PyRandom(42);
    expect(() => r.randrange(0)).toThrow(RangeError);
    expect(() => r.randint(5, 4)).toThrow(RangeError);
    expect(() => r.randrange(0, 10, 0)).toThrow(RangeError);
    expect(() => r.getrandbits(54)).toThrow(RangeError);
    expect(() => r.randbelow(0)).toThrow(RangeError);
  });

  it("shuffle of fewer than two elements draws nothing", () => {
    const r = new PyRandom(42);
    expect(r.shuffle([7])).toEqual([7]);
    expect(r.getrandbits(32)).toBe(g[0]);
  });
});
