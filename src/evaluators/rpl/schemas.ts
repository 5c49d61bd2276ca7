import { z } from "@hono/zod-openapi";
import { COMPARABLE } from "../../engines/rpl/index.ts";
import { ModelSettingsSchema } from "../../runs/plugin/run-fields.ts";

/** The plug-in's name: its `POST /v1/rpl/runs` and the `evaluator` of its runs (index.ts and its routes read it here). */
export const NAME = "rpl" as const;

const Interval = z.tuple([z.number(), z.number()]);
const Stage = z.object({ T: z.number().int(), K: z.number().int(), R: z.number().int() });

/** What `Run.config` shows of a run (no secret, no bulky snapshot); the units work from `RplRunConfig`. */
export const RplPublicConfig = z
  .object({
    ...ModelSettingsSchema,
    claim: z.string(),
    prompt_version: z.string().openapi({
      description: "The bank as the request named it: our bank's short name, or one of your prompts as name@version",
    }),
    prompt_version_full: z.string().optional().openapi({
      description: "The bank's full version string, which every hash uses (the version of one of your prompts)",
    }),
    prompt_sha256: z.string().optional().openapi({
      description:
        "SHA-256 of the bank the run used: of the JSON of [version, system, user_template, schema, paraphrases] (the `sha256` of a prompt pushed to /v1/prompts)",
    }),
    K: z.number().int(),
    R: z.number().int(),
    T: z.number().int().nullable(),
    B: z.number().int(),
    bootstrap_seed: z.string().nullable(),
    max_output_tokens: z.number().int(),
    no_cache: z.boolean(),
    concurrency: z.number().int().optional(),
    preset: z.literal("auto").optional(),
    stage: z.number().int().optional().openapi({ description: "`preset: auto` only: the stage this run is, from 1" }),
    group_id: z
      .string()
      .optional()
      .openapi({ description: "The A/B request's group, when this run is one of several prompt versions" }),
  })
  .openapi("RplConfig");

export type RplPublicConfig = z.infer<typeof RplPublicConfig>;

const StageRecord = z.object({
  stage_id: z.string(),
  T: z.number().int(),
  K: z.number().int(),
  R: z.number().int(),
  prob_true_rpl: z.number(),
  ci95: Interval,
  ci_width: z.number(),
  stability_score: z.number(),
  imbalance_ratio: z.number(),
  cache_hit_rate: z.number(),
  decision: z.string(),
  reason: z.string(),
  warnings: z.array(z.string()),
});

const Auto = z
  .object({
    controller: z.object({
      policy: z.string(),
      start: Stage,
      ceilings: Stage,
      gates: z.object({ ci_width_max: z.number(), stability_min: z.number(), imbalance_max: z.number() }),
    }),
    final: StageRecord.optional().openapi({ description: "The last stage's figures, once the controller stopped" }),
    stages: z.array(StageRecord),
    decision_log: z.array(z.object({ stage_id: z.string(), decision: z.string(), reason: z.string() })),
  })
  .openapi("RplAuto", { description: "`preset: auto` only: the controller, every stage so far and its decisions" });

