import { z } from "@hono/zod-openapi";
import { PairedOutcomesSchema } from "../../runs/plugin/compare.ts";
import { orNull, UsageSchema } from "../../runs/plugin/run-fields.ts";

/** The plug-in's name: its `POST /v1/judge/runs` and the `evaluator` of its runs (index.ts and its routes read it here). */
export const NAME = "judge" as const;

/** What a verdict records about its prompt, so a result says exactly which words produced it. */
const PromptRef = z
  .object({
    name: z.string(),
    version: z.union([z.number().int(), z.string()]).nullable().openapi({
      description:
        "A number for a prompt of our bank, your version string for one of your prompts (POST /v1/prompts), null for a prompt written in the request",
    }),
    sha256: z.string().openapi({
      description:
        "SHA-256 of the JSON of [system_prompt, prompt_template]: the `sha256` of a prompt pushed to /v1/prompts",
    }),
  })
  .openapi("CriticPromptRef");

export const JudgeVerdict = z
  .object({
    kind: z.string(),
    confidence: z.number(),
    reasoning: z.string(),
    critic_id: z.string(),
    raw_response: z.string().nullable(),
    error: z.string().nullable(),
    elapsed_s: z.number(),
    prompt: PromptRef,
  })
  .openapi("JudgeVerdict");

/** What `Run.config` shows of a run (no secret, no bulky snapshot); the units work from `JudgeRunConfig`. */
export const JudgePublicConfig = z
  .object({
    n_items: z.number().int(),
    critics: z.array(
      z.object({
        name: z.string(),
        model: z.string(),
        base_url: z.string().nullable().openapi({ description: "The resolved endpoint; null for a simulator critic" }),
        vendor: z.string().nullable(),
        connection: z
          .string()
          .optional()
          .openapi({ description: "The saved provider connection the endpoint came from, if the request named one" }),
        temperature: z.number(),
        max_tokens: z.number().int(),
        timeout_s: z.number(),
        weight: z.number(),
        prompt: PromptRef,
        simulator: z
          .object({
            bias: z.object({ label: z.string(), rate: z.number() }).nullable(),
            noise: z.number(),
            latency_ms: z.number(),
          })
          .nullable(),
      }),
    ),
    labels: z.array(z.string()),
    voting: z.object({
      strategy: z.enum(["majority", "unanimous", "weighted", "first_disagreement"]),
      kwargs: z.record(z.string(), z.unknown()),
    }),
    contested_threshold: z.number(),
    seed: z.number().int(),
    concurrency: z.number().int(),
  })
  .openapi("JudgeConfig");

export type JudgePublicConfig = z.infer<typeof JudgePublicConfig>;

const Counts = z.object({
  verdicts: z.number().int(),
  valid: z.number().int(),
  errors: z.number().int(),
  parse_failures: z.number().int(),
  off_vocabulary: z.number().int(),
  missing: z.number().int(),
});

const ContestedReason = z.enum(["agreement_below_threshold", "alpha_below_threshold", "fewer_than_two_valid_verdicts"]);

export const JudgeItemResult = z
  .object({
    id: z.string(),
    expected: z.string().nullable().openapi({ description: "The item's known label from the request, if any" }),
    consensus: z.string(),
    disagreement: z.boolean(),
    agreement_pct: z.number(),
    avg_confidence: z.number(),
    krippendorff_alpha: z.number().nullable().openapi({ description: "The library's per-item alpha (1 / 0 / null)" }),
    verdicts: z.array(
      z.object({ critic: z.string(), kind: z.string(), confidence: z.number(), error: z.string().nullable() }),
    ),
    counts: Counts,
    contested: z.array(ContestedReason),
  })
  .openapi("JudgeItemResult");

const Rate = z.number().nullable();

export const JudgeResult = z
  .object({
    voting: z.enum(["majority", "unanimous", "weighted", "first_disagreement"]),
    labels: z.array(z.string()),
    counts: Counts.extend({ items: z.number().int() }),
    batch: z.object({
      alpha: z
        .object({
          alpha: z.number().nullable().openapi({
            description: "Nominal Krippendorff's alpha over the items × critics matrix; null where undefined",
          }),
          pairable: z.number().int(),
          units_used: z.number().int(),
          categories: z.array(z.string()),
          coincidence: z.array(z.array(z.number())),
          totals: z.array(z.number()),
        })
        .openapi("NominalAlpha"),
      per_critic: z.array(
        z.object({ critic: z.string(), items: z.number().int(), agree: z.number().int(), rate: Rate }),
      ),
      pairwise: z.array(
        z.object({
          a: z.string(),
          b: z.string(),
          items: z.number().int(),
          agree: z.number().int(),
          rate: Rate,
          alpha: z.number().nullable(),
        }),
      ),
      patterns: z.object({
        unanimous: z.number().int(),
        majority: z.number().int(),
        no_majority: z.number().int(),
        no_valid: z.number().int(),
      }),
      label_distribution: z.array(z.object({ critic: z.string(), labels: z.record(z.string(), z.number().int()) })),
    }),
    contested: z.object({ threshold: z.number(), count: z.number().int() }),
    accuracy: z.object({ items: z.number().int(), correct: z.number().int(), rate: z.number() }).nullable().openapi({
      description:
        "Consensus against the items' `expected` labels, over items with at least one valid verdict; null without any",
    }),
    usage: UsageSchema,
    items: z.array(JudgeItemResult),
  })
  .openapi("JudgeResult");

export type JudgeResult = z.infer<typeof JudgeResult>;
export type JudgeItemResult = z.infer<typeof JudgeItemResult>;
export type ContestedReason = z.infer<typeof ContestedReason>;

export const JudgeOutput = z
  .object({
    item_id: z.string(),
    query: z.string(),
    critic: z.string(),
    model: z.string(),
    prompt: PromptRef,
    verdict: JudgeVerdict,
    usage: UsageSchema.nullable(),
    system_fingerprint: z.string().nullable(),
  })
  .openapi("JudgeOutput", { description: "One critic's verdict on one item" });

/** One stored unit: the verdict and what produced it. */
export type JudgeOutput = z.infer<typeof JudgeOutput>;

/** What a comparison of two judge runs shows besides its metrics (compare.ts). */
export const JudgeComparisonDetails = z
  .object({
    items: z
      .number()
      .int()
      .openapi({ description: "Items paired by id (every item: comparable runs judged the same ones)" }),
    consensus_changes: z.number().int().openapi({ description: "Items whose consensus changed (the `flipped` ones)" }),
    accuracy: orNull(PairedOutcomesSchema).openapi({
      description:
        "Consensus against `expected`, item by item, over items with a known label and a valid verdict in both runs; null without any",
    }),
    per_critic: z
      .array(z.object({ critic: z.string(), base: z.number().nullable(), head: z.number().nullable() }))
      .openapi({
        description:
          "Each critic's agreement with its run's consensus, matched by name; null in a run without that critic, or where it had no item to agree on",
      }),
    contested: z
      .object({ base: z.number().int(), head: z.number().int() })
      .openapi({ description: "Contested items in each run" }),
  })
  .openapi("JudgeComparisonDetails");

export type JudgeComparisonDetails = z.infer<typeof JudgeComparisonDetails>;
