import { z } from "@hono/zod-openapi";
import { VENDORS } from "../../providers/index.ts";
import { LIMITS } from "../../limits.ts";
import { Provider } from "../../runs/plugin/model-fields.ts";
import { RunFields } from "../../runs/plugin/run-fields.ts";
import { callTimeoutField } from "../../runs/plugin/step-limits.ts";
import { DEFAULT_CRITIC_PROMPT } from "./prompts.ts";

export const DEFAULT_LABELS = ["KEEP", "REJECT", "SPLIT", "MERGE", "UNCLEAR"];
const DEFAULT_CONTESTED_THRESHOLD = 0.4;

const Label = z
  .string()
  .min(1)
  .max(64)
  .regex(/^\S(.*\S)?$/, "no leading or trailing whitespace");

const Item = z.strictObject({
  id: z.string().min(1).max(200),
  query: z
    .string()
    .min(1)
    .max(20_000)
    .openapi({ description: "The text the critics judge ({query} in their prompts)" }),
  context: z
    .record(z.string(), z.unknown())
    .default({})
    .openapi({ description: "Extra template variables for this item ({key} in a prompt_template)" }),
  expected: Label.optional().openapi({
    description:
      "The item's known label, if any: the simulator answers it, and the result reports the consensus's accuracy against it",
  }),
});

const Critic = z.strictObject({
  name: z.string().min(1).max(64).openapi({ description: "Unique in the panel; becomes each verdict's critic_id" }),
  model: z.string().min(1).max(200).openapi({
    description: "The model name the endpoint expects, or `sim:<anything>` for the simulator",
    example: "sim:critic",
  }),
  vendor: z
    .enum(Object.keys(VENDORS) as [string, ...string[]])
    .optional()
    .openapi({ description: "An endpoint preset; needs provider.api_key (not with provider.connection)" }),
  provider: Provider.optional(),
  temperature: z.number().min(0).max(2).default(0),
  max_tokens: z.number().int().min(1).max(32_768).default(2000),
  timeout_s: callTimeoutField(),
  weight: z.number().min(0).max(1000).default(1).openapi({ description: "This critic's weight in `weighted` voting" }),
  prompt: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      description: `A prompt of our bank as "name@version" (or "name" for its latest version; see GET /v1/judge/prompts), or one of your judge prompts as "name@version" (POST /v1/prompts). Default ${DEFAULT_CRITIC_PROMPT} unless system_prompt or prompt_template is given`,
    }),
  system_prompt: z.string().max(20_000).optional().openapi({ description: 'Your own system prompt ("" sends none)' }),
  prompt_template: z.string().min(1).max(20_000).optional().openapi({
    description: "Your own template: {query}, {labels}, the item's context keys; {{ }} for literal braces",
  }),
  simulator: z
    .strictObject({
      bias: z
        .strictObject({ label: Label, rate: z.number().min(0).max(1) })
        .optional()
        .openapi({ description: "With probability `rate`, answer `label`" }),
      noise: z
        .number()
        .min(0)
        .max(1)
        .default(0)
        .openapi({ description: "Otherwise, with this probability, answer a random label of the vocabulary" }),
      latency_ms: z.number().int().min(0).max(60_000).default(0),
    })
    .optional()
    .openapi({
      description:
        "Only for sim:* critics. Without bias and noise a simulated critic answers each item's true label (its `expected`, else one drawn from its id and the seed)",
    }),
});

const Voting = z
  .strictObject({
    strategy: z.enum(["majority", "unanimous", "weighted", "first_disagreement"]).default("majority"),
    priority: z.array(Label).max(50).optional().openapi({ description: "majority: labels that win a tie, in order" }),
    fallback: Label.optional().openapi({
      description:
        "The consensus when no valid verdict exists (unanimous: also when critics disagree). Default UNCLEAR",
    }),
    use_confidence: z
      .boolean()
      .optional()
      .openapi({ description: "weighted: multiply each critic's weight by its confidence (default true)" }),
    disagree_label: Label.optional().openapi({
      description: "first_disagreement: the consensus when critics disagree (default DISAGREE)",
    }),
  })
  .default({ strategy: "majority" });

export const JudgeRunRequest = z
  .strictObject({
    items: z.array(Item).min(1).max(LIMITS.judgeItems),
    critics: z.array(Critic).min(1).max(LIMITS.judgeCritics),
    labels: z.array(Label).min(2).max(50).default(DEFAULT_LABELS).openapi({
      description: "The label vocabulary; a verdict outside it is counted as off_vocabulary, not as a vote",
    }),
    voting: Voting,
    contested_threshold: z
      .number()
      .min(0)
      .max(1)
      .default(DEFAULT_CONTESTED_THRESHOLD)
      .openapi({ description: "Items whose agreement_pct or alpha is below this are contested (GET …/contested)" }),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0)
      .openapi({ description: "Seeds the simulator" }),
    ...RunFields,
  })
  .openapi("JudgeRunRequest", {
    example: {
      items: [{ id: "q1", query: "Bank failures and earthquake aftershocks share a universality class." }],
      critics: [
        { name: "strict", model: "sim:critic", prompt: "strict-reviewer@1" },
        { name: "general", model: "sim:critic" },
        { name: "noisy", model: "sim:critic", simulator: { noise: 0.5 } },
      ],
    },
  });

export type JudgeBody = z.infer<typeof JudgeRunRequest>;
