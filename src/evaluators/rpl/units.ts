// rpl's units: one sample each, from the tenant's sample cache or one call of the run's model.
import { logit, parseAnswer, sampleCacheKey, type InvalidReason } from "../../engines/rpl/index.ts";
import { ProviderError, type ChatResponse } from "../../providers/index.ts";
import { callCost, type StepCost } from "../../platform/invocation-budget.ts";
import { unitModel } from "../../runs/plugin/model-client.ts";
import type { StoredSample, UnitContext, UnitOutcome } from "../../runs/plugin/types.ts";
import { composeFor, providerModeOf, type RplRunConfig, type RplPlanSlot } from "./plan.ts";
import type { RplOutput } from "./schemas.ts";

/** Why a sample is invalid: the engine's compliance reasons, a failed model call, or a unit that gave up. */
export type RplInvalidReason = InvalidReason | "provider_error" | "unit_failed";

const RESPONSE_TEXT_MAX = 2000;

export const rplUnitId = (slot: number, r: number) => `s${slot}.r${r}`;

function parseUnit(id: string): { slot: number; r: number } {
  const m = /^s(\d+)\.r(\d+)$/.exec(id);
  if (!m) throw new Error(`rpl: bad unit id '${id}'`);
  return { slot: Number(m[1]), r: Number(m[2]) };
}

function slotOf(config: RplRunConfig, id: string): { slot: number; r: number; plan: RplPlanSlot } {
  const { slot, r } = parseUnit(id);
  const plan = config.plan.slots[slot];
  if (!plan || r >= plan.replicate_idx.length) throw new Error(`rpl: unit '${id}' is not in the run's plan`);
  return { slot, r, plan };
}

export function isSampleRow(v: unknown): v is RplOutput {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.prompt_sha256 === "string" && typeof o.json_valid === "boolean" && typeof o.replicate_idx === "number"
  );
}

function outcomeOf(row: RplOutput): UnitOutcome {
  if (row.json_valid) return { status: "succeeded", output: row };
  return { status: "failed", output: row, error: row.error ?? `invalid answer: ${row.invalid_reason ?? "unknown"}` };
}

export function invalidRow(
  config: RplRunConfig,
  id: string,
  reason: RplInvalidReason,
  error: string,
  cacheKey: string | null,
): RplOutput {
  const { slot, r, plan } = slotOf(config, id);
  return {
    slot,
    r,
    cache_key: cacheKey,
    prompt_sha256: plan.prompt_sha256,
    paraphrase_idx: plan.template_index,
    replicate_idx: plan.replicate_idx[r],
    prob_true: null,
    logit: null,
    json_valid: false,
    invalid_reason: reason,
    error,
    raw: null,
    provider_model_id: null,
    response_id: null,
    tokens_out: null,
    latency_ms: null,
    cache_hit: false,
  };
}

/** The ids of the plan stored in the config: `s{slot}.r{r}`, slot-major as the original's loop. */
export function plan(config: RplRunConfig): string[] {
  const ids: string[] = [];
  config.plan.slots.forEach((s, slot) => s.replicate_idx.forEach((_, r) => ids.push(rplUnitId(slot, r))));
  return ids;
}

/** The most a sample may need: its one call with its retries, and the sample cache's read and write (two D1 queries). */
export function unitCost(config: Pick<RplRunConfig, "timeout_s">): StepCost {
  const call = callCost(config.timeout_s);
  return { ms: call.ms, subrequests: call.subrequests + 2 };
}

/**
 * One sample: the composed prompt of its slot, answered from the tenant's sample cache when it holds the
 * original's cache key (and the run allows it), else by one call of the run's model.
 */
export async function execute(id: string, ctx: UnitContext<RplRunConfig>, signal: AbortSignal): Promise<UnitOutcome> {
  const config = ctx.config;
  const { slot, r, plan } = slotOf(config, id);
  const prompt = await composeFor(config, plan.template_index);
  if (prompt.prompt_sha256 !== plan.prompt_sha256)
    throw new Error(`rpl: unit '${id}': the prompt does not match the run's plan`);
  const replicate_idx = plan.replicate_idx[r];
  const cache_key = await sampleCacheKey({
    claim: config.claim,
    model: config.model,
    promptVersionFull: config.prompt.version,
    promptSha256: plan.prompt_sha256,
    replicateIdx: replicate_idx,
    maxOutputTokens: config.max_output_tokens,
    providerMode: providerModeOf(config.model),
  });

  if (!config.no_cache) {
    const hit = await ctx.cache.get(cache_key);
    if (isSampleRow(hit)) return outcomeOf({ ...hit, slot, r, cache_hit: true });
  }

  const started = Date.now();
  let res: ChatResponse;
  try {
    res = await unitModel(ctx, { kind: "run", salt: replicate_idx }).chat(
      {
        model: config.model,
        messages: [
          { role: "system", content: prompt.instructions },
          { role: "user", content: prompt.user_text },
        ],
        max_tokens: config.max_output_tokens,
      },
      { signal },
    );
  } catch (err) {
    // A canceled run's unit is discarded by the runner anyway; anything that is not a model-call
    // failure is a bug or an infrastructure fault: throw, so the platform retries the unit.
    if (signal.aborted || !(err instanceof ProviderError)) throw err;
    return outcomeOf(invalidRow(config, id, "provider_error", `${err.name}: ${err.message}`, cache_key));
  }
  const latency_ms = Date.now() - started;
  const text = res.choices?.[0]?.message?.content ?? "";
  const answer = parseAnswer(text);
  const row: RplOutput = {
    slot,
    r,
    cache_key,
    prompt_sha256: plan.prompt_sha256,
    paraphrase_idx: plan.template_index,
    replicate_idx,
    prob_true: answer.prob,
    logit: answer.prob === null ? null : logit(answer.prob),
    json_valid: answer.valid,
    invalid_reason: answer.reason,
    error: null,
    raw: answer.raw,
    ...(answer.reason === "unparsable" ? { response_text: text.slice(0, RESPONSE_TEXT_MAX) } : {}),
    provider_model_id: res.model ?? null,
    response_id: res.id ?? null,
    tokens_out: res.usage?.completion_tokens ?? null,
    latency_ms,
    cache_hit: false,
  };
  if (!config.no_cache) await ctx.cache.put(cache_key, row);
  return outcomeOf(row);
}

/** A stored sample's row; a sample without output (should not happen) counts as a failed unit. */
export function rowOf(config: RplRunConfig, s: StoredSample): RplOutput {
  return isSampleRow(s.output) ? s.output : invalidRow(config, s.unitId, "unit_failed", s.error ?? "no output", null);
}
