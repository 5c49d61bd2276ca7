/**
 * The one model interface, owned by the engines (DESIGN "Layers"): an engine is given a `ChatClient` and
 * never knows which implementation answers. The platform's implementations live in src/providers (the
 * OpenAI-compatible client and the `sim:*` simulator); src/providers/types.ts re-exports these types, so
 * the platform can keep importing them from its providers' front door.
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
export type ToolDefinition = {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
};

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
   * How many HTTP attempts this answer took (1 = no retry). Set by the platform's retry policy
   * (src/providers/retry.ts) so it can count retries; absent for clients that never retry (the simulator).
   */
  attempts?: number;
};

export type ChatOptions = { signal?: AbortSignal };

/** What an engine calls a model through: one `chat()` (STYLE §9). Failures are thrown; engines record them. */
export interface ChatClient {
  chat(request: ChatRequest, options?: ChatOptions): Promise<ChatResponse>;
}
