/**
 * numpy's `default_rng(seed)` reproduced bit for bit (spec rpl.md §9 "numpy Generator / PCG64 stream"):
 * `Generator(PCG64(SeedSequence(seed)))`, the bit generator's one-word 32-bit buffer, and Lemire's
 * bounded integers as numpy draws them for `integers(0, n, dtype=int64)` and `choice(n, replace=True)`.
 *
 * Why bit-exact: the RPL bootstrap CI is reproducible from its seed only if every draw matches numpy,
 * and the golden vectors (`numpy_rng_vectors.json`) pin the stream.
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

const L24 = 0x100_0000;
const MASK128 = (1n << 128n) - 1n;

/** 128-bit value → six limbs of 24 bits (the top limb holds the last 8 bits), least significant first. */
function toLimbs(x: bigint): number[] {
  const limbs: number[] = [];
  for (let i = 0; i < 6; i++) limbs.push(Number((x >> BigInt(24 * i)) & 0xffffffn));
  return limbs;
}

function fromLimbs(l: readonly number[]): bigint {
  let x = 0n;
  for (let i = 5; i >= 0; i--) x = (x << 24n) | BigInt(l[i]);
  return x;
}

// The PCG64 multiplier 0x2360ED051FC65DA44385DF649FCCF645 as 24-bit limbs, least significant first.
const [M0, M1, M2, M3, M4, M5] = toLimbs(0x2360ed051fc65da44385df649fccf645n);

/**
 * numpy `PCG64` (XSL-RR 128/64) plus its `has_uint32`/`uinteger` buffer and the Generator methods the
 * RPL bootstrap uses. One instance is one numpy Generator: the 32-bit buffer persists across calls.
 *
 * The 128-bit state is six 24-bit limbs in plain number fields: a limb product is < 2^48 and a column of
 * at most six products plus carry stays < 2^51, so every intermediate is an exact double and one step
 * is 21 multiplications with no BigInt (BigInt would be ~10x slower on the bootstrap's ~160k steps).
 */
export class Pcg64 {
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  private s4 = 0;
  private s5 = 0;
  private readonly i0: number;
  private readonly i1: number;
  private readonly i2: number;
  private readonly i3: number;
  private readonly i4: number;
  private readonly i5: number;
  private hasU32 = false;
  private u32 = 0;
  // Output of the last next64 as two unsigned 32-bit halves (avoids allocating a pair per draw).
  private outLo = 0;
  private outHi = 0;

  /** Raw PCG64 from 128-bit `initstate`/`initseq` (numpy `pcg64_set_seed`: state=0, step, += initstate, step). */
  constructor(initstate: bigint, initseq: bigint) {
    [this.i0, this.i1, this.i2, this.i3, this.i4, this.i5] = toLimbs(((initseq << 1n) | 1n) & MASK128);
    this.step();
    this.setState((this.getState() + initstate) & MASK128);
    this.step();
  }

  private getState(): bigint {
    return fromLimbs([this.s0, this.s1, this.s2, this.s3, this.s4, this.s5]);
  }

  private setState(x: bigint): void {
    [this.s0, this.s1, this.s2, this.s3, this.s4, this.s5] = toLimbs(x);
  }

  /** The 128-bit state, the increment and the 32-bit buffer, as numpy's `bit_generator.state` reports them. */
  get state(): { state: bigint; inc: bigint; has_uint32: 0 | 1; uinteger: number } {
    return {
      state: this.getState(),
      inc: fromLimbs([this.i0, this.i1, this.i2, this.i3, this.i4, this.i5]),
      has_uint32: this.hasU32 ? 1 : 0,
      uinteger: this.u32,
    };
  }

