/**
 * rpl's sampling plan (spec rpl.md §3–§5), computed once when a run is created: the hashing it needs is
 * async, so `plan(config)` (synchronous) only lists the ids of the plan stored in the config.
 */
import { composePrompt, planSampling, replicateIndices, type ProviderMode } from "../../engines/rpl/index.ts";
import { isSimModel, type ModelSettings } from "../../providers/index.ts";
import type { RplPromptBank } from "./prompts.ts";

/** One slot of the plan: its bank template, that template's prompt hash and the replicate index of each r. */
export type RplPlanSlot = { template_index: number; prompt_sha256: string; replicate_idx: number[] };

/** The precomputed sampling plan (§3–§5), as `describe` reports it plus the per-slot data units need. */
export type RplPlan = {
  T_bank: number;
  rotation_offset: number;
  T_stage: number;
  /** Bank indices of the selected templates, after rotation. */
  tpl_indices: number[];
  /** Local template index per slot. */
  seq: number[];
  planned_counts: number[];
  planned_imbalance_ratio: number;
  /** Longest composed prompt in code points (for the route's max_prompt_chars cap). */
  prompt_char_len_max: number;
  slots: RplPlanSlot[];
};

/**
 * What the run's coordinator and units work from (the prompt bank): kept by the platform, never shown.
 * `Run.config` shows `RplPublicConfig` (schemas.ts).
 */
export type RplRunConfig = ModelSettings & {
  claim: string;
  /** Short bank name (the API's prompt_version), e.g. "rpl-assay-v1". */
  prompt_version: string;
  /** Snapshot of the bank; `prompt.version` (the full version string) is what hashes use. */
  prompt: RplPromptBank;
  K: number;
  R: number;
  T: number | null;
  B: number;
  /** Explicit bootstrap seed, unsigned 64-bit as a decimal string; null = derived. */
  bootstrap_seed: string | null;
  max_output_tokens: number;
  no_cache: boolean;
  plan: RplPlan;
};

export function composeFor(config: Pick<RplRunConfig, "claim" | "prompt">, templateIndex: number) {
  return composePrompt({
    system: config.prompt.system,
    userTemplate: config.prompt.user_template,
    paraphrase: config.prompt.paraphrases[templateIndex],
    claim: config.claim,
    schema: config.prompt.schema,
  });
}

function checkCount(name: string, v: number | null | undefined, min: number) {
  if (v == null) return;
  if (!Number.isSafeInteger(v) || v < min)
    throw new RangeError(`planRpl: ${name} must be an integer ≥ ${min}, got ${v}`);
}

/**
 * The run's sampling plan (§3–§5), computed once at creation: rotation offset from
 * sha256(claim|model|version), the T_stage selected templates, the balanced slot sequence, each slot's
 * prompt_sha256 and the replicate index of each of its R replicates (`occ·R + r`, occ counted per
 * prompt_sha256 as the original does).
 * @throws RangeError for K < 1, R < 1 or a negative / non-integer T.
 */
export async function planRpl(input: {
  claim: string;
  model: string;
  promptBank: RplPromptBank;
  K: number;
  R: number;
  T: number | null;
}): Promise<RplPlan> {
  const { claim, model, promptBank, K, R, T } = input;
  checkCount("K", K, 1);
  checkCount("R", R, 1);
  checkCount("T", T, 0);
  const sampling = await planSampling({
    claim,
    model,
    promptVersionFull: promptBank.version,
    tBank: promptBank.paraphrases.length,
    T,
    K,
  });
  const composed = new Map<number, Awaited<ReturnType<typeof composeFor>>>();
  for (const t of sampling.tpl_indices) composed.set(t, await composeFor({ claim, prompt: promptBank }, t));
  const keys = sampling.seq_bank.map((t) => composed.get(t)!.prompt_sha256);
  const slots: RplPlanSlot[] = sampling.seq_bank.map((t, slot) => ({
    template_index: t,
    prompt_sha256: keys[slot],
    replicate_idx: [],
  }));
  for (const u of replicateIndices(keys, R)) slots[u.slot].replicate_idx.push(u.replicate_idx);
  return {
    T_bank: sampling.T_bank,
    rotation_offset: sampling.rotation_offset,
    T_stage: sampling.T_stage,
    tpl_indices: sampling.tpl_indices,
    seq: sampling.seq,
    planned_counts: sampling.planned_counts,
    planned_imbalance_ratio: sampling.planned_imbalance_ratio,
    prompt_char_len_max: Math.max(0, ...[...composed.values()].map((c) => c.prompt_char_len)),
    slots,
  };
}

/** "MOCK" for the simulator, "LIVE" for endpoints (the cache key's provider_mode). */
export function providerModeOf(model: string): ProviderMode {
  return isSimModel(model.split("?", 1)[0]) ? "MOCK" : "LIVE";
}
