import { z } from "@hono/zod-openapi";
import { LIMITS } from "../../limits.ts";
import { Provider } from "../../runs/plugin/model-fields.ts";
import { RunFields } from "../../runs/plugin/run-fields.ts";
import { callTimeoutField } from "../../runs/plugin/step-limits.ts";

const Model = z.strictObject({
  name: z.string().min(1).max(100).optional().openapi({ description: "Unique in the run; default the model name" }),
  model: z.string().min(1).max(200).openapi({
    description: "The model name the endpoint expects, or `sim:<anything>` for the simulator",
    example: "sim:reasoner",
  }),
  provider: Provider.optional(),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .default(0.7)
    .openapi({ description: "The paper's 0.7; at 0 CS and SS are trivially high" }),
  max_tokens: z
    .number()
    .int()
    .min(1)
    .max(32_768)
    .default(256)
    .openapi({ description: "The original's 256 (1024 for thinking models)" }),
  timeout_s: callTimeoutField(),
  simulator: z
    .strictObject({
      accuracy: z.number().min(0).max(1).default(0.7),
      verbosity: z
        .number()
        .int()
        .min(0)
        .max(50)
        .default(3)
        .openapi({ description: "Reasoning sentences before the answer" }),
      variation: z
        .number()
        .min(0)
        .max(1)
        .default(0.2)
        .openapi({ description: "Chance that a further run or a perturbed question is answered afresh" }),
      latency_ms: z.number().int().min(0).max(60_000).default(0),
    })
    .optional(),
});

const LsModel = z
  .strictObject({
    method: z.literal("model"),
    model: z.string().min(1).max(200).openapi({
      description: "A chat model used as contradiction checker, or `sim:<anything>` for the simulator's",
      example: "gpt-4o-mini",
    }),
    provider: Provider.optional(),
    batch_size: z.number().int().min(1).max(32).default(16).openapi({ description: "Step pairs per checker call" }),
    timeout_s: callTimeoutField(
      "Per checker call (up to 4 run at once, a round; a long check hands over to a fresh invocation between rounds)",
    ),
    fallback: z.enum(["lexical", "none", "neutral"]).default("lexical").openapi({
      description:
        "If the checker fails on any pair: score LS with the lexical heuristic (default) or leave it out (none) for that model, saying so in `ls_fallback`; `neutral` keeps the original's rule (failed pairs count as neutral)",
    }),
  })
  .openapi("LsModelBackend");

const SsEmbeddings = z
  .strictObject({
    method: z.literal("embeddings"),
    model: z.string().min(1).max(200).openapi({
      description: "An embeddings model, or `sim:<anything>` for the simulator's",
      example: "text-embedding-3-small",
    }),
    provider: Provider.optional(),
    dimensions: z
      .number()
      .int()
      .min(1)
      .max(8192)
      .optional()
      .openapi({ description: "Sent as `dimensions` where the model supports it" }),
    baseline: z
      .number()
      .min(-1)
      .lt(1)
      .optional()
      .openapi({ description: "Rescale every non-empty pair's cosine as (s − b)/(1 − b)" }),
    batch_size: z.number().int().min(1).max(2048).default(64).openapi({ description: "Texts per embeddings call" }),
    timeout_s: z.number().positive().max(600).default(60),
    fallback: z.enum(["jaccard", "none"]).default("jaccard").openapi({
      description:
        "If the embeddings endpoint fails (after retries) or the run was canceled: score SS with Jaccard (default) or leave it out (none), saying so in `ss_fallback`",
    }),
  })
  .openapi("SsEmbeddingsBackend");

const DatasetRef = z.union([
  z.strictObject({
    id: z.string().min(1).openapi({ description: "An uploaded dataset (POST /v1/reasoning-quality/datasets)" }),
    num_samples: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.datasetItems)
      .optional()
      .openapi({ description: "Use the first n items (default all)" }),
  }),
  z.strictObject({
    synthetic: z.strictObject({
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 53 - 1)
        .default(42),
      num_reasoning: z.number().int().min(0).max(1000).default(20),
      num_adversarial: z.number().int().min(0).max(1000).default(10),
      num_robustness: z.number().int().min(0).max(1000).default(10),
    }),
  }),
]);

export const ReasoningQualityRunRequest = z
  .strictObject({
    models: z.array(Model).min(1).max(10),
    datasets: z.array(DatasetRef).min(1).max(10).openapi({
      description: "Items of all are evaluated together; each keeps its dataset tag for the per-dataset breakdown",
    }),
    K: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .openapi({ description: "Runs per item for CS and SS; the primary counts as run 1" }),
    P: z.number().int().min(0).max(10).default(3).openapi({ description: "Perturbations per item for RS" }),
    matcher: z
      .enum(["canonical", "legacy7"])
      .default("canonical")
      .openapi({ description: "CQ: the type-aware matcher, or the README's seven-strategy chain" }),
    ls: z
      .union([z.enum(["lexical", "none"]), LsModel])
      .default("lexical")
      .openapi({
        description:
          "LS backend: the original's lexical heuristic, none (LS null, left out of Q), or a chat model as contradiction checker",
      }),
    ss: z
      .union([z.enum(["jaccard", "none"]), SsEmbeddings])
      .default("jaccard")
      .openapi({
        description:
          "SS backend: Jaccard over the traces (the original's fallback), none (SS null, left out of Q), or cosine of an embeddings model",
      }),
    preset: z
      .enum(["paper-v8", "1.1.4"])
      .default("paper-v8")
      .openapi({ description: "The weight table: the camera-ready one (default) or the 1.1.4 README's" }),
    strategies: z
      .record(z.string().min(1).max(50), z.record(z.string(), z.number()))
      .default({})
      .openapi({
        description:
          "Custom strategies: name → weights over correctness, consistency, robustness, logical_coherence, efficiency, stability (normalised to sum 1)",
        example: { my_mix: { correctness: 2, efficiency: 1 } },
      }),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0)
      .openapi({ description: "Seeds the simulator" }),
    ...RunFields,
  })
  .openapi("ReasoningQualityRunRequest", {
    example: {
      models: [
        { name: "careful", model: "sim:reasoner", simulator: { accuracy: 0.9, verbosity: 6 } },
        { name: "quick", model: "sim:reasoner", simulator: { accuracy: 0.6, verbosity: 1, variation: 0.5 } },
      ],
      datasets: [{ synthetic: { num_reasoning: 10, num_adversarial: 5, num_robustness: 5 } }],
    },
  });

export type RqBody = z.infer<typeof ReasoningQualityRunRequest>;
