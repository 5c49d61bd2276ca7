// Critics: configuration, prompt rendering, the exact request body, and one judged call (spec cross-judge.md §2).
// Model access is a parameter: `connect` gives the critic's ChatClient, so this file performs no I/O and
// knows no endpoint, key or vendor. Where a critic's request goes is the platform's business (the vendor
// presets are in src/providers/vendors.ts); tests observe the exact body and the client's failures.
import type { ChatClient, ChatRequest, ChatResponse } from "../model.ts";
import { pyStr } from "../python/index.ts";
import { errorVerdict, parseVerdict } from "./parse.ts";
import type { Verdict } from "./types.ts";

export const DEFAULT_PROMPT_TEMPLATE =
  "Judge the following query:\n{query}\n\nOutput JSON with kind (KEEP/REJECT/SPLIT/MERGE), confidence (0-1), reasoning.";
export const DEFAULT_SYSTEM_PROMPT = "You are a careful judge. Output strict JSON only.";
/** cross-judge's system prompt for a YAML prompt file without `system_prompt` (Critic.from_yaml_prompt, spec §8): not the Critic default. */
export const YAML_DEFAULT_SYSTEM_PROMPT = "You are a careful judge.";

/**
 * A critic (spec §2); defaults are the reference's. `weight` is read by the weighted strategy only.
 * `vendor`, `base_url` and `api_key` belong to the spec's critic record but say where the request goes:
 * the engine never reads them; whoever builds `connect` does.
 */
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
    if (name === undefined)
      throw new RangeError(
        "renderPrompt: single '" + m + "' in prompt_template (write '" + m + m + "' for a literal brace)",
      );
    if (!Object.hasOwn(vars, name))
      throw new RangeError(
        `renderPrompt: prompt_template missing required key '${name}' in context. Provided keys: ${JSON.stringify(Object.keys(vars))}`,
      );
    const v = vars[name];
    return pyStr(v); // str.format renders non-strings with str()
  });
}

/**
 * The chat request for a critic and an item (spec §2 "Request"): body keys model, messages, temperature,
 * max_tokens in that order; the system message is omitted when system_prompt is "" (r03). Variables are
 * `context` plus `query` unless the context has its own `query` (r09).
 * @throws RangeError from {@link renderPrompt}.
 */
export function buildChatRequest(
  critic: Critic,
  query: string,
  context: Readonly<Record<string, unknown>> = {},
): ChatRequest {
  const vars = Object.hasOwn(context, "query") ? context : { ...context, query };
  const user = renderPrompt(critic.prompt_template ?? DEFAULT_PROMPT_TEMPLATE, vars);
  const system = critic.system_prompt ?? DEFAULT_SYSTEM_PROMPT;
  return {
    model: critic.model,
    messages: [
      ...(system === "" ? [] : [{ role: "system" as const, content: system }]),
      { role: "user", content: user },
    ],
    temperature: critic.temperature ?? 0,
    max_tokens: critic.max_tokens ?? 2000,
  };
}

export type JudgeOptions = {
  context?: Readonly<Record<string, unknown>>;
  /**
   * Gives the critic's model client. Called once per judgement, after the prompt has rendered and inside
   * the failure boundary: whatever it throws (no key for the endpoint, a refused destination) becomes the
   * critic's ERROR verdict, as a failed call does.
   */
  connect: () => ChatClient;
  /** Milliseconds clock for elapsed_s; injected so tests are deterministic. */
  now?: () => number;
  signal?: AbortSignal;
};

/**
 * One critic judges one item (spec §2 order of failure points). Throws (not an ERROR verdict) for a
 * template key error, as the reference does; a failure to connect, any call failure, a malformed body →
 * ERROR verdict "<ErrorName>: <message>"; blank content → ERROR "empty_response"; otherwise
 * {@link parseVerdict}.
 */
export async function judgeCritic(
  critic: Critic,
  query: string,
  { context = {}, connect, now = () => performance.now(), signal }: JudgeOptions,
): Promise<Verdict> {
  const request = buildChatRequest(critic, query, context);
  const t0 = now();
  const elapsed = () => Math.round(now() - t0) / 1000;
  let content: string | null;
  try {
    const client = connect();
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
