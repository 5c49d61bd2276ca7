/**
 * CPython's `random.Random` (3.11), reproduced bit for bit: MT19937 seeded through `init_by_array`, and the
 * methods the reasoning-quality datasets need (spec reasoning-quality.md §9.4 [D], also used by the §9.1/§9.2
 * loaders' `random.Random(seed).shuffle`). Pure integer arithmetic on 32-bit words, so it runs unchanged in
 * Node and in workerd.
 */

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const TWO_32 = 4294967296;

/** What `getstate()` exposes; mirrors Python's `(version, (*mt, index), gauss_next)` without the gauss slot. */
export type PyRandomState = { version: 3; key: number[]; index: number };

/**
 * Python folds the seed to `abs(seed)` and feeds its 32-bit words, least significant first, to `init_by_array`.
 * Zero still contributes one word, so seed 0 is the key `[0]`, not the empty key.
 */
export function seedKey(seed: bigint | number): number[] {
  let s: bigint;
  if (typeof seed === "bigint") s = seed;
  else {
    // Python's float seeds go through hash(); only integers are meaningful for our datasets.
    if (!Number.isInteger(seed)) throw new RangeError(`PyRandom: seed must be an integer, got ${seed}`);
    s = BigInt(seed);
  }
  if (s < 0n) s = -s;
  const key: number[] = [];
  do {
    key.push(Number(s & 0xffffffffn));
    s >>= 32n;
  } while (s > 0n);
  return key;
}

/** Python `int.bit_length()` for a non-negative safe integer. */
function bitLength(n: number): number {
  return n === 0 ? 0 : n < TWO_32 ? 32 - Math.clz32(n) : 32 + bitLength(Math.floor(n / TWO_32));
}

function requireInt(name: string, v: number): void {
  if (!Number.isSafeInteger(v)) throw new TypeError(`PyRandom.${name}: expected a safe integer, got ${v}`);
}

/** A `random.Random(seed)` whose every draw equals CPython's for the same seed and call sequence. */
export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: bigint | number) {
    this.initByArray(seedKey(seed));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    // MSB set so that the state is never all zero (the reference's state[0] is 2147483648).
    mt[0] = 0x80000000;
  }

  /** One tempered 32-bit output (`genrand_uint32`). */
  private next32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: a double in [0, 1) built from 27 + 26 bits of two outputs, as CPython's `genrand_res53`. */
  random(): number {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /**
   * `getrandbits(k)` for 0 ≤ k ≤ 53, so the result stays an exact JS number. Words are consumed least
   * significant first and the last word keeps its top bits, as CPython does.
   * @throws RangeError outside 0..53 (use {@link getrandbitsBigInt} for wider values).
   */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 0 || k > 53)
      throw new RangeError(`PyRandom.getrandbits: k must be an integer in 0..53, got ${k}`);
    if (k === 0) return 0;
    if (k <= 32) return this.next32() >>> (32 - k);
    const low = this.next32();
    const high = this.next32() >>> (64 - k);
    return high * TWO_32 + low;
  }

  /** `getrandbits(k)` for any k ≥ 0, as a bigint. */
  getrandbitsBigInt(k: number): bigint {
    if (!Number.isInteger(k) || k < 0)
      throw new RangeError(`PyRandom.getrandbitsBigInt: k must be a non-negative integer, got ${k}`);
    let r = 0n;
    for (let shift = 0n, left = k; left > 0; left -= 32, shift += 32n) {
      let w = this.next32();
      if (left < 32) w >>>= 32 - left;
      r |= BigInt(w) << shift;
    }
    return r;
  }

  /**
   * `_randbelow(n)` (the getrandbits variant): draw `n.bit_length()` bits and retry until below n. Using
   * bit_length of n, not n − 1, is CPython's choice and decides how many draws are consumed.
   */
  randbelow(n: number): number {
    requireInt("randbelow", n);
    if (n <= 0) throw new RangeError(`PyRandom.randbelow: n must be positive, got ${n}`);
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `randrange(stop)` or `randrange(start, stop[, step])`, with CPython's rounding of the step count. */
  randrange(start: number, stop?: number, step = 1): number {
    requireInt("randrange", start);
    if (stop === undefined) {
      if (step !== 1) throw new TypeError("PyRandom.randrange: missing a non-None stop argument");
      if (start > 0) return this.randbelow(start);
      throw new RangeError("PyRandom.randrange: empty range");
    }
    requireInt("randrange", stop);
    requireInt("randrange", step);
    const width = stop - start;
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new RangeError(`PyRandom.randrange: empty range (${start}, ${stop}, ${width})`);
    }
    let n: number;
    if (step > 0) n = Math.floor((width + step - 1) / step);
    else if (step < 0) n = Math.floor((width + step + 1) / step);
    else throw new RangeError("PyRandom.randrange: zero step");
    if (n <= 0) throw new RangeError("PyRandom.randrange: empty range");
    return start + step * this.randbelow(n);
  }

  /** `randint(a, b)`: inclusive on both ends, i.e. `randrange(a, b + 1)`. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** `shuffle(x)` in place (CPython 3.11: for i from len−1 down to 1, swap x[i] with x[_randbelow(i + 1)]). */
  shuffle<T>(x: T[]): T[] {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    return x;
  }

  /** The raw MT state, shaped like Python's `getstate()` (624 words plus the position), for debugging seeding. */
  getstate(): PyRandomState {
    return { version: 3, key: Array.from(this.mt), index: this.index };
  }
}
