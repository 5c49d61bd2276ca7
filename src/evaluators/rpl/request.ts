import { z } from "@hono/zod-openapi";
import { LatencySimulator, ModelFields } from "../../runs/plugin/model-fields.ts";
import { RunFields } from "../../runs/plugin/run-fields.ts";
import { DEFAULT_RPL_PROMPT, RPL_PROMPTS } from "./prompts.ts";

// The bootstrap seed is 64-bit: it travels as a decimal string (a JSON number would lose digits past 2^53).
const Seed = z
  .union([z.string().regex(/^\d{1,20}$/), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
  .transform((v) => String(v))
  .refine((v) => BigInt(v) < 2n ** 64n, "must be below 2^64")
  .openapi({
    type: "string",
    pattern: "^\\d{1,20}$",
    description:
      "Bootstrap seed, 0 ≤ seed < 2^64, as a decimal string. Default: derived from the run's settings, as the original does",
    example: "42",
  });

const { seed: _providerSeed, ...ModelFieldsWithoutSeed } = ModelFields;

export const RplRunRequest = z
  .strictObject({
    claim: z.string().trim().min(1).max(2000).openapi({ example: "Tariffs raise consumer prices." }),
    ...ModelFieldsWithoutSeed,
    simulator: LatencySimulator,
    prompt_version: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(8)])
      .default(DEFAULT_RPL_PROMPT)
      .openapi({
        description: `A prompt bank version, or a list of them for an A/B comparison (one run per version): one of ours (${Object.keys(RPL_PROMPTS).join(", ")}) or one of your rpl prompts as name@version (POST /v1/prompts)`,
      }),
    K: z.number().int().min(1).max(64).default(8).openapi({ description: "Paraphrase slots" }),
    R: z.number().int().min(1).max(16).default(2).openapi({ description: "Replicates per slot" }),
    T: z
      .number()
      .int()
      .min(0)
      .max(64)
      .nullable()
      .default(null)
      .openapi({ description: "Distinct templates (null: the whole bank)" }),
    B: z.number().int().min(1).max(50_000).default(5000).openapi({ description: "Bootstrap resamples" }),
    seed: Seed.optional(),
    max_output_tokens: z.number().int().min(16).max(32_768).default(1024),
    no_cache: z
      .boolean()
      .default(false)
      .openapi({ description: "Call the model even where the tenant's sample cache has the answer" }),
    preset: z.enum(["auto"]).optional().openapi({
      description:
        "`auto`: the Auto-RPL stages S1 (T,K,R) = (8,8,2) → S2 (16,16,2) → S3 (16,16,3), each a run, escalating until ci_width ≤ 0.20, stability ≥ 0.70 and imbalance ≤ 1.50 all pass; samples are reused across stages. Replaces K, R and T. Follow `result.next_run_id` to the next stage; the last stage's `result.auto` holds the controller, final figures, stages and decision log.",
    }),
    ...RunFields,
  })
  .openapi("RplRunRequest", { example: { claim: "Tariffs raise consumer prices.", model: "sim:rpl", K: 8, R: 2 } });

export type RplBody = z.infer<typeof RplRunRequest>;
