/**
 * One replay of the tool-calling conversation (spec chain-determinism.md §2, §2b). Pure apart from
 * the injected `ChatClient`: no clock, no randomness, no network of its own.
 */
import type { ChatClient, ChatMessage, ChatRequest, ToolCall, ToolDefinition, Usage } from "../model.ts";
import { parsePyJson, toPlain, type PyPlain } from "../python/index.ts";
import { headCodePoints, lenCodePoints, pyRepr, pyStrRepr } from "../python/index.ts";
import { scrub } from "./scrub.ts";

/** One recorded call: `{name, args, tool_call_id[, args_malformed: true]}` in the reference's key order. */
export type ToolCallEntry = { name: string; args: PyPlain; tool_call_id: string; args_malformed?: true };

/**
 * The per-replay record of §2/§7 without the `query_id`, `query_type`, `run_idx` the platform adds.
 * `final_answer` is `args.answer` as the model sent it: normally a string, but the reference keeps a
 * non-string answer (e.g. `3`) as is, so we do too; `""` when absent or the args were malformed.
 */
export type ReplayRecord = {
  tool_call_sequence: ToolCallEntry[];
  final_answer: PyPlain | null;
  rationale: string;
  n_tool_calls: number;
  error_category: string | null;
};

/** What the endpoint reported for one answered request; ours, kept apart from the reference record. */
export type TurnInfo = {
  system_fingerprint: string | null;
  model: string | null;
  provider: string | null;
  usage: Usage | null;
};

export type ReplayResult = { record: ReplayRecord; turns: TurnInfo[] };

/**
 * A replay stopped between two turns (see `stepReplay`): the conversation so far (the next request's
 * messages, the tool calls' arguments as the endpoint sent them) and what each response reported.
 * Plain JSON (strings and integers), so it can be stored as text and the replay continued elsewhere
 * with the very requests it would have sent; the recorded sequence and rationale are read back from
 * the conversation, so no parsed argument has to survive storage. `turn`: requests answered so far.
 */
export type ReplayState = { turn: number; messages: ChatMessage[]; turns: TurnInfo[] };

export type ReplayOptions = {
  chat: ChatClient;
  model: string;
  systemPrompt: string;
  /** The fully rendered user message. */
  user: string;
  /** Sent as `tools` on every request, in this order. */
  tools: ToolDefinition[];
  /** Tool name → the exact `tool` message content; every name the model may call except `final_answer`. */
  stubs: Record<string, string>;
  temperature?: number;
  /** Chat-completion requests per replay (not tool calls). */
  maxTurns?: number;
  maxTokens?: number;
  toolChoice?: "auto" | "none" | "required";
  /** Sent only when given (the reference sends none). */
  seed?: number;
  signal?: AbortSignal;
};

export type StepOptions = ReplayOptions & {
  /** Continues the replay from where an earlier call stopped it; updated in place as the replay goes on. */
  from?: ReplayState;
  /** Asked before every request: false stops the replay there (the platform's invocation is running out). */
  beforeTurn?: () => boolean;
};

const TERMINAL = "final_answer";

/** Thrown for a tool name without a stub; named as the reference's exception class (§2b). */
class UnknownToolError extends Error {
  constructor(tool: string) {
    super(`unknown tool '${tool}': the suite has no stub response for it, and a fallback would change the chain`);
    this.name = "KeyError";
  }
  // Python's str(KeyError(msg)) is repr(msg), hence the quotes in the reference's text.
  override toString(): string {
    return pyStrRepr(this.message);
  }
}

function errorName(e: unknown): string {
  return e instanceof Error && e.name ? e.name : "Error";
}

/**
 * Runs one replay (§2): system + user messages, then at most `maxTurns` requests, each carrying
 * exactly `model, messages, tools, temperature, max_tokens, tool_choice[, seed]` in that order.
 * Every tool call is recorded in arrival order with losslessly parsed args; non-terminal calls are
 * answered with their stub; a turn containing `final_answer` ends the replay after all its calls.
 * Endings: `final_answer`, a text-only turn, or the turn cap — all with `error_category: null`;
 * a thrown request → `api_error: <ErrorName>: <first 160 code points of message>` (scrubbed, partial
 * sequence kept); no choices → `empty_choices`; any other exception (an unknown tool name) →
 * `replay_exception: <ErrorName>: …` with the sequence discarded (§2b). Never throws.
 * `turns` holds the fingerprint, model, provider and usage of every response received.
 * @throws RangeError for a non-positive or non-integer `maxTurns`/`maxTokens`.
 */
export async function runReplay(options: ReplayOptions): Promise<ReplayResult> {
  return (await stepReplay(options)) as ReplayResult;
}

/**
 * `runReplay` in steps: with `beforeTurn`, the replay stops before a request when it answers false
 * and returns `{ paused }`, its state; `stepReplay({ ...options, from: paused })` then continues it
 * with exactly the requests an unbroken replay sends, so the record is the same however many times
 * it was stopped. Without `beforeTurn` it never pauses.
 * @throws RangeError as `runReplay`.
 */
