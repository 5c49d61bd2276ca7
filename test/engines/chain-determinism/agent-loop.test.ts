import { describe, expect, it } from "vitest";
import type { ChatClient, ChatRequest, ChatResponse, ToolDefinition } from "../../../src/providers/types.ts";
import { runReplay, type ReplayOptions } from "../../../src/engines/chain-determinism/index.ts";
import { referenceFiles } from "../../support/reference.ts";

const { json: refJson, lines: refLines } = referenceFiles("chain-determinism");

type Script =
  | { raise: string; message: string }
  | { empty_choices: true }
  | { content?: string | null; tool_calls?: Array<{ id: string; name: string; arguments: string | null }> };

/** A ChatClient that answers from a script and records every request as it was at call time. */
function scripted(script: Script[]): ChatClient & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  let n = 0;
  return {
    requests,
    async chat(request) {
      requests.push(structuredClone(request));
      const step = script[n++];
      if (!step) throw new Error("script exhausted");
      if ("raise" in step) {
        const e = new Error(step.message);
        e.name = step.raise; // the SDK class name, as ProviderError carries it
        throw e;
      }
      const meta = { model: "routed-model", system_fingerprint: `fp_${n}`, provider: "prov", usage: { prompt_tokens: n, completion_tokens: 1, total_tokens: n + 1 } };
      if ("empty_choices" in step) return { ...meta, choices: [] } satisfies ChatResponse;
      const tool_calls = step.tool_calls?.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
      return { ...meta, choices: [{ message: { role: "assistant", content: step.content ?? null, ...(tool_calls ? { tool_calls } : {}) }, finish_reason: "stop" }] };
    },
  };
}

// The reference suite, assembled from the reference files (spec §2 "System prompt / user message").
const tools = refJson<ToolDefinition[]>("tools.json");
const stubs = refJson<Record<string, string>>("stub_responses.json");
const prompts = refJson<{ system_prompt: string; user_message_template_lines: string[]; user_message_example_query_0: string }>("prompts.json");
const queries = refJson<Array<{ query_id: string; query_type: string; kb_id: string; target_term: string; question: string }>>("queries.json");

// Template lines: [0] kb line, [1] hint, [2] target line (annotated "<- only if ..."), [3] "",
// [4] question, [5] "", [6] closing. The header lines join with "\n", then "\n\nQuestion: ...\n\n" + closing.
function renderUser(q: (typeof queries)[number]): string {
  const t = prompts.user_message_template_lines;
  const header = [t[0].replace("{kb_id}", q.kb_id), t[1]];
  if (q.target_term) header.push(t[2].split("   <- ")[0].replace("{target_term}", q.target_term));
  return header.join("\n") + "\n\nQuestion: " + q.question + "\n\n" + t[6];
}

const vectors = refLines("agent_loop_vectors.jsonl").map((l, i) => ({ i, ...JSON.parse(l) }));
const IDS = ["query_id", "query_type", "run_idx"];

describe("reference suite assembly", () => {
  it("renders query 0 exactly as prompts.json's example", () => {
    expect(renderUser(queries[0])).toBe(prompts.user_message_example_query_0);
  });

  it("has 22 tools and a stub for each of the 21 primitives", () => {
    expect(tools).toHaveLength(22);
    expect(Object.keys(stubs).sort()).toEqual(tools.map((t) => t.function.name).filter((n) => n !== "final_answer").sort());
  });
});

