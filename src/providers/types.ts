/**
 * The one model interface. Engines receive a `ChatClient` and never import a provider; the
 * OpenAI-compatible client and the `sim:*` simulator both implement it.
 */

export type ToolCall = {
  id: string;
  type: "function";
  /** `arguments` is the raw string the endpoint sent (possibly null): engines parse it themselves, losslessly. */
  function: { name: string; arguments: string | null };
};

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** An OpenAI tool definition, passed through unchanged. */
export type ToolDefinition = { type: "function"; function: { name: string; description?: string; parameters?: unknown } };

/**
 * A chat-completions request. Implementations send exactly the fields that are present, in this
 * order, so a request body can be compared with the original tools' bodies.
 */
export type ChatRequest = {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  temperature?: number;
  max_tokens?: number;
  tool_choice?: "auto" | "none" | "required";
  seed?: number;
  response_format?: { type: "json_object" | "text" };
};

export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

export type ChatResponse = {
  id?: string;
  /** The model the endpoint says answered (may differ from the requested one, e.g. behind a router). */
  model?: string;
  system_fingerprint?: string | null;
  /** The upstream provider, where a router reports it (OpenRouter's `provider` field). */
  provider?: string;
  choices: Array<{
    message: { role?: string; content: string | null; tool_calls?: ToolCall[] };
    finish_reason?: string | null;
  }>;
  usage?: Usage;
  /**
   * How many HTTP attempts this answer took (1 = no retry). Set by the retry policy (retry.ts) so the
   * platform can count retries; absent for clients that never retry (the simulator).
   */
  attempts?: number;
};

export type ChatOptions = { signal?: AbortSignal };

export interface ChatClient {
  chat(request: ChatRequest, options?: ChatOptions): Promise<ChatResponse>;
}

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

  constructor(init: { name: string; kind: ProviderErrorKind; message: string; status?: number; retryAfterMs?: number; cause?: unknown }) {
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
