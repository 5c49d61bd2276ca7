import { z } from "@hono/zod-openapi";
import { AgentSimulator, ModelFields } from "../../runs/plugin/model-fields.ts";
import { RunFields } from "../../runs/plugin/run-fields.ts";

export const ChainDeterminismRunRequest = z
  .strictObject({
    ...ModelFields,
    simulator: AgentSimulator,
    suite: z
      .string()
      .min(1)
      .default("default")
      .openapi({ description: "`default` (ours, 10 queries) or the id of an uploaded suite" }),
    n_queries: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(5)
      .openapi({ description: "The first N queries of the suite" }),
    n_replays: z.number().int().min(1).max(500).default(10),
    temperature: z.number().min(0).max(2).default(0),
    max_turns: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .openapi({ description: "Chat-completion requests per replay" }),
    max_tokens: z.number().int().min(1).max(32_768).default(1024),
    min_success: z
      .number()
      .int()
      .min(2)
      .default(5)
      .openapi({ description: "Successful replays a query needs to be measurable" }),
    ...RunFields,
  })
  .openapi("ChainDeterminismRunRequest", {
    example: { model: "sim:agent", n_queries: 5, n_replays: 10, simulator: { divergence: 0.3 } },
  });

export type ChainDeterminismBody = z.infer<typeof ChainDeterminismRunRequest>;
