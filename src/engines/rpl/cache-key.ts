/**
 * Identifiers derived by hashing (spec rpl.md §5 and §12). Fields are joined with literal pipes and no
 * escaping, exactly as the original, so a claim containing `|` can in principle collide; we keep that for
 * parity with stored Heretix keys.
 */
import { sha256Hex } from "./hash.ts";

export type ProviderMode = "LIVE" | "MOCK";

export type SampleKeyInput = {
  claim: string;
  model: string;
  promptVersionFull: string;
  promptSha256: string;
  replicateIdx: number;
  maxOutputTokens: number;
};

/**
 * Sample cache key from 2025-09-01 on (§5): SHA-256 hex of
 * `claim|model|prompt_version_full|prompt_sha256|replicate_idx|max_output_tokens|provider_mode`, integers in decimal.
 * This is the form the port uses.
 */
export async function sampleCacheKey(input: SampleKeyInput & { providerMode: ProviderMode }): Promise<string> {
  return sha256Hex(`${sixFields(input)}|${input.providerMode}`);
}

/** The design-doc (a324f71) 6-field key without `provider_mode`; kept to read caches written before 2025-09-01. */
export async function sampleCacheKeyV1(input: SampleKeyInput): Promise<string> {
  return sha256Hex(sixFields(input));
}

function sixFields(i: SampleKeyInput): string {
  for (const [name, v] of [
    ["replicateIdx", i.replicateIdx],
    ["maxOutputTokens", i.maxOutputTokens],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0)
      throw new RangeError(`sampleCacheKey: ${name} must be a non-negative integer, got ${v}`);
  }
  return `${i.claim}|${i.model}|${i.promptVersionFull}|${i.promptSha256}|${i.replicateIdx}|${i.maxOutputTokens}`;
}

/**
 * `run_id = "heretix-rpl-" + sha256_hex("claim|model|prompt_version_full|K=<K>|R=<R>")[0:12]` (§12).
 * T, B and the seed are deliberately not part of it (§18.7): a rerun overwrites the run row.
 */
export async function runId(input: {
  claim: string;
  model: string;
  promptVersionFull: string;
  K: number;
  R: number;
}): Promise<string> {
  const { claim, model, promptVersionFull, K, R } = input;
  return "heretix-rpl-" + (await sha256Hex(`${claim}|${model}|${promptVersionFull}|K=${K}|R=${R}`)).slice(0, 12);
}
