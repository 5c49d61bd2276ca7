/**
 * Python's `round(x, n)` for floats (spec §1.5: raw metrics are rounded to 4 decimals before aggregation).
 * CPython rounds the EXACT binary value of x correctly to n decimals, ties (which can only happen when the
 * binary value sits exactly halfway) to even, and reads the decimal result back as the nearest double.
 * `Math.round(x * 1e4) / 1e4` is not equivalent: x * 1e4 is itself rounded, and Math.round breaks ties up
 * (0.03125 → 0.0313 instead of 0.0312).
 */

const view = new DataView(new ArrayBuffer(8));

/** |x| as mantissa · 2^exponent with an integer mantissa (exact; x finite, non-zero). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const fraction = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return biased === 0
    ? { mantissa: fraction, exponent: -1074 }
    : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

const TWO_52 = 2 ** 52;

/**
 * `round(x, ndigits)` for 0 ≤ ndigits ≤ 4. Signs, ±0, ±inf and NaN behave as in Python (round(-1e-5, 4) is
 * -0.0). Exactness: x · 10^n is computed as a BigInt fraction and rounded half-to-even to an integer q; for
 * |x| < 2^52, q has at most 20 significant digits, and ECMAScript guarantees that `Number("<q>e-<n>")` is then
 * the correctly rounded double. Doubles with |x| ≥ 2^52 are integers, so they round to themselves.
 */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isInteger(ndigits) || ndigits < 0 || ndigits > 4)
    throw new RangeError(`pyRound supports 0..4 digits, got ${ndigits}`);
  if (!Number.isFinite(x) || x === 0 || Math.abs(x) >= TWO_52) return x;
  const { mantissa, exponent } = decompose(x);
  let num = mantissa * 10n ** BigInt(ndigits);
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  let q = num / den;
  const twiceRest = (num - q * den) * 2n;
  if (twiceRest > den || (twiceRest === den && (q & 1n) === 1n)) q += 1n;
  const magnitude = Number(`${q}e-${ndigits}`);
  return x < 0 ? -magnitude : magnitude;
}

/** `round(x, 4)`, the evaluator's rounding of raw metrics. */
export function round4(x: number): number {
  return pyRound(x, 4);
}
