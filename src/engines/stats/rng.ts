/**
 * numpy's `default_rng(seed)` reproduced bit for bit (spec rpl.md §9 "numpy Generator / PCG64 stream"):
 * `Generator(PCG64(SeedSequence(seed)))`, the bit generator's one-word 32-bit buffer, and Lemire's
 * bounded integers as numpy draws them for `integers(0, n, dtype=int64)` and `choice(n, replace=True)`.
 *
 * Why bit-exact: the RPL bootstrap CI is reproducible from its seed only if every draw matches numpy,
 * and the golden vectors (`numpy_rng_vectors.json`) pin the stream.
 *
 * The 128-bit PCG state is eight 16-bit limbs held in a Float64Array: a limb product is < 2^32 and a
 * column of eight products plus carry stays < 2^36, so every intermediate is an exact double. This keeps
 * the hot step free of BigInt (about 10x faster), which the ≤ 25 ms aggregation budget needs.
 */

const M32 = 0x1_0000_0000;

// SeedSequence constants (numpy/random/bit_generator.pyx).
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

const MAX_U64 = (1n << 64n) - 1n;

/** Little-endian 32-bit words of a non-negative integer; 0 gives `[0]` (numpy `_coerce_to_uint32_array`). */
function entropyWords(seed: bigint): number[] {
  if (seed === 0n) return [0];
  const words: number[] = [];
  for (let v = seed; v > 0n; v >>= 32n) words.push(Number(v & 0xffffffffn));
  return words;
}

/**
 * numpy `SeedSequence(entropy).generate_state(nWords, uint32)` with pool size 4 and no spawn key.
 * Also returns the mixed pool, which the vectors record.
 * @throws RangeError when the seed is negative (numpy rejects it too).
 */
export function seedSequence(seed: bigint, nWords = 8): { pool: number[]; state: number[] } {
  if (seed < 0n) throw new RangeError(`seedSequence: seed must be >= 0, got ${seed}`);
  const entropy = entropyWords(seed);
  let hc = INIT_A;
  const hashmix = (value: number): number => {
    let v = (value ^ hc) >>> 0;
    hc = Math.imul(hc, MULT_A) >>> 0;
    v = Math.imul(v, hc) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool: number[] = [];
  for (let i = 0; i < POOL_SIZE; i++) pool.push(hashmix(i < entropy.length ? entropy[i] : 0));
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
  }
  // Words beyond the pool are folded into every slot (only seeds >= 2^128 have them).
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
  }
  let hc2 = INIT_B;
  const state: number[] = [];
  for (let i = 0; i < nWords; i++) {
    let v = (pool[i % POOL_SIZE] ^ hc2) >>> 0;
    hc2 = Math.imul(hc2, MULT_B) >>> 0;
    v = Math.imul(v, hc2) >>> 0;
    state.push((v ^ (v >>> 16)) >>> 0);
  }
  return { pool, state };
}

function toLimbs(x: bigint): Float64Array {
  const limbs = new Float64Array(8);
  for (let i = 0; i < 8; i++) limbs[i] = Number((x >> BigInt(16 * i)) & 0xffffn);
  return limbs;
}

function fromLimbs(limbs: Float64Array): bigint {
  let x = 0n;
  for (let i = 7; i >= 0; i--) x = (x << 16n) | BigInt(limbs[i]);
  return x;
}

/**
 * numpy `PCG64` (XSL-RR 128/64) plus its `has_uint32`/`uinteger` buffer and the Generator methods the
 * RPL bootstrap uses. One instance is one numpy Generator: the 32-bit buffer persists across calls.
 */
export class Pcg64 {
  private readonly s = new Float64Array(8);
  private readonly inc: Float64Array;
  private hasU32 = false;
  private u32 = 0;

