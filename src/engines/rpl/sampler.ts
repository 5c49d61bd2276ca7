/**
 * The deterministic sampling plan (spec rpl.md §3): rotation offset, template selection, the balanced
 * slot sequence and its planned counts / imbalance. Everything here is a pure function of the inputs, so
 * a plan can be recomputed and compared with a stored run.
 */
import { sha256Hex } from "./hash.ts";

/**
 * Rotation offset (§3.2): the first 8 hex chars of SHA-256(`claim|model|promptVersionFull`) as an unsigned
 * int, mod `tBank`; 0 when `tBank <= 0`. Pipes in the claim are not escaped (the original does not either).
 * Also returns the 8-char prefix for describe/dry-run output.
 */
export async function rotationOffset(
  claim: string,
  model: string,
  promptVersionFull: string,
  tBank: number,
): Promise<{ prefix8: string; offset: number }> {
  const prefix8 = (await sha256Hex(`${claim}|${model}|${promptVersionFull}`)).slice(0, 8);
  return { prefix8, offset: tBank <= 0 ? 0 : parseInt(prefix8, 16) % tBank };
}

/** `T_stage = max(1, min(T, T_bank))`, with `T = null` meaning the whole bank (§1; so T = 0 becomes 1). */
export function stageTemplateCount(T: number | null | undefined, tBank: number): number {
  return T == null ? tBank : Math.max(1, Math.min(T, tBank));
}

/**
 * Template selection (§3.3): `order[i] = (i + offset) % tBank`, then the first `tStage` entries.
 * Returns bank indices. An empty bank gives [].
 */
export function selectTemplates(tBank: number, tStage: number, offset: number): number[] {
  if (tBank <= 0) return [];
  const out: number[] = [];
  for (let i = 0; i < Math.min(tStage, tBank); i++) out.push((i + (offset % tBank)) % tBank);
  return out;
}

/**
 * `balanced_indices_with_rotation(T, K, offset)` (§3.4): rotate [0..T−1] left by `offset % T`, then the i-th
 * entry of that order appears `floor(K/T) + (i < K mod T ? 1 : 0)` times **consecutively**.
 * Decision: the block layout of the code, not the interleaved layout of the original docstring (§18.1).
 * Edge cases: T <= 0 or K <= 0 gives [].
 */
export function balancedIndices(T: number, K: number, offset = 0): number[] {
  if (T <= 0 || K <= 0) return [];
  const order: number[] = [];
  const rot = T > 1 ? ((offset % T) + T) % T : 0;
  for (let i = 0; i < T; i++) order.push((i + rot) % T);
  const per = Math.floor(K / T);
  const rem = K % T;
  const seq: number[] = [];
  order.forEach((idx, i) => {
    const times = per + (i < rem ? 1 : 0);
    for (let j = 0; j < times; j++) seq.push(idx);
  });
  return seq;
}

/** Planned counts per local index 0..T−1 (§3.5); indices outside the range are ignored. */
export function plannedCounts(seq: readonly number[], T: number): number[] {
  const counts = new Array<number>(Math.max(0, T)).fill(0);
  for (const i of seq) if (i >= 0 && i < T) counts[i]++;
  return counts;
}

/** max/min over the **nonzero** counts (§3.5); 1.0 when every count is zero, so K < T still reports 1.0. */
export function imbalanceRatio(counts: readonly number[]): number {
  const nz = counts.filter((c) => c > 0);
  if (nz.length === 0) return 1.0;
  return Math.max(...nz) / Math.min(...nz);
}

export type SamplingPlan = {
  T_bank: number;
  rotation_offset: number;
  sha256_hex_prefix8: string;
  T_stage: number;
  /** Bank indices of the selected templates, after rotation. */
  tpl_indices: number[];
  /** Local indices (0..T_stage−1), one per slot. */
  seq: number[];
  /** `tpl_indices[seq[j]]`: the bank template of slot j. */
  seq_bank: number[];
  planned_counts: number[];
  planned_imbalance_ratio: number;
};

/**
 * The whole plan of §3 for one run. The balanced sequence is built with offset 0 because the rotation was
 * already applied to `tpl_indices` (as the harness does).
 */
export async function planSampling(input: {
  claim: string;
  model: string;
  promptVersionFull: string;
  tBank: number;
  T?: number | null;
  K: number;
}): Promise<SamplingPlan> {
  const { claim, model, promptVersionFull, tBank, K } = input;
  const { prefix8, offset } = await rotationOffset(claim, model, promptVersionFull, tBank);
  const tStage = stageTemplateCount(input.T, tBank);
  const tpl = selectTemplates(tBank, tStage, offset);
  const seq = balancedIndices(tStage, K, 0);
  const counts = plannedCounts(seq, tStage);
  return {
    T_bank: tBank,
    rotation_offset: offset,
    sha256_hex_prefix8: prefix8,
    T_stage: tStage,
    tpl_indices: tpl,
    seq,
    seq_bank: seq.map((j) => tpl[j]),
    planned_counts: counts,
    planned_imbalance_ratio: imbalanceRatio(counts),
  };
}

/**
 * Replicate numbering (§5): for each slot in order, `occ` = how many earlier slots used the same template
 * key; replicate r of that slot gets `occ·R + r`. A template's replicates are 0..count·R−1 without gaps.
 * Returns one entry per (slot, r) in execution order.
 */
export function replicateIndices(
  slotKeys: readonly string[],
  R: number,
): { slot: number; r: number; replicate_idx: number }[] {
  const seen = new Map<string, number>();
  const out: { slot: number; r: number; replicate_idx: number }[] = [];
  slotKeys.forEach((key, slot) => {
    const occ = seen.get(key) ?? 0;
    seen.set(key, occ + 1);
    for (let r = 0; r < R; r++) out.push({ slot, r, replicate_idx: occ * R + r });
  });
  return out;
}
