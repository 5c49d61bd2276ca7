/**
 * The providers' contract. The model interface itself (`ChatClient`, its requests and responses) belongs
 * to the engines (src/engines/model.ts) and is re-exported here unchanged, so the platform keeps one front
 * door for it; what is the providers' own is below: embeddings and the one error type.
 */
import type { ChatOptions } from "../engines/model.ts";

export type {
  ChatClient,
  ChatMessage,
  ChatOptions,
  ChatRequest,
  ChatResponse,
  ToolCall,
  ToolDefinition,
  Usage,
} from "../engines/model.ts";

/** An embeddings request (`/v1/embeddings`): several texts in one call. */
export type EmbeddingRequest = { model: string; input: string[]; dimensions?: number };

export type EmbeddingResponse = {
  /** One vector per input, in input order. */
  data: number[][];
  model?: string;
  usage?: { prompt_tokens: number; total_tokens: number };
  /** As `ChatResponse.attempts`. */
  attempts?: number;
};

/** The second model capability: OpenAI-compatible embeddings, with the same errors and retry policy as chat. */
export interface EmbeddingClient {
  embed(request: EmbeddingRequest, options?: ChatOptions): Promise<EmbeddingResponse>;
}

/**
 * How a failure should be treated: `rate_limit`, `timeout`, `connection` and `transient` (5xx, 408,
 * 409) are retried by the one policy in retry.ts; `auth` and `bad_request` are not.
 */
export type ProviderErrorKind = "rate_limit" | "timeout" | "connection" | "transient" | "auth" | "bad_request";

/**
 * A failed model call. `name` uses the OpenAI Python SDK's class vocabulary (`APITimeoutError`,
 * `APIConnectionError`, `RateLimitError`, `BadRequestError`, `AuthenticationError`,
 * `InternalServerError`, …) because the original harnesses record it in their error categories.
 * The message never contains the API key.
 */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** How many attempts were made before giving up; set by the retry policy on the error it finally throws. */
  attempts?: number;

  constructor(init: {
    name: string;
    kind: ProviderErrorKind;
    message: string;
    status?: number;
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.name = init.name;
    this.kind = init.kind;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
  }

  get retryable(): boolean {
    return this.kind !== "auth" && this.kind !== "bad_request";
  }
}