  /** Raw PCG64 from 128-bit `initstate`/`initseq` (numpy `pcg64_set_seed`: state=0, step, += initstate, step). */
  constructor(initstate: bigint, initseq: bigint) {
    const mask = (1n << 128n) - 1n;
    this.inc = toLimbs(((initseq << 1n) | 1n) & mask);
    this.step();
    const add = toLimbs(initstate & mask);
    let carry = 0;
    for (let i = 0; i < 8; i++) {
      const v = this.s[i] + add[i] + carry;
      carry = v >= 0x10000 ? 1 : 0;
      this.s[i] = v - carry * 0x10000;
    }
    this.step();
  }

  /** The 128-bit state, the increment and the 32-bit buffer, as numpy's `bit_generator.state` reports them. */
  get state(): { state: bigint; inc: bigint; has_uint32: 0 | 1; uinteger: number } {
    return { state: fromLimbs(this.s), inc: fromLimbs(this.inc), has_uint32: this.hasU32 ? 1 : 0, uinteger: this.u32 };
  }

  /** state = state * MULT + inc (mod 2^128), schoolbook on 16-bit limbs. */
  private step(): void {
    const s = this.s;
    const inc = this.inc;
    const s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5], s6 = s[6], s7 = s[7];
    // Limbs of the PCG64 multiplier 0x2360ED051FC65DA44385DF649FCCF645, least significant first.
    const m0 = 0xf645, m1 = 0x9fcc, m2 = 0xdf64, m3 = 0x4385, m4 = 0x5da4, m5 = 0x1fc6, m6 = 0xed05, m7 = 0x2360;
    let c = s0 * m0 + inc[0];
    let q = Math.floor(c / 0x10000);
    s[0] = c - q * 0x10000;
    c = s0 * m1 + s1 * m0 + inc[1] + q;
    q = Math.floor(c / 0x10000);
    s[1] = c - q * 0x10000;
    c = s0 * m2 + s1 * m1 + s2 * m0 + inc[2] + q;
    q = Math.floor(c / 0x10000);
    s[2] = c - q * 0x10000;
    c = s0 * m3 + s1 * m2 + s2 * m1 + s3 * m0 + inc[3] + q;
    q = Math.floor(c / 0x10000);
    s[3] = c - q * 0x10000;
    c = s0 * m4 + s1 * m3 + s2 * m2 + s3 * m1 + s4 * m0 + inc[4] + q;
    q = Math.floor(c / 0x10000);
    s[4] = c - q * 0x10000;
    c = s0 * m5 + s1 * m4 + s2 * m3 + s3 * m2 + s4 * m1 + s5 * m0 + inc[5] + q;
    q = Math.floor(c / 0x10000);
    s[5] = c - q * 0x10000;
    c = s0 * m6 + s1 * m5 + s2 * m4 + s3 * m3 + s4 * m2 + s5 * m1 + s6 * m0 + inc[6] + q;
    q = Math.floor(c / 0x10000);
    s[6] = c - q * 0x10000;
    c = s0 * m7 + s1 * m6 + s2 * m5 + s3 * m4 + s4 * m3 + s5 * m2 + s6 * m1 + s7 * m0 + inc[7] + q;
    s[7] = c % 0x10000;
  }

  // Output of the last next64 as two unsigned 32-bit halves (avoids allocating a pair per draw).
  private outLo = 0;
  private outHi = 0;

  /** next64: step, then rotr64(hi ^ lo, hi >> 58) of the new state; result left in outLo/outHi. */
  private next64Halves(): void {
    this.step();
    const s = this.s;
    const xlo = ((s[1] * 0x10000 + s[0]) ^ (s[5] * 0x10000 + s[4])) >>> 0;
    const xhi = ((s[3] * 0x10000 + s[2]) ^ (s[7] * 0x10000 + s[6])) >>> 0;
    const rot = s[7] >>> 10;
    if (rot === 0) {
      this.outLo = xlo;
      this.outHi = xhi;
    } else if (rot < 32) {
      this.outLo = ((xlo >>> rot) | (xhi << (32 - rot))) >>> 0;
      this.outHi = ((xhi >>> rot) | (xlo << (32 - rot))) >>> 0;
    } else if (rot === 32) {
      this.outLo = xhi;
      this.outHi = xlo;
    } else {
      const r = rot - 32;
      this.outLo = ((xhi >>> r) | (xlo << (32 - r))) >>> 0;
      this.outHi = ((xlo >>> r) | (xhi << (32 - r))) >>> 0;
    }
  }

  /** numpy `random_raw()`: one 64-bit output. Does not touch the 32-bit buffer. */
  next64(): bigint {
    this.next64Halves();
    return (BigInt(this.outHi) << 32n) | BigInt(this.outLo);
  }

  /** numpy `pcg64_next32`: return the buffered high half if present, else draw next64, return low, buffer high. */
  next32(): number {
    if (this.hasU32) {
      this.hasU32 = false;
      return this.u32;
    }
    this.next64Halves();
    this.hasU32 = true;
    this.u32 = this.outHi;
    return this.outLo;
  }

  /**
   * One numpy `integers(0, n)` draw (int64 path, 1 <= n <= 2^32): n = 1 draws nothing and returns 0;
   * n = 2^32 returns next32; otherwise Lemire's multiply-shift with rejection below (2^32 − n) mod n.
   * @throws RangeError when n is not an integer in [1, 2^32].
   */
  below(n: number): number {
    if (!(Number.isInteger(n) && n >= 1 && n <= M32)) throw new RangeError(`Pcg64.below: n must be an integer in [1, 2^32], got ${n}`);
    if (n === 1) return 0;
    if (n === M32) return this.next32();
    // 64-bit product x·n split so every partial product is an exact double: n = nh·2^16 + nl.
    const nl = n & 0xffff;
    const nh = (n - nl) / 0x10000;
    let x = this.next32();
    let a = x * nl;
    let b = x * nh;
    let aHi = Math.floor(a / M32);
    let bHi = Math.floor(b / 0x10000);
    let t = a - aHi * M32 + (b - bHi * 0x10000) * 0x10000;
    let left = t % M32;
    if (left < n) {
      const thr = (M32 - n) % n;
      while (left < thr) {
        x = this.next32();
        a = x * nl;
        b = x * nh;
        aHi = Math.floor(a / M32);
        bHi = Math.floor(b / 0x10000);
        t = a - aHi * M32 + (b - bHi * 0x10000) * 0x10000;
        left = t % M32;
      }
    }
    return aHi + bHi + Math.floor(t / M32);
  }

  /** numpy `integers(0, n, size)` (int64); equally the index stream of `choice(population_of_n, size, replace=True)`. */
  integers(n: number, size: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < size; i++) out.push(this.below(n));
    return out;
  }
}

