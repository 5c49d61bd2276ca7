import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors.ts";
import { PROVIDER_SECRET, type ModelSettings } from "../providers/index.ts";

/**
 * The request fields that say which model to call, shared by every run evaluator: an
 * OpenAI-compatible endpoint (`provider.base_url` + `provider.api_key`), or the built-in simulator
 * (`model: "sim:…"`, no provider, no network).
 */
export const ModelFields = {
  model: z.string().min(1).max(200).openapi({ description: "The model name the endpoint expects, or `sim:<anything>` for the built-in simulator", example: "sim:agent" }),
  provider: z
    .strictObject({
      base_url: z.url({ protocol: /^https?$/ }).openapi({ example: "https://openrouter.ai/api/v1" }),
      api_key: z.string().min(1).max(4096).optional().openapi({ description: "Secret: encrypted for the life of the run, never stored in plain text or returned" }),
    })
    .optional(),
  timeout_s: z.number().positive().max(600).default(60).openapi({ description: "Per model call; timed-out calls are retried twice" }),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional().openapi({ description: "Sent as `seed` to providers that take one; seeds the simulator" }),
  simulator: z
    .strictObject({
      divergence: z.number().min(0).max(1).default(0.25).openapi({ description: "Probability that a replay departs from the query's usual tool sequence" }),
      latency_ms: z.number().int().min(0).max(60_000).default(0),
    })
    .optional(),
};


/** Splits the model fields into the stored config (no secret) and the run's secrets (the API key). */
export function modelConfig(body: {
  model: string;
  provider?: { base_url: string; api_key?: string };
  timeout_s: number;
  seed?: number;
  simulator?: { divergence: number; latency_ms: number };
}): { config: ModelSettings; secrets?: Record<string, string> } {
  const sim = body.model.startsWith("sim:");
  if (sim && body.provider) {
    throw ApiError.validation([{ path: "provider", message: "the simulator (sim:*) takes no provider" }]);
  }
  if (!sim && !body.provider) {
    throw ApiError.validation([{ path: "provider", message: "required unless model is sim:* (provider.base_url, provider.api_key)" }]);
  }
  if (!sim && body.simulator) {
    throw ApiError.validation([{ path: "simulator", message: "only for sim:* models" }]);
  }
  return {
    config: {
      model: body.model,
      provider: body.provider ? { base_url: body.provider.base_url } : null,
      timeout_s: body.timeout_s,
      seed: body.seed ?? null,
      simulator: sim ? { divergence: body.simulator?.divergence ?? 0.25, latency_ms: body.simulator?.latency_ms ?? 0 } : null,
    },
    secrets: body.provider?.api_key ? { [PROVIDER_SECRET]: body.provider.api_key } : undefined,
  };
}
