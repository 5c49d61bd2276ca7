import { z } from "@hono/zod-openapi";
import { METRIC_KEYS } from "../../engines/reasoning-quality/index.ts";
import { PairedOutcomesSchema } from "../../runs/plugin/compare.ts";
import { UsageSchema } from "../../runs/plugin/run-fields.ts";

/** The plug-in's name: its `POST /v1/reasoning-quality/runs` and the `evaluator` of its runs (index.ts and its routes read it here). */
export const NAME = "reasoning-quality" as const;

const Fallback = z.object({ from: z.enum(["model", "embeddings"]), reason: z.string() });

export const RqRawMetrics = z
  .object({
    correctness: z.number(),
    consistency: z.number(),
    robustness: z.number().nullable(),
    logical_coherence: z.number().nullable(),
    efficiency: z.number(),
    stability: z.number().nullable(),
  })
  .openapi("RqRawMetrics", {
    description:
      "The six metrics (4 decimals); null where a metric was left out (LS or SS `none`, RS with no perturbations)",
  });

const Connection = z
  .string()
  .optional()
  .openapi({ description: "The saved provider connection the endpoint came from, if the request named one" });
const Endpoint = z.object({ base_url: z.string().nullable(), connection: Connection });

/** What `Run.config` shows of a run (no secret, no bulky snapshot); the units work from `RqRunConfig`. */
export const RqPublicConfig = z
  .object({
    models: z.array(
      z.object({
        name: z.string(),
        model: z.string(),
        base_url: z.string().nullable(),
        connection: Connection,
        temperature: z.number(),
        max_tokens: z.number().int(),
        timeout_s: z.number(),
        simulator: z
          .object({ accuracy: z.number(), verbosity: z.number(), variation: z.number(), latency_ms: z.number() })
          .nullable(),
      }),
    ),
    own_wording_golds: z.array(z.string()).optional(),
    metrics: z.object({
      consistency_runs: z.number().int(),
      stability_runs: z.number().int(),
      robustness_perturbations: z.number().int(),
    }),
    matcher: z.enum(["canonical", "legacy7"]),
    ls: z.union([
      z.object({ method: z.enum(["lexical", "none"]) }),
      Endpoint.extend({
        method: z.literal("model"),
        model: z.string(),
        batch_size: z.number().int(),
        timeout_s: z.number(),
        fallback: z.enum(["neutral", "lexical", "none"]),
      }),
    ]),
    ss: z.union([
      z.object({ method: z.enum(["jaccard", "none"]) }),
      Endpoint.extend({
        method: z.literal("embeddings"),
        model: z.string(),
        batch_size: z.number().int(),
        timeout_s: z.number(),
        dimensions: z.number().int().nullable(),
        baseline: z.number().nullable(),
        fallback: z.enum(["jaccard", "none"]),
      }),
    ]),
    preset: z.enum(["paper-v8", "1.1.4"]),
    custom_strategies: z.record(z.string(), z.record(z.string(), z.number())),
    seed: z.number().int(),
    n_items: z.number().int(),
    datasets: z.array(z.record(z.string(), z.unknown())),
    concurrency: z.number().int(),
    metric_keys: z.array(z.enum(METRIC_KEYS)),
  })
  .openapi("ReasoningQualityConfig");

export type RqPublicConfig = z.infer<typeof RqPublicConfig>;

const Calls = z.object({
  planned: z.number().int(),
  made: z.number().int(),
  failed: z.number().int(),
  missing: z.number().int(),
});