/**
 * numpy `default_rng(seed)`: `PCG64(SeedSequence(seed))`, where the four 64-bit state words s0..s3
 * give initstate = s0·2^64 + s1 and initseq = s2·2^64 + s3.
 * Seeds are exact unsigned integers (bigint, or a safe non-negative integer number, or a decimal string).
 * @throws RangeError when the seed is negative, not an integer, or (as a number) not safe.
 */
export function defaultRng(seed: bigint | number | string): Pcg64 {
  const s = toSeed(seed);
  const w = seedSequence(s, 8).state;
  const u64 = (i: number): bigint => (BigInt(w[2 * i + 1]) << 32n) | BigInt(w[2 * i]);
  return new Pcg64((u64(0) << 64n) | u64(1), (u64(2) << 64n) | u64(3));
}

function toSeed(seed: bigint | number | string): bigint {
  if (typeof seed === "bigint") {
    if (seed < 0n) throw new RangeError(`defaultRng: seed must be >= 0, got ${seed}`);
    return seed;
  }
  if (typeof seed === "number") {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`defaultRng: seed must be a safe non-negative integer (use bigint or a string beyond 2^53), got ${seed}`);
    return BigInt(seed);
  }
  if (!/^\d+$/.test(seed)) throw new RangeError(`defaultRng: seed string must be a non-negative decimal integer, got ${JSON.stringify(seed)}`);
  return BigInt(seed);
}

/** The largest seed the RPL harness produces (64-bit unsigned); exported for range checks. */
export const MAX_SEED_U64 = MAX_U64;
