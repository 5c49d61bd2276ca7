/**
 * The simulator's tool-calling agent. For a conversation with `tools` it plays an agent that makes
 * a short, deterministic plan of tool calls and then calls `final_answer`.
 *
 * The *modal plan* depends on (model, seed, first user message, tool names) only: 2–6 calls among
 * the offered tools other than `final_answer`, grouped into assistant messages (usually one call per
 * message, sometimes two or three at once). Turn t (= assistant messages already in the request)
 * gets message t of the plan; after the plan, `final_answer`.
 *
 * Divergence: a replay deviates from the modal plan with probability `divergence`, decided by
 * hash(model, seed, user message, replay). A deviating replay changes exactly one call, chosen by
 * the same hash: another tool, or the same tool with other arguments, or, if neither can differ
 * (one tool without parameters), the call repeated. So `divergence: 0` makes every replay identical
 * and `divergence: 1` makes every replay differ from the modal plan (not necessarily from each other).
 */
import type { ToolCall, ToolDefinition } from "../types.ts";
import { hexOf, pick, rngOf } from "./hash.ts";
import type { SimContext, SimReply } from "./types.ts";

type Call = { name: string; arguments: string };

const FINAL = "final_answer";

/** The agent responder: answers any request that offers tools (unless `tool_choice: "none"`). */
export function toolAgent(ctx: SimContext): SimReply | undefined {
  const tools = (ctx.request.tools ?? []).filter((t) => typeof t?.function?.name === "string");
  if (tools.length === 0 || ctx.request.tool_choice === "none") return undefined;
  const plan = planFor(ctx, tools);
  const toolCall = (call: Call, i: number): ToolCall => ({
    id: `call_${hexOf("id", ctx.model, ctx.seed, ctx.userText, ctx.turn, i, call.name, call.arguments)}`,
    type: "function",
    function: call,
  });
  if (ctx.turn < plan.length) {
    return { content: null, tool_calls: plan[ctx.turn].map(toolCall), finish_reason: "tool_calls" };
  }
  // The answer depends on the calls actually made, so a diverged replay answers differently too.
  const words = wordsOf(ctx.userText);
  const signature = JSON.stringify(plan);
  const word = words.length ? words[pick(rngOf("answer", signature), words.length)] : "unknown";
  const answer = `The answer is ${word} (sim ${hexOf(signature).slice(0, 6)}).`;
  const final = tools.find((t) => t.function.name === FINAL);
  if (!final) return { content: answer, finish_reason: "stop" };
  return {
    content: null,
    tool_calls: [toolCall({ name: FINAL, arguments: finalArguments(final, answer) }, 0)],
    finish_reason: "tool_calls",
  };
}

/** The plan this replay follows: the modal plan, or it with one call changed. Grouped by message. */
function planFor(ctx: SimContext, tools: ToolDefinition[]): Call[][] {
  const work = tools.filter((t) => t.function.name !== FINAL);
  if (work.length === 0) return [];
  const key = [ctx.model, ctx.seed, ctx.userText, work.map((t) => t.function.name).join(",")] as const;
  const words = wordsOf(ctx.userText);
  const random = rngOf("plan", ...key);
  const count = 2 + pick(random, 5); // 2..6 calls
  const calls: Call[] = [];
  for (let i = 0; i < count; i++) calls.push(callOf(work[pick(random, work.length)], random, words));

  // Message sizes come from the modal key only, so a deviation changes one call, never the grouping.
  const sizes: number[] = [];
  const grouping = rngOf("group", ...key);
  for (let left = count; left > 0; ) {
    const size = Math.min(left, grouping() < 0.2 ? 2 + pick(grouping, 2) : 1);
    sizes.push(size);
    left -= size;
  }

  const deviates = ctx.divergence > 0 && rngOf("diverge", ...key, ctx.replay)() < ctx.divergence;
  if (deviates) deviate(calls, work, rngOf("deviate", ...key, ctx.replay), words, sizes);

  const plan: Call[][] = [];
  let at = 0;
  for (const size of sizes) {
    plan.push(calls.slice(at, at + size));
    at += size;
  }
  return plan;
}

function deviate(calls: Call[], work: ToolDefinition[], random: () => number, words: string[], sizes: number[]): void {
  const k = pick(random, calls.length);
  const original = calls[k];
  const index = work.findIndex((t) => t.function.name === original.name);
  const otherTool = () => {
    const tool = work[(index + 1 + pick(random, work.length - 1)) % work.length];
    calls[k] = callOf(tool, random, words);
  };
  if (work.length > 1 && random() < 0.5) return otherTool();
  for (let tries = 0; tries < 8; tries++) {
    const again = callOf(work[index], random, words);
    if (again.arguments !== original.arguments) {
      calls[k] = again;
      return;
    }
  }
  if (work.length > 1) return otherTool();
  // One tool whose arguments cannot vary: repeat the call, in a message of its own.
  calls.splice(k, 0, original);
  sizes.push(1);
}

function callOf(tool: ToolDefinition, random: () => number, words: string[]): Call {
  return {
    name: tool.function.name,
    arguments: JSON.stringify(valueFor(tool.function.parameters ?? { type: "object" }, random, words, 0)),
  };
}

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, unknown>;
  required?: string[];
  items?: unknown;
  minimum?: number;
  maximum?: number;
};

/**
 * A plausible value for a JSON-schema: an enum member, a small integer (1–5, shifted into
 * [minimum, maximum]), a word of the user's message or `"v<n>"` for strings, and for objects
 * their `required` properties only (so the arguments stay short and always valid).
 */
function valueFor(raw: unknown, random: () => number, words: string[], depth: number): unknown {
  if (typeof raw !== "object" || raw === null) return `v${1 + pick(random, 9)}`;
  const schema = raw as Schema;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[pick(random, schema.enum.length)];
  if ("const" in schema) return schema.const;
  const type = Array.isArray(schema.type)
    ? schema.type.find((t) => t !== "null")
    : (schema.type ?? (schema.properties ? "object" : "string"));
  switch (type) {
    case "integer":
    case "number": {
      const low = typeof schema.minimum === "number" ? Math.ceil(schema.minimum) : 1;
      const value = low + pick(random, 5);
      return typeof schema.maximum === "number" ? Math.min(value, Math.floor(schema.maximum)) : value;
    }
    case "boolean":
      return random() < 0.5;
    case "null":
      return null;
    case "array":
      return depth < 3 ? [valueFor(schema.items ?? { type: "string" }, random, words, depth + 1)] : [];
    case "object": {
      const out: Record<string, unknown> = {};
      if (depth >= 3) return out;
      for (const name of schema.required ?? [])
        out[name] = valueFor(schema.properties?.[name], random, words, depth + 1);
      return out;
    }
    default:
      return words.length > 0 && random() < 0.6 ? words[pick(random, words.length)] : `v${1 + pick(random, 9)}`;
  }
}

/** `final_answer`'s required string parameters get the answer (`{"answer": …}` if it declares none). */
function finalArguments(tool: ToolDefinition, answer: string): string {
  const schema = (tool.function.parameters ?? {}) as Schema;
  const required = schema.required?.length ? schema.required : ["answer"];
  const out: Record<string, unknown> = {};
  for (const name of required) {
    const prop = (schema.properties?.[name] ?? {}) as Schema;
    out[name] =
      prop.type === undefined || prop.type === "string" ? answer : valueFor(prop, rngOf("final", answer, name), [], 1);
  }
  return JSON.stringify(out);
}

/** Distinct lower-case words of 4+ letters or digits, in order of appearance. */
export function wordsOf(text: string): string[] {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 4);
  return [...new Set(words)];
}
