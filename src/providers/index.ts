/**
 * The providers' front door. Engines see only `ChatClient`; the platform builds one per unit
 * (factory.ts: the simulator for `sim:*` models, else the OpenAI-compatible client) and reads
 * failures by `ProviderError.kind`.
 */

/** The contract: the model interface (the engines' own, src/engines/model.ts, passed through), embeddings and the one error type. */
export { ProviderError } from "./types.ts";
export type {
  ChatClient,
  ChatMessage,
  ChatOptions,
  ChatRequest,
  ChatResponse,
  EmbeddingClient,
  EmbeddingRequest,
  EmbeddingResponse,
  ProviderErrorKind,
  ToolCall,
  ToolDefinition,
  Usage,
} from "./types.ts";

/** OpenAI-compatible endpoints through the `openai` package. */
export { createOpenAIClient, createOpenAIEmbeddingClient, retryAfterMs, scrubSecrets } from "./openai.ts";
export type { OpenAIClientOptions } from "./openai.ts";

/** Admission to an endpoint before each attempt (the platform's shared limiter plugs in here). */
export { failureOutcome, isOverload } from "./gate.ts";
export type { AttemptOutcome, CallGate, CallPermit } from "./gate.ts";

/** The one retry policy. */
export {
  abortableSleep,
  retrying,
  retryDelayMs,
  withRetry,
  MAX_ABSORBED_RETRIES,
  MAX_RETRY_AFTER_MS,
} from "./retry.ts";
export type { RetryInfo, RetryPolicy } from "./retry.ts";

/** The `sim:*` simulator and its extension point. */
export { createSimClient, defaultResponders, isSimModel, textResponder, SIM_DIVERGENCE, SIM_VERSION } from "./sim.ts";
export type { SimClientOptions, SimContext, SimReply, SimResponder } from "./sim.ts";
export { criticResponder, simTrueLabel } from "./sim/critic.ts";
export type { SimCriticOptions } from "./sim/critic.ts";
export { reasonerResponder } from "./sim/reasoner.ts";
export { checkerResponder, simCheckerLabel } from "./sim/checker.ts";
export { createSimEmbeddingClient, simEmbedding, SIM_EMBEDDING_DIMS } from "./sim/embedder.ts";
export type { SimReasonerOptions } from "./sim/reasoner.ts";
export { modelClient, PROVIDER_SECRET } from "./factory.ts";
export type { ModelSettings } from "./factory.ts";

/** The judge's vendor presets (a critic's `vendor` → base URL). */
export { resolveBaseUrl, VENDORS } from "./vendors.ts";
export type { CriticEndpointFields } from "./vendors.ts";
