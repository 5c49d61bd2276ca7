import { z } from "@hono/zod-openapi";
import { ModelSettingsSchema, UsageSchema } from "../../runs/plugin/run-fields.ts";

/** A JSON value as the model or the harness wrote it (tool arguments, a final answer). */
const Json = z.unknown();

export const ChainDeterminismConfig = z
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

const QueryResult = z
  .object({
    query_id: z.string(),
    n_total: z.number().int(),
    n_success: z.number().int(),
    diverged: z.boolean().nullable().openapi({ description: "null for an insufficient query" }),
    status: z.enum(["insufficient", "measurable"]),
    n_unique_sequences: z.number().int().optional().openapi({ description: "Measurable queries only" }),
    modal_share: z.number().optional().openapi({ description: "Measurable queries only: share of successful replays with the most common sequence" }),
    first_divergence_turn: z.number().int().nullable().optional().openapi({ description: "Measurable queries only: the first tool-call index at which successful replays differ" }),
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
  .openapi("ChainDeterminismResult", { description: "The harness's summary, key for key, and what it lacks (modal share, first divergence, endpoint)" });

export type ChainDeterminismResult = z.infer<typeof ChainDeterminismResult>;

const ToolCall = z.object({ name: z.string(), args: Json, tool_call_id: z.string(), args_malformed: z.literal(true).optional() });

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
      z.object({ system_fingerprint: z.string().nullable(), model: z.string().nullable(), provider: z.string().nullable(), usage: UsageSchema.nullable() }),
    ),
    requests: z.number().int().optional().openapi({ description: "HTTP requests sent for this replay (absent in samples stored before it was counted)" }),
  })
  .openapi("ChainDeterminismOutput");