export const RplResult = z
  .object({
    run_id: z.string().openapi({ description: "The original's run id (a hash of the claim, model, version, K and R)" }),
    claim: z.string(),
    model: z.string(),
    prompt_version: z.string(),
    prompt_version_name: z.string(),
    sampling: z.object({ K: z.number().int(), R: z.number().int(), T: z.number().int().nullable() }),
    aggregation: z.object({
      method: z.enum(["equal_by_template_cluster_bootstrap_trimmed", "equal_by_template_cluster_bootstrap"]),
      B: z.number().int(),
      center: z.enum(["trimmed", "mean"]),
      trim: z.number(),
      bootstrap_seed: z
        .string()
        .openapi({ description: "Decimal string: a 64-bit seed does not survive a JSON number" }),
      n_templates: z.number().int(),
      counts_by_template: z.record(z.string(), z.number().int()),
      imbalance_ratio: z.number(),
      template_iqr_logit: z.number(),
      prompt_char_len_max: z.number().int(),
    }),
    aggregates: z.object({
      prob_true_rpl: z.number(),
      ci95: Interval,
      ci_width: z.number(),
      stability_score: z.number(),
      stability_band: z.enum(["high", "medium", "low"]),
      is_stable: z.boolean(),
      rpl_compliance_rate: z.number(),
      cache_hit_rate: z.number(),
    }),
    diagnostics: z.object({
      ell_hat: z.number(),
      ci_logit: Interval,
      ci_logit_raw: Interval,
      template_means: z.array(z.number()),
      stability_iqr_logit: z.number(),
      planned_units: z.number().int(),
      attempted: z.number().int(),
      valid_count: z.number().int(),
      cache_hits: z.number().int(),
      invalid_reasons: z.record(z.string(), z.number().int()),
    }),
    quality: z.object({
      pqs: z.number().int(),
      pqs_version: z.literal("v1"),
      gate_compliance_ok: z.union([z.literal(0), z.literal(1)]),
      gate_stability_ok: z.union([z.literal(0), z.literal(1)]),
      gate_precision_ok: z.union([z.literal(0), z.literal(1)]),
    }),
    plan: z.object({
      T_bank: z.number().int(),
      rotation_offset: z.number().int(),
      T_stage: z.number().int(),
      tpl_indices: z.array(z.number().int()),
      seq: z.array(z.number().int()),
      planned_counts: z.array(z.number().int()),
      planned_imbalance_ratio: z.number(),
    }),
    auto: Auto.optional(),
    next_run_id: z
      .string()
      .optional()
      .openapi({ description: "`preset: auto`: the next stage's run, when this stage escalated" }),
  })
  .openapi("RplResult");

export type RplResult = z.infer<typeof RplResult>;
export type RplAuto = z.infer<typeof Auto>;
export type RplStageRecord = z.infer<typeof StageRecord>;

export const RplOutput = z
  .object({
    slot: z.number().int(),
    r: z.number().int(),
    cache_key: z.string().nullable(),
    prompt_sha256: z.string(),
    paraphrase_idx: z.number().int().openapi({ description: "Bank index of the paraphrase" }),
    replicate_idx: z.number().int(),
    prob_true: z.number().nullable(),
    logit: z.number().nullable(),
    json_valid: z
      .boolean()
      .openapi({ description: "Compliant (a number in [0, 1], no URL): only these are aggregated" }),
    invalid_reason: z.string().nullable(),
    error: z.string().nullable(),
    raw: z.unknown().openapi({ description: "The parsed answer (null when the reply was not JSON or there was none)" }),
    response_text: z
      .string()
      .optional()
      .openapi({ description: "The reply, only when it did not parse as JSON (first 2000 characters)" }),
    provider_model_id: z.string().nullable(),
    response_id: z.string().nullable(),
    tokens_out: z.number().int().nullable(),
    latency_ms: z.number().nullable(),
    cache_hit: z.boolean(),
  })
  .openapi("RplOutput", { description: "One sample: the original's samples row" });

/** One sample (the unit's stored output and NDJSON export line); mirrors the original's samples row. */
export type RplOutput = z.infer<typeof RplOutput>;

/** What a comparison of two rpl runs shows besides its metrics (compare.ts): the original's compare view's verdict. */
export const RplComparisonDetails = z
  .object({
    dimension: z
      .enum(COMPARABLE)
      .nullable()
      .openapi({ description: "The setting the runs differ in; null when they differ in none" }),
    winner: z.object({ run_id: z.string().nullable(), rule: z.enum(["ci_width", "pqs", "stability", "tie"]) }).openapi({
      description:
        "The original's cohort rule: the narrower CI if narrower by ≥ 0.003, else the higher PQS, then the higher stability, else a tie (run_id null)",
    }),
    prob_true_rpl: z
      .object({
        two_sided: z
          .literal(true)
          .openapi({ description: "A prior that moves is neither better nor worse: the metric is never judged" }),
        moved: z
          .boolean()
          .openapi({ description: "Whether its interval excludes 0 and the change is at least `min_effect`" }),
        direction: z
          .enum(["up", "down"])
          .nullable()
          .openapi({ description: "Which way it moved; null when it did not" }),
      })
      .openapi({ description: "What the verdict of `prob_true_rpl` (always no_change) leaves out" }),
  })
  .openapi("RplComparisonDetails");

export type RplComparisonDetails = z.infer<typeof RplComparisonDetails>;
