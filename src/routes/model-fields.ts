import { z } from "@hono/zod-openapi";
import { ApiError } from "../errors.ts";
import { PROVIDER_SECRET, SIM_DIVERGENCE, type ModelSettings } from "../providers/index.ts";

/**
 * A provider key. It is sent in an HTTP header (`Authorization: Bearer …`), which holds only ASCII, so
 * anything else is refused here, naming the field, instead of failing every call of the run (a pasted
 * placeholder such as `sk-or-…` ends in the non-ASCII `…`). Spaces are refused too: no key has them,
 * and a pasted key with a trailing newline or space would be sent wrong.
 */
export const ProviderKey = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces: it is sent in an HTTP header")
  .openapi({ description: "Secret: encrypted for the life of the run, never stored in plain text or returned" });

/** `latency_ms` of every simulator: a delay before each simulated answer. */
const SimLatency = z.number().int().min(0).max(60_000).default(0).openapi({ description: "Delay before each simulated answer" });

/** The simulator knobs of a tool-calling agent (chain-determinism). */
export const AgentSimulator = z
  .strictObject({
    divergence: z.number().min(0).max(1).default(SIM_DIVERGENCE).openapi({ description: "Probability that a replay departs from the query's usual tool sequence" }),
    latency_ms: SimLatency,
  })
  .optional()
  .openapi({ description: "`sim:*` models only" });

/** The simulator knobs of evaluators whose simulated answers have no other setting (rpl). */
export const LatencySimulator = z.strictObject({ latency_ms: SimLatency }).optional().openapi({ description: "`sim:*` models only" });

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
      api_key: ProviderKey.optional(),
    })
    .optional(),
  timeout_s: z.number().positive().max(600).default(60).openapi({ description: "Per model call; timed-out calls are retried twice" }),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional().openapi({ description: "Sent as `seed` to providers that take one; seeds the simulator" }),
};


/**
 * Splits the model fields into the stored config (no secret) and the run's secrets (the API key).
 * `simulatorDefaults` are the evaluator's own knobs, so a config holds only those.
 */
export function modelConfig(
  body: {
    model: string;
    provider?: { base_url: string; api_key?: string };
    timeout_s: number;
    seed?: number;
    simulator?: { divergence?: number; latency_ms: number };
  },
  simulatorDefaults: ModelSettings["simulator"] & object,
): { config: ModelSettings; secrets?: Record<string, string> } {
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
      simulator: sim ? { ...simulatorDefaults, ...body.simulator } : null,
    },
    secrets: body.provider?.api_key ? { [PROVIDER_SECRET]: body.provider.api_key } : undefined,
  };
}
