/**
 * Bootstrap seed derivation (spec rpl.md §8), `make_bootstrap_seed` of the original. Seeds are unsigned
 * 64-bit: carried as bigint here and as decimal strings in any JSON (a JSON number would lose precision).
 */
import { sha256Hex } from "./hash.ts";

export type SeedInput = {
  claim: string;
  model: string;
  promptVersionFull: string;
  K: number;
  R: number;
  /** prompt_sha256 of the valid rows; order and duplicates do not matter (unique + sorted here). */
  templateHashes: readonly string[];
  center?: "trimmed" | "mean";
  trim?: number;
  B?: number;
};

/** Python `str(float)` for the trim values the harness uses: JS `String` except that integers get `.0`. */
function pyFloatStr(x: number): string {
  return Number.isInteger(x) ? `${x}.0` : String(x);
}

/**
 * The canonical string that is hashed: `RPL-G5|model=..|prompt=..|claim=..|K=..|R=..|center=..|trim=..|B=..|templates=h1,h2,..`
 * with unique template hashes sorted by code unit (they are lowercase hex, so this equals Python's sort).
 */
export function bootstrapSeedCanonical(input: SeedInput): string {
  const { claim, model, promptVersionFull, K, R, center = "trimmed", trim = 0.2, B = 5000 } = input;
  const templates = [...new Set(input.templateHashes)].sort().join(",");
  return [
    "RPL-G5",
    `model=${model}`,
    `prompt=${promptVersionFull}`,
    `claim=${claim}`,
    `K=${K}`,
    `R=${R}`,
    `center=${center}`,
    `trim=${pyFloatStr(trim)}`,
    `B=${B}`,
    `templates=${templates}`,
  ].join("|");
}

/** Derived seed: the first 8 bytes of SHA-256(canonical) as a big-endian unsigned 64-bit integer. */
export async function makeBootstrapSeed(input: SeedInput): Promise<bigint> {
  return BigInt("0x" + (await sha256Hex(bootstrapSeedCanonical(input))).slice(0, 16));
}

/**
 * Seed precedence (§8): explicit config seed, then the environment seed (HERETIX_RPL_SEED in the original;
 * the caller passes it in, engines never read env), then the derived seed.
 * @throws RangeError when an explicit seed is not a non-negative integer below 2^64.
 */
export function parseSeed(value: bigint | number | string): bigint {
  let s: bigint;
  if (typeof value === "bigint") s = value;
  else if (typeof value === "number") {
    if (!Number.isSafeInteger(value))
      throw new RangeError(`parseSeed: a number seed must be a safe integer (pass a decimal string), got ${value}`);
    s = BigInt(value);
  } else {
    if (!/^\s*\d+\s*$/.test(value))
      throw new RangeError(`parseSeed: seed must be a non-negative decimal integer, got ${JSON.stringify(value)}`);
    s = BigInt(value.trim());
  }
  if (s < 0n || s >= 1n << 64n) throw new RangeError(`parseSeed: seed must be in [0, 2^64), got ${s}`);
  return s;
}
