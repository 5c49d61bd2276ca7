/**
 * The built-in simulator: a `ChatClient` for models named `sim:<anything>` that answers with no
 * network, no key and no randomness beyond its seed, so `npm start` users and tests can run every
 * evaluator offline. Pure TypeScript (no node: imports): it runs in workerd and Node alike.
 *
 * One client plays one replay: the platform makes a client per unit with the run's `seed` and the
 * unit's `replay` index (run_idx). Same (model, seed, replay, request) → same response, always.
 *
 * Knobs (options, or overridden in the model name, e.g. `sim:agent?divergence=0.5&latency_ms=20`,
 * which is how an API user sets them without any extra field):
 * - `divergence` ∈ [0, 1], default 0.25: the probability that a replay's tool-call sequence deviates
 *   from the query's modal plan (see agent.ts). 0: all replays identical; 1: every replay deviates.
 * - `latencyMs` (in a model name: `latency_ms`) ≥ 0, default 0: wait this long before answering
 *   (demos, benchmarks).
 *
 * Answers come from `responders`, tried in order: by default the tool-calling agent (agent.ts),
 * the RPL answerer (a `prob_true` JSON object for RPL instructions, sim/rpl.ts), then a short
 * deterministic text reply. Evaluators that need other behaviour (a probability in
 * JSON, a judge's verdict) put their responder in front: `[myResponder, ...defaultResponders]`.
 *
 * Usage is estimated as ceil(characters / 4): prompt = the JSON of messages and tools, completion =
 * the content plus each call's name and arguments.
 */
import { abortableSleep } from "./retry.ts";
import type { ChatClient, ChatOptions, ChatRequest, ChatResponse } from "./types.ts";
import { toolAgent, wordsOf } from "./sim/agent.ts";
import { hexOf } from "./sim/hash.ts";
import { rplResponder } from "./sim/rpl.ts";
import type { SimContext, SimReply, SimResponder } from "./sim/types.ts";

export type { SimContext, SimReply, SimResponder } from "./sim/types.ts";

/** The default probability that a simulated replay departs from its query's usual tool sequence. */
export const SIM_DIVERGENCE = 0.25;

/** Bump when the simulator's answers change, so `system_fingerprint` tells old results from new. */
export const SIM_VERSION = "2";

export type SimClientOptions = {
  /** `sim:<name>[?divergence=…&latency_ms=…]`. */
  model: string;
  /** The run's seed; 64-bit seeds may be given as decimal strings or bigints. */
  seed?: number | string | bigint;
  /** The replay (run_idx) this client plays, 0-based. */
  replay?: number;
  divergence?: number;
  latencyMs?: number;
  responders?: SimResponder[];
};

/** True for model names the simulator answers: `sim:` followed by at least one character. */
export function isSimModel(model: string): boolean {
  return /^sim:./.test(model);
}

/** A short deterministic text reply that names a few words of the last user message; always answers. */
export const textResponder: SimResponder = (ctx) => {
  const last = [...ctx.request.messages].reverse().find((m) => m.role === "user");
  const text = last && "content" in last && typeof last.content === "string" ? last.content : "";
  const topic = wordsOf(text).slice(0, 5).join(" ") || "your message";
  const tag = hexOf("text", ctx.model, ctx.seed, JSON.stringify(ctx.request.messages)).slice(0, 6);
  return { content: `Simulated reply about ${topic} [${tag}].`, finish_reason: "stop" };
};

export const defaultResponders: readonly SimResponder[] = [toolAgent, rplResponder, textResponder];

export function createSimClient(options: SimClientOptions): ChatClient {
  const [base, query = ""] = options.model.split("?", 2);
  if (!isSimModel(base))
    throw new RangeError(`createSimClient: model must be "sim:<name>", got ${JSON.stringify(options.model)}`);
  const knobs = new URLSearchParams(query);
  const divergence = knob(knobs, "divergence") ?? options.divergence ?? SIM_DIVERGENCE;
  const latency = knob(knobs, "latency_ms") ?? options.latencyMs ?? 0;
  const replay = options.replay ?? 0;
  if (!(divergence >= 0 && divergence <= 1))
    throw new RangeError(`createSimClient: divergence must be in [0, 1], got ${divergence}`);
  if (!(latency >= 0)) throw new RangeError(`createSimClient: latency_ms must be ≥ 0, got ${latency}`);
  if (!Number.isInteger(replay) || replay < 0)
    throw new RangeError(`createSimClient: replay must be a non-negative integer, got ${replay}`);
  const seed = String(options.seed ?? 0);
  const responders = options.responders ?? defaultResponders;
  const fingerprint = `sim-${hexOf("fingerprint", SIM_VERSION, base)}`;

  return {
    async chat(request: ChatRequest, { signal }: ChatOptions = {}): Promise<ChatResponse> {
      if (signal?.aborted) throw signal.reason;
      if (latency > 0) await abortableSleep(latency, signal);
      const firstUser = request.messages.find((m) => m.role === "user");
      const ctx: SimContext = {
        request,
        model: base,
        seed,
        replay,
        divergence,
        userText: firstUser && typeof firstUser.content === "string" ? firstUser.content : "",
        turn: request.messages.filter((m) => m.role === "assistant").length,
      };
      const reply = respond(responders, ctx);
      return {
        id: `simcmpl-${hexOf("completion", base, seed, replay, JSON.stringify(request.messages))}`,
        model: request.model,
        system_fingerprint: fingerprint,
        provider: "assay-sim",
        choices: [
          {
            message: {
              role: "assistant",
              content: reply.content,
              ...(reply.tool_calls ? { tool_calls: reply.tool_calls } : {}),
            },
            finish_reason: reply.finish_reason,
          },
        ],
        usage: usageOf(request, reply),
      };
    },
  };
}

function respond(responders: readonly SimResponder[], ctx: SimContext): SimReply {
  for (const responder of responders) {
    const reply = responder(ctx);
    if (reply) return reply;
  }
  return textResponder(ctx)!;
}

function knob(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  return value === null ? undefined : Number(value);
}

function usageOf(request: ChatRequest, reply: SimReply) {
  const promptChars = JSON.stringify({ messages: request.messages, tools: request.tools ?? [] }).length;
  const completionChars =
    (reply.content?.length ?? 0) +
    (reply.tool_calls ?? []).reduce((n, c) => n + c.function.name.length + (c.function.arguments?.length ?? 0), 0);
  const prompt_tokens = Math.ceil(promptChars / 4);
  const completion_tokens = Math.ceil(completionChars / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