describe("agent_loop_vectors.jsonl", () => {
  it("has the 11 lines the README announces", () => {
    expect(vectors).toHaveLength(11);
  });

  it.each(vectors.map((v) => [v.i, v.desc, v] as const))("line %i (%s)", async (_i, _d, v) => {
    const q = queries[v.query_index];
    const chat = scripted(v.script);
    const options: ReplayOptions = { chat, model: "test-model", systemPrompt: prompts.system_prompt, user: renderUser(q), tools, stubs };
    const { record, turns } = await runReplay(options);
    const e = v.expected;

    // The record, minus the ids the platform adds (the reference row's query_id etc. are ours to add).
    expect(e.record.query_id).toBe(q.query_id);
    expect(e.record.run_idx).toBe(0);
    const want = Object.fromEntries(Object.entries(e.record).filter(([k]) => !IDS.includes(k)));
    if (String(want.error_category).startsWith("replay_exception: KeyError: ")) {
      // §2b: only the prefix and the named tool must match; the rest of the message is our wording.
      const name = /unknown primitive '([^']+)'/.exec(want.error_category as string)![1];
      expect(record.error_category).toMatch(new RegExp(`^replay_exception: KeyError: ".*'${name}'`));
      expect({ ...record, error_category: null }).toEqual({ ...want, error_category: null });
    } else {
      expect(record).toEqual(want);
    }
    expect(Object.keys(record)).toEqual(Object.keys(want));

    expect(chat.requests).toHaveLength(e.n_requests);
    expect(chat.requests.map((r) => r.messages.length)).toEqual(e.request_message_counts);
    // Fixed params, in the reference key order; `tools` is the whole tools.json array.
    const params = { ...e.request_params, tools };
    for (const r of chat.requests) {
      expect(Object.keys(r)).toEqual(["model", "messages", "tools", "temperature", "max_tokens", "tool_choice"]);
      const { messages: _m, ...rest } = r;
      expect(JSON.stringify(rest)).toBe(JSON.stringify(params));
    }
    const last = chat.requests.at(-1)!.messages;
    expect(last).toEqual(e.last_request_messages);
    expect(JSON.stringify(last)).toBe(JSON.stringify(e.last_request_messages)); // key order too
    for (const r of chat.requests) expect(r.messages).toEqual(last.slice(0, r.messages.length));

    // Our per-turn extras: one per answered request (a raised request has none).
    const answered = v.script.slice(0, e.n_requests).filter((s: Script) => !("raise" in s)).length;
    expect(turns).toHaveLength(answered);
    turns.forEach((t, k) => expect(t).toEqual({ system_fingerprint: `fp_${k + 1}`, model: "routed-model", provider: "prov", usage: { prompt_tokens: k + 1, completion_tokens: 1, total_tokens: k + 2 } }));
  });
});

describe("runReplay", () => {
  const base = (chat: ChatClient): ReplayOptions => ({ chat, model: "m", systemPrompt: "s", user: "u", tools, stubs });

  it("sends seed only when given, after tool_choice", async () => {
    const chat = scripted([{ content: "done" }]);
    await runReplay({ ...base(chat), seed: 7, temperature: 0.5, maxTokens: 64, toolChoice: "required" });
    expect(Object.keys(chat.requests[0])).toEqual(["model", "messages", "tools", "temperature", "max_tokens", "tool_choice", "seed"]);
    expect(chat.requests[0]).toMatchObject({ temperature: 0.5, max_tokens: 64, tool_choice: "required", seed: 7 });
  });

  it("stops after maxTurns requests without an error", async () => {
    const step = { content: null, tool_calls: [{ id: "x", name: "count", arguments: "{}" }] };
    const chat = scripted(Array(5).fill(step));
    const { record } = await runReplay({ ...base(chat), maxTurns: 3 });
    expect(chat.requests).toHaveLength(3);
    expect(record).toMatchObject({ n_tool_calls: 3, error_category: null, final_answer: null });
  });

  it("keeps 1.0 and big ints in recorded args and scrubs a thrown secret", async () => {
    const chat = scripted([
      { content: null, tool_calls: [{ id: "a", name: "take", arguments: '{"n": 1.0, "big": 12345678901234567890}' }] },
      { raise: "AuthenticationError", message: "bad key sk-abcdefghijklmnop" },
    ]);
    const { record } = await runReplay(base(chat));
    expect(JSON.stringify(record.tool_call_sequence[0].args)).toBe('{"n":1.0,"big":12345678901234567890}');
    expect(record.error_category).toBe("api_error: AuthenticationError: bad key sk-<REDACTED>");
  });

  it("rejects a bad maxTurns", async () => {
    await expect(runReplay({ ...base(scripted([])), maxTurns: 0 })).rejects.toThrow(/maxTurns/);
  });
});
