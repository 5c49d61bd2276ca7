import { z } from "@hono/zod-openapi";
import { ModelSettingsSchema, UsageSchema } from "../../runs/plugin/run-fields.ts";

/** The plug-in's name: its `POST /v1/chain-determinism/runs` and the `evaluator` of its runs (index.ts and its routes read it here). */
export const NAME = "chain-determinism" as const;

/** A JSON value as the model or the harness wrote it (tool arguments, a final answer). */
const Json = z.unknown();

/** What `Run.config` shows of a run (no secret, no bulky snapshot); the units work from `ChainDeterminismRunConfig`. */
export const ChainDeterminismPublicConfig = z
  .object({
    ...ModelSettingsSchema,
    suite: z.object({ id: z.string(), name: z.string(), sha256: z.string() }),
    n_queries: z.number().int(),
    n_replays: z.number().int(),
    temperature: z.number(),
    concurrency: z.number().int(),
    max_turns: z.number().int(),
    max_tokens: z.number().int(),
    min_success: z.number().int(),
  })
  .openapi("ChainDeterminismConfig");

export type ChainDeterminismPublicConfig = z.infer<typeof ChainDeterminismPublicConfig>;

const QueryResult = z
  .object({
    query_id: z.string(),
    n_total: z.number().int(),
    n_success: z.number().int(),
    diverged: z.boolean().nullable().openapi({ description: "null for an insufficient query" }),
    status: z.enum(["insufficient", "measurable"]),
    n_unique_sequences: z.number().int().optional().openapi({ description: "Measurable queries only" }),
    modal_share: z
      .number()
      .optional()
      .openapi({ description: "Measurable queries only: share of successful replays with the most common sequence" }),
    first_divergence_turn: z.number().int().nullable().optional().openapi({
      description: "Measurable queries only: the first tool-call index at which successful replays differ",
    }),
  })
  .openapi("ChainDeterminismQueryResult");

export const ChainDeterminismResult = z
  .object({
    model: z.string(),
    n_replays: z.number().int(),
    temperature: z.number(),
    n_total: z.number().int(),
    n_errors: z.number().int(),
    n_queries: z.number().int(),
    n_measurable: z.number().int(),
    n_diverged: z.number().int(),
    divergence_rate: z.number().nullable().openapi({ description: "null when no query is measurable" }),
    wilson_ci_95: z.union([z.tuple([z.number(), z.number()]), z.tuple([z.null(), z.null()])]),
    per_query: z.array(QueryResult),
    summary_text: z.string().openapi({ description: "The harness's console summary" }),
    endpoint: z.object({
      requests: z.number().int().openapi({ description: "HTTP requests sent, retries and failed ones included" }),
      usage: UsageSchema,
      system_fingerprints: z.record(z.string(), z.number().int()),
      models: z.record(z.string(), z.number().int()),
      providers: z.record(z.string(), z.number().int()),
    }),
  })
  .openapi("ChainDeterminismResult", {
    description: "The harness's summary, key for key, and what it lacks (modal share, first divergence, endpoint)",
  });

export type ChainDeterminismResult = z.infer<typeof ChainDeterminismResult>;

const ToolCall = z.object({
  name: z.string(),
  args: Json,
  tool_call_id: z.string(),
  args_malformed: z.literal(true).optional(),
});

export const ChainDeterminismOutput = z
  .object({
    row: z
      .object({
        query_id: z.string(),
        query_type: z.string().nullable(),
        run_idx: z.number().int(),
        tool_call_sequence: z.array(ToolCall),
        final_answer: Json,
        rationale: z.string(),
        n_tool_calls: z.number().int(),
        error_category: z.string().nullable(),
      })
      .openapi({ description: "The harness's per-replay row" }),
    turns: z.array(
      z.object({
        system_fingerprint: z.string().nullable(),
        model: z.string().nullable(),
        provider: z.string().nullable(),
        usage: UsageSchema.nullable(),
      }),
    ),
    requests: z
      .number()
      .int()
      .optional()
      .openapi({ description: "HTTP requests sent for this replay (absent in samples stored before it was counted)" }),
  })
  .openapi("ChainDeterminismOutput");

export type ChainDeterminismOutput = z.infer<typeof ChainDeterminismOutput>;

/** A query's outcome in one run: measurable (stable or diverged) or not. */
const QueryState = z.enum(["stable", "diverged", "insufficient"]);
export type QueryState = z.infer<typeof QueryState>;

/** What a comparison of two chain-determinism runs shows besides its metrics (compare.ts), paired by query or not. */
export const ChainDeterminismComparisonDetails = z
  .union([
    z.object({
      pairing: z.object({
        paired: z.literal(true),
        queries: z.number().int(),
        measurable_in_both: z.number().int(),
        discordant: z
          .object({ stable_to_diverged: z.number().int(), diverged_to_stable: z.number().int() })
          .openapi({ description: "The queries McNemar's test is about" }),
      }),
      modal_share: z
        .array(z.object({ query_id: z.string(), base: z.number(), head: z.number(), delta: z.number() }))
        .openapi({
          description:
            "Per query measurable in both runs, the share of its successful replays with the most common sequence",
        }),
      measurable_changes: z
        .array(z.object({ id: z.string(), base: QueryState, head: QueryState }))
        .openapi({ description: "Queries measurable in one run only, left out of the divergence rate" }),
    }),
    z.object({
      pairing: z.object({
        paired: z.literal(false),
        reason: z.string().openapi({ description: "Why the queries are not paired (another suite, other queries)" }),
      }),
      modal_share: z
        .object({
          base_mean: z.number().nullable(),
          head_mean: z.number().nullable(),
          base: z.array(z.object({ query_id: z.string(), modal_share: z.number() })),
          head: z.array(z.object({ query_id: z.string(), modal_share: z.number() })),
        })
        .openapi({ description: "Without pairing the modal shares have no interval: described, not judged" }),
    }),
  ])
  .openapi("ChainDeterminismComparisonDetails");

export type ChainDeterminismComparisonDetails = z.infer<typeof ChainDeterminismComparisonDetails>;