export async function stepReplay(options: StepOptions): Promise<ReplayResult | { paused: ReplayState }> {
  const { maxTurns = 10, maxTokens = 1024 } = options;
  if (!Number.isInteger(maxTurns) || maxTurns < 1)
    throw new RangeError(`runReplay: maxTurns must be a positive integer, got ${maxTurns}`);
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw new RangeError(`runReplay: maxTokens must be a positive integer, got ${maxTokens}`);
  const state: ReplayState = options.from ?? {
    turn: 0,
    messages: [
      { role: "system", content: options.systemPrompt },
      { role: "user", content: options.user },
    ],
    turns: [],
  };
  const turns = state.turns;
  try {
    const record = await loop(options, maxTurns, maxTokens, state);
    return record === PAUSED ? { paused: state } : { record, turns };
  } catch (e) {
    const text = e instanceof UnknownToolError ? e.toString() : e instanceof Error ? e.message : String(e);
    const record: ReplayRecord = {
      tool_call_sequence: [],
      final_answer: null,
      rationale: "",
      n_tool_calls: 0,
      error_category: scrub(`replay_exception: ${errorName(e)}: ${headCodePoints(text, 160)}`),
    };
    return { record, turns };
  }
}

const PAUSED = Symbol("paused");

/** The turns from `state` on; `state` is kept up to date after each turn, so a pause leaves it ready to continue. */
async function loop(
  o: StepOptions,
  maxTurns: number,
  maxTokens: number,
  state: ReplayState,
): Promise<ReplayRecord | typeof PAUSED> {
  const { chat, model, tools, stubs, temperature = 0, toolChoice = "auto", seed, signal } = o;
  const { messages, turns } = state;
  const sequence: ToolCallEntry[] = [];
  const rationale: string[] = [];
  // What the turns before a pause recorded, from their assistant messages as the loop below wrote them.
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    if (m.content) rationale.push(m.content);
    for (const call of m.tool_calls ?? []) sequence.push(entryOf(call).entry);
  }
  let finalAnswer: PyPlain | null = null;
  let errorCategory: string | null = null;

  for (; state.turn < maxTurns; state.turn++) {
    if (o.beforeTurn && !o.beforeTurn()) return PAUSED;
    // A copy per request: later turns append to `messages`, and a client may keep the request.
    const request: ChatRequest = {
      model,
      messages: messages.slice(),
      tools,
      temperature,
      max_tokens: maxTokens,
      tool_choice: toolChoice,
    };
    if (seed !== undefined) request.seed = seed;
    let response;
    try {
      response = await chat.chat(request, signal ? { signal } : undefined);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      errorCategory = scrub(`api_error: ${errorName(e)}: ${headCodePoints(message, 160)}`);
      break;
    }
    turns.push({
      system_fingerprint: response.system_fingerprint ?? null,
      model: response.model ?? null,
      provider: response.provider ?? null,
      usage: response.usage ?? null,
    });
    if (!response.choices || response.choices.length === 0) {
      errorCategory = "empty_choices";
      break;
    }
    const msg = response.choices[0].message;
    if (msg.content) rationale.push(msg.content);
    const calls: ToolCall[] = msg.tool_calls ?? [];
    if (calls.length === 0) break; // A text-only turn ends the replay as a success (§2).

    messages.push({
      role: "assistant",
      content: msg.content || "",
      // Arguments pass through exactly as received (possibly null): the endpoint sees its own text.
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.function.name, arguments: c.function.arguments },
      })),
    });
    let sawFinal = false;
    for (const call of calls) {
      const { name } = call.function;
      const { entry, parsed } = entryOf(call);
      sequence.push(entry);
      if (name === TERMINAL) {
        sawFinal = true;
        finalAnswer = parsed.malformed ? "" : answerOf(parsed.args);
        continue;
      }
      if (!Object.hasOwn(stubs, name) || typeof stubs[name] !== "string") throw new UnknownToolError(name);
      messages.push({ role: "tool", tool_call_id: call.id, content: stubs[name] });
    }
    if (sawFinal) break;
  }
  return {
    tool_call_sequence: sequence,
    final_answer: finalAnswer,
    rationale: rationale.join("\n"),
    n_tool_calls: sequence.length,
    error_category: errorCategory,
  };
}

/** One recorded call of the sequence, from the call as the endpoint sent it. */
function entryOf(call: ToolCall): { entry: ToolCallEntry; parsed: { args: PyPlain; malformed: boolean } } {
  const parsed = parseArguments(call.function.arguments);
  const entry: ToolCallEntry = { name: call.function.name, args: parsed.args, tool_call_id: call.id };
  if (parsed.malformed) entry.args_malformed = true;
  return { entry, parsed };
}

function answerOf(args: PyPlain): PyPlain {
  const obj = args as { [key: string]: PyPlain };
  return Object.hasOwn(obj, "answer") ? obj.answer : "";
}

/**
 * The §2 argument rule, shared with the parity tests: null/empty → `"{}"`; a JSON object → its
 * value (lossless); other JSON → malformed `{_raw_value_repr: repr[:120]}`; unparsable →
 * malformed `{_raw_arguments_len, _raw_arguments_head: raw[:80]}` (lengths in code points).
 */
export function parseArguments(raw: string | null | undefined): { args: PyPlain; malformed: boolean } {
  const text = raw || "{}";
  const r = parsePyJson(text);
  if (r.ok && r.value.t === "dict") return { args: toPlain(r.value), malformed: false };
  if (r.ok) return { args: { _raw_value_repr: headCodePoints(pyRepr(r.value), 120) }, malformed: true };
  return {
    args: { _raw_arguments_len: lenCodePoints(text), _raw_arguments_head: headCodePoints(text, 80) },
    malformed: true,
  };
}
