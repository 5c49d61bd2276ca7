// Critics: configuration, prompt rendering, the exact request, and one judged call (spec cross-judge.md §2).
// Model access is a parameter: `connect` turns a resolved endpoint into a ChatClient, so this file never
// performs I/O itself and tests can observe the exact URL, headers and body.
import type { ChatClient, ChatRequest, ChatResponse } from "../../providers/types.ts";
import { errorVerdict, parseVerdict } from "./parse.ts";
import { pyStr } from "./pyconv.ts";
import type { Verdict } from "./types.ts";

export const DEFAULT_PROMPT_TEMPLATE = "Judge the following query:\n{query}\n\nOutput JSON with kind (KEEP/REJECT/SPLIT/MERGE), confidence (0-1), reasoning.";
export const DEFAULT_SYSTEM_PROMPT = "You are a careful judge. Output strict JSON only.";

/**
 * Vendor presets (spec §2 table; keys are exact-case, r11). `together` is an addition of this port
 * (OpenAI-compatible endpoint), not in the reference.
 */
export const VENDORS: Readonly<Record<string, { baseUrl: string; envKey: string }>> = {
  deepseek: { baseUrl: "https://api.deepseek.com/v1", envKey: "DEEPSEEK_API_KEY" },
  openai: { baseUrl: "https://api.openai.com/v1", envKey: "OPENAI_API_KEY" },
  openrouter: { baseUrl: "https://openrouter.ai/api/v1", envKey: "OPENROUTER_API_KEY" },
  together: { baseUrl: "https://api.together.xyz/v1", envKey: "TOGETHER_API_KEY" },
};

/** A critic (spec §2); defaults are the reference's. `weight` is read by the weighted strategy only. */
export type Critic = {
  name: string;
  model: string;
  vendor?: string;
  base_url?: string | null;
  api_key?: string | null;
  temperature?: number;
  max_tokens?: number;
  system_prompt?: string;
  prompt_template?: string;
  weight?: number;
};

/**
 * Python `str.format` subset: `{name}` from `vars`, `{{` and `}}` as literal braces (spec §2).
 * @throws RangeError naming the key when a placeholder has no value (the reference's KeyError, r05),
 * or for an unmatched single brace.
 */
export function renderPrompt(template: string, vars: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (m, name: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    if (name === undefined) throw new RangeError("renderPrompt: single '" + m + "' in prompt_template (write '" + m + m + "' for a literal brace)");
    if (!Object.hasOwn(vars, name)) throw new RangeError(`renderPrompt: prompt_template missing required key '${name}' in context. Provided keys: ${JSON.stringify(Object.keys(vars))}`);
    const v = vars[name];
    return pyStr(v); // str.format renders non-strings with str()
  });
}

/** Where and how a critic's request goes. `headers` are exactly the reference's two. */
export type CriticEndpoint = { url: string; baseUrl: string; apiKey: string; headers: { Authorization: string; "Content-Type": "application/json" } };

/** @throws RangeError for a vendor without preset and no base_url (spec §2 step 2, r06, r11). */
export function resolveBaseUrl(critic: Critic): string {
  if (critic.base_url) return critic.base_url;
  const vendor = critic.vendor ?? "deepseek";
  const preset = VENDORS[vendor];
  if (!preset) throw new RangeError(`resolveBaseUrl: unknown vendor '${vendor}'. Pass base_url explicitly for custom vendors.`);
  return preset.baseUrl;
}

/** api_key, else the vendor's env var; null when neither is set (the caller turns that into an ERROR verdict). */
export function resolveApiKey(critic: Critic, env: Readonly<Record<string, string | undefined>> = {}): { key: string | null; missing: string } {
  if (critic.api_key) return { key: critic.api_key, missing: "" };
  const vendor = critic.vendor ?? "deepseek";
  const preset = VENDORS[vendor];
  if (!preset) return { key: null, missing: `Missing api_key for vendor '${vendor}'. Pass api_key=... explicitly.` };
  return { key: env[preset.envKey] || null, missing: `Missing API key for vendor '${vendor}'. Set ${preset.envKey} env var or pass api_key=... explicitly.` };
}

/**
 * The chat request for a critic and an item (spec §2 "Request"): body keys model, messages, temperature,
 * max_tokens in that order; the system message is omitted when system_prompt is "" (r03). Variables are
 * `context` plus `query` unless the context has its own `query` (r09).
 * @throws RangeError from {@link renderPrompt}.
 */
export function buildChatRequest(critic: Critic, query: string, context: Readonly<Record<string, unknown>> = {}): ChatRequest {
  const vars = Object.hasOwn(context, "query") ? context : { ...context, query };
  const user = renderPrompt(critic.prompt_template ?? DEFAULT_PROMPT_TEMPLATE, vars);
  const system = critic.system_prompt ?? DEFAULT_SYSTEM_PROMPT;
  return {
    model: critic.model,
    messages: [...(system === "" ? [] : [{ role: "system" as const, content: system }]), { role: "user", content: user }],
    temperature: critic.temperature ?? 0,
    max_tokens: critic.max_tokens ?? 2000,
  };
}

export type JudgeOptions = {
  context?: Readonly<Record<string, unknown>>;
  env?: Readonly<Record<string, string | undefined>>;
  /** Builds the client for a resolved endpoint (the route layer binds base URL and key). */
  connect: (endpoint: CriticEndpoint) => ChatClient;
  /** Milliseconds clock for elapsed_s; injected so tests are deterministic. */
  now?: () => number;
  signal?: AbortSignal;
};

/**
 * One critic judges one item (spec §2 order of failure points). Throws (not an ERROR verdict) for a
 * template key error or an unknown vendor, as the reference does; a missing key, any call failure, a
 * malformed body → ERROR verdict "<ErrorName>: <message>"; blank content → ERROR "empty_response";
 * otherwise {@link parseVerdict}.
 */
export async function judgeCritic(critic: Critic, query: string, { context = {}, env = {}, connect, now = () => performance.now(), signal }: JudgeOptions): Promise<Verdict> {
  const request = buildChatRequest(critic, query, context);
  const baseUrl = resolveBaseUrl(critic);
  const t0 = now();
  const elapsed = () => Math.round(now() - t0) / 1000;
  let content: string | null;
  try {
    const { key, missing } = resolveApiKey(critic, env);
    if (key === null) throw Object.assign(new Error(missing), { name: "MissingApiKey" });
    const url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
    const client = connect({ url, baseUrl, apiKey: key, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" } });
    const response: ChatResponse = await client.chat(request, { signal });
    const message = response?.choices?.[0]?.message;
    if (!message) throw Object.assign(new Error("response has no choices[0].message"), { name: "MalformedResponse" });
    content = message.content ?? "";
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return errorVerdict(critic.name, `${e.name}: ${e.message}`, elapsed());
  }
  return parseVerdict(content, critic.name, elapsed());
}
