import { createOpenAIClient } from "./openai.ts";
import { createSimClient, isSimModel, SIM_DIVERGENCE } from "./sim.ts";
import type { ChatClient } from "./types.ts";

/** The name of the run secret that holds the key of the run's one model endpoint. */
export const PROVIDER_SECRET = "provider";

/** The model fields every run evaluator's config carries (see src/runs/plugin/model-fields.ts). */
export type ModelSettings = {
  model: string;
  /** `connection`: the saved provider connection the URL came from, recorded in the run's config only. */
  provider: { base_url: string; connection?: string } | null;
  timeout_s: number;
  seed: number | null;
  /** `sim:*` only; `divergence` for the tool-calling agent (chain-determinism). */
  simulator: { divergence?: number; latency_ms: number } | null;
};

/**
 * The client for one unit: the simulator for `sim:*` models, otherwise the OpenAI-compatible
 * endpoint with the one retry policy. `salt` tells apart units that send identical requests (the
 * replays of one query), which only the simulator needs. `allowLoopback` is the Worker's destination
 * setting (`loopbackAllowed(env)`); see `OpenAIClientOptions.allowLoopback` for the default.
 */
export function modelClient(
  config: unknown,
  apiKey: string | undefined,
  salt: number,
  allowLoopback: boolean,
): ChatClient {
  const m = config as ModelSettings;
  if (isSimModel(m.model)) {
    return createSimClient({
      model: m.model,
      seed: m.seed ?? 0,
      replay: salt,
      divergence: m.simulator?.divergence ?? SIM_DIVERGENCE,
      latencyMs: m.simulator?.latency_ms ?? 0,
    });
  }
  if (!m.provider) throw new Error("modelClient: a non-sim model needs provider.base_url");
  return createOpenAIClient({ baseURL: m.provider.base_url, apiKey, timeoutMs: m.timeout_s * 1000, allowLoopback });
}