  /** state = state · MULT + inc (mod 2^128), schoolbook on 24-bit limbs, dropping columns ≥ 2^128. */
  private step(): void {
    const a0 = this.s0,
      a1 = this.s1,
      a2 = this.s2,
      a3 = this.s3,
      a4 = this.s4,
      a5 = this.s5;
    let c = a0 * M0 + this.i0;
    let q = Math.floor(c / L24);
    this.s0 = c - q * L24;
    c = a0 * M1 + a1 * M0 + this.i1 + q;
    q = Math.floor(c / L24);
    this.s1 = c - q * L24;
    c = a0 * M2 + a1 * M1 + a2 * M0 + this.i2 + q;
    q = Math.floor(c / L24);
    this.s2 = c - q * L24;
    c = a0 * M3 + a1 * M2 + a2 * M1 + a3 * M0 + this.i3 + q;
    q = Math.floor(c / L24);
    this.s3 = c - q * L24;
    c = a0 * M4 + a1 * M3 + a2 * M2 + a3 * M1 + a4 * M0 + this.i4 + q;
    q = Math.floor(c / L24);
    this.s4 = c - q * L24;
    // Only the low 8 bits of the sixth limb are inside 2^128.
    c = a0 * M5 + a1 * M4 + a2 * M3 + a3 * M2 + a4 * M1 + a5 * M0 + this.i5 + q;
    this.s5 = c - Math.floor(c / 256) * 256;
  }

  /** next64: step, then rotr64(hi ^ lo, hi >> 58) of the new state; result left in outLo/outHi. */
  private next64Halves(): void {
    this.step();
    const s0 = this.s0,
      s1 = this.s1,
      s2 = this.s2,
      s3 = this.s3,
      s4 = this.s4,
      s5 = this.s5;
    // Bits 0–31, 32–63 (low word) and 64–95, 96–127 (high word) of the state, from the 24-bit limbs.
    const lo0 = s0 | ((s1 & 0xff) << 24);
    const lo1 = (s1 >>> 8) | ((s2 & 0xffff) << 16);
    const hi0 = (s2 >>> 16) | (s3 << 8);
    const hi1 = s4 | (s5 << 24);
    const xlo = (lo0 ^ hi0) >>> 0;
    const xhi = (lo1 ^ hi1) >>> 0;
    const rot = s5 >>> 2;
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
    if (!(n >= 1 && n <= M32 && Math.floor(n) === n))
      throw new RangeError(`Pcg64.below: n must be an integer in [1, 2^32], got ${n}`);
    if (n === 1) return 0;
    if (n === M32) return this.next32();
    if (n <= 0x20_0000) {
      // x·n < 2^53: the 64-bit product is an exact double.
      let m = this.next32() * n;
      let hi = Math.floor(m / M32);
      let left = m - hi * M32;
      if (left < n) {
        const thr = (M32 - n) % n;
        while (left < thr) {
          m = this.next32() * n;
          hi = Math.floor(m / M32);
          left = m - hi * M32;
        }
      }
      return hi;
    }
    // Larger n: split n = nh·2^16 + nl so each partial product x·nl, x·nh is an exact double.
    const nl = n % 0x10000;
    const nh = (n - nl) / 0x10000;
    for (let first = true; ; first = false) {
      const x = this.next32();
      const a = x * nl;
      const b = x * nh;
      const aHi = Math.floor(a / M32);
      const bHi = Math.floor(b / 0x10000);
      const t = a - aHi * M32 + (b - bHi * 0x10000) * 0x10000;
      const left = t % M32;
      if (first && left >= n) return aHi + bHi + Math.floor(t / M32);
      if (left >= (M32 - n) % n) return aHi + bHi + Math.floor(t / M32);
    }
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
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new RangeError(
        `defaultRng: seed must be a safe non-negative integer (use bigint or a string beyond 2^53), got ${seed}`,
      );
    return BigInt(seed);
  }
  if (!/^\d+$/.test(seed))
    throw new RangeError(`defaultRng: seed string must be a non-negative decimal integer, got ${JSON.stringify(seed)}`);
  return BigInt(seed);
}