export const RqModelResult = z
  .object({
    model: z.string(),
    raw_metrics: RqRawMetrics,
    aggregated: z.record(z.string(), z.number()).openapi({ description: "Q per strategy" }),
    per_dataset: z.record(
      z.string(),
      z.object({
        raw_metrics: RqRawMetrics,
        aggregated: z.record(z.string(), z.number()),
        num_samples: z.number().int(),
      }),
    ),
    metadata: z.object({
      num_samples: z.number().int(),
      consistency_runs: z.number().int(),
      stability_runs: z.number().int(),
      robustness_perturbations: z.number().int(),
      datasets: z.array(z.string()),
    }),
    extensions: z.object({
      cq_matcher: z.string(),
      ls_method: z.string(),
      ls_model: z.string().optional(),
      ls_failed_pairs: z.number().int(),
      ls_fallback: Fallback.optional(),
      ss_method: z.string(),
      ss_model: z.string().optional(),
      ss_fallback: Fallback.optional(),
      token_count_method: z.string(),
      preset_version: z.string(),
      rs_skipped: z.boolean(),
      missing_metric: z.enum(["renormalize", "zero"]),
      step_rule: z.string(),
      synthetic_golds: z.object({ own_wording: z.array(z.string()), note: z.string() }).optional(),
    }),
    calls: Calls,
    usage: UsageSchema,
    generation_failed: z.number().int(),
    backends: z.object({
      ls: z
        .object({
          model: z.string(),
          calls: z.number().int(),
          failed_calls: z.number().int(),
          usage: UsageSchema,
          first_error: z.string().nullable(),
        })
        .nullable(),
      ss: z
        .object({
          model: z.string(),
          calls: z.number().int(),
          texts: z.number().int(),
          usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
        })
        .nullable(),
    }),
  })
  .openapi("ReasoningQualityModelResult");

export type RqModelResult = z.infer<typeof RqModelResult>;

export const RqResult = z
  .object({
    models: z.array(RqModelResult),
    rankings: z
      .record(z.string(), z.array(z.object({ model: z.string(), q: z.number(), rank: z.number().int() })))
      .openapi({ description: "Per strategy, the models best first (competition ranking: ties share a rank)" }),
    strategies: z
      .record(z.string(), z.record(z.string(), z.number()))
      .openapi({ description: "Each strategy's effective weights" }),
    metric_keys: z.array(z.enum(METRIC_KEYS)),
  })
  .openapi("ReasoningQualityResult");

export type RqResult = z.infer<typeof RqResult>;

export const RqOutput = z
  .object({
    model: z.string(),
    item: z.number().int(),
    call: z.string().openapi({ description: "`p` the primary run, `r<n>` a further run, `x<n>` a perturbation" }),
    ok: z.boolean(),
    text: z.string().nullable(),
    output_tokens: z.number().int().nullable(),
    usage: UsageSchema.nullable(),
    error: z.string().nullable(),
    nli: z
      .object({
        labels: z.array(z.enum(["contradiction", "entailment", "neutral"]).nullable()),
        errors: z.array(z.string()),
        calls: z.number().int(),
        failed_calls: z.number().int(),
        usage: UsageSchema,
      })
      .optional()
      .openapi({
        description: "The primary run only, under the LS `model` backend: the checker's labels for this trace",
      }),
  })
  .openapi("ReasoningQualityOutput");

/** One generation as stored: the model's answer to one call of one item, and on the primary the checker's labels. */
export type RqOutput = z.infer<typeof RqOutput>;

/** What every comparison of two reasoning-quality runs shows, paired or not. */
const RqComparedModels = {
  models: z
    .object({ compared: z.array(z.string()), base_only: z.array(z.string()), head_only: z.array(z.string()) })
    .openapi({ description: "Models matched by name" }),
  rank_changes: z
    .record(
      z.string(),
      z.array(
        z.object({ model: z.string(), base_rank: z.number().int().nullable(), head_rank: z.number().int().nullable() }),
      ),
    )
    .openapi({ description: "Per strategy compared, the compared models whose rank changed" }),
  strategies_not_compared: z
    .array(z.object({ strategy: z.string(), reason: z.string() }))
    .optional()
    .openapi({ description: "Strategies in one run only, or weighed differently by the two (not the same Q)" }),
};

/** What a comparison of two reasoning-quality runs shows besides its metrics (compare.ts): paired by item, or on the results' figures only. */
export const RqComparisonDetails = z
  .union([
    z.object({
      ...RqComparedModels,
      items: z.number().int(),
      correctness: z
        .record(z.string(), PairedOutcomesSchema)
        .openapi({ description: "Per compared model, the items right or wrong in each run" }),
      no_interval: z.record(z.string(), z.array(z.string())).optional().openapi({
        description:
          "Per model, the metrics whose kept scores do not reproduce the result's figure (SS by embeddings, older results): no interval",
      }),
    }),
    z.object({
      ...RqComparedModels,
      unpaired_reason: z.string().openapi({
        description:
          "Why items are not paired (a dataset of the runs has been deleted since): the results' figures only, without intervals",
      }),
    }),
  ])
  .openapi("ReasoningQualityComparisonDetails");

export type RqComparisonDetails = z.infer<typeof RqComparisonDetails>;
