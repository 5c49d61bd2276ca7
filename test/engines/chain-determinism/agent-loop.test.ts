import { describe, expect, it } from "vitest";
import type { ChatClient, ChatRequest, ChatResponse, ToolDefinition } from "../../../src/providers/types.ts";
import { runReplay, type ReplayOptions } from "../../../src/engines/chain-determinism/index.ts";
import { describeReference, itEachCase, lossless, type RefLine } from "../../support/reference.ts";
import { asJsNumbers, lineName, typed } from "./parity.ts";

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
      const meta = {
        model: "routed-model",
        system_fingerprint: `fp_${n}`,
        provider: "prov",
        usage: { prompt_tokens: n, completion_tokens: 1, total_tokens: n + 1 },
      };
      if ("empty_choices" in step) return { ...meta, choices: [] } satisfies ChatResponse;
      const tool_calls = step.tool_calls?.map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.name, arguments: c.arguments },
      }));
      return {
        ...meta,
        choices: [
          {
            message: { role: "assistant", content: step.content ?? null, ...(tool_calls ? { tool_calls } : {}) },
            finish_reason: "stop",
          },
        ],
      };
    },
  };
}

type Query = { query_id: string; query_type: string; kb_id: string; target_term: string; question: string };
type Prompts = { system_prompt: string; user_message_template_lines: string[]; user_message_example_query_0: string };
type LoopLine = {
  desc?: string;
  query_index: number;
  script: Script[];
  expected: {
    record: Record<string, unknown>;
    n_requests: number;
    request_params: Record<string, unknown>;
    request_message_counts: number[];
    last_request_messages: unknown[];
  };
};

// The reference suite, assembled from the reference files (spec §2 "System prompt / user message"):
// the header lines (kb line, hint, and the target line only when target_term is non-empty, without its
// "<- only if ..." annotation) join with "\n", then "\n\n" + the question line + "\n\n" + the closing line(s).
// The lines are found by their placeholders, not by their positions in the template.
function renderUser(prompts: Prompts, q: Query): string {
  const t = prompts.user_message_template_lines;
  const at = t.findIndex((l) => l.includes("{question}"));
  const header = t
    .slice(0, at)
    .filter((l) => l !== "" && (q.target_term || !l.includes("{target_term}")))
    .map((l) =>
      l
        .replace(/\s+<-.*$/, "")
        .replace("{kb_id}", q.kb_id)
        .replace("{target_term}", q.target_term),
    );
  const closing = t.slice(at + 1).filter((l) => l !== "");
  return header.join("\n") + "\n\n" + t[at].replace("{question}", q.question) + "\n\n" + closing.join("\n");
}

const SUITE_FILES = ["tools.json", "stub_responses.json", "prompts.json", "queries.json"] as const;
const FINAL = "final_answer";

describeReference("reference suite assembly", "chain-determinism", SUITE_FILES, (ref) => {
  const tools = ref.json<ToolDefinition[]>("tools.json");
  const stubs = ref.json<Record<string, string>>("stub_responses.json");
  const prompts = ref.json<Prompts>("prompts.json");
  const queries = ref.json<Query[]>("queries.json");

  it("renders query 0 exactly as prompts.json's example", () => {
    expect(renderUser(prompts, queries[0])).toBe(prompts.user_message_example_query_0);
  });

  it("has final_answer and a stub for every other tool, and no other stub", () => {
    const names = tools.map((t) => t.function.name);
    expect(names).toContain(FINAL);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(stubs).sort()).toEqual(names.filter((n) => n !== FINAL).sort());
  });
});

const IDS = ["query_id", "query_type", "run_idx"];

describeReference(
  "agent_loop_vectors.jsonl",
  "chain-determinism",
  [...SUITE_FILES, "agent_loop_vectors.jsonl"],
  (ref) => {
    const tools = ref.json<ToolDefinition[]>("tools.json");
    const stubs = ref.json<Record<string, string>>("stub_responses.json");
    const prompts = ref.json<Prompts>("prompts.json");
    const queries = ref.json<Query[]>("queries.json");
    const lines = ref.records<LoopLine>("agent_loop_vectors.jsonl");

    const replay = async (r: RefLine<LoopLine>) => {
      const q = queries[r.value.query_index];
      const chat = scripted(r.value.script);
      const result = await runReplay({
        chat,
        model: "test-model",
        systemPrompt: prompts.system_prompt,
        user: renderUser(prompts, q),
        tools,
        stubs,
      });
      return { q, chat, ...result };
    };
    type Call = { id: string; name: string };
    const callsOf = (steps: Script[]): Call[] =>
      steps.flatMap((s) => ("tool_calls" in s && s.tool_calls ? s.tool_calls : []));
    // The first step of kind `is` in the script, when it is the step the reference replay ended on.
    const endedOn = (r: RefLine<LoopLine>, is: (s: Script) => boolean): number => {
      const at = r.value.script.findIndex(is);
      return at >= 0 && at === r.value.expected.n_requests - 1 ? at : -1;
    };
    const unknownTool = (s: Script): string | undefined =>
      callsOf([s]).find((c) => c.name !== FINAL && !Object.hasOwn(stubs, c.name))?.name;

    it("has only lines with a script and an expected record", () => {
      for (const r of lines) {
        expect(Array.isArray(r.value.script), lineName(r)).toBe(true);
        expect(r.value.expected?.record, lineName(r)).toBeTypeOf("object");
      }
    });

    itEachCase(
      lines,
      (r) => lineName(r),
      "line",
      async (r) => {
        const { q, chat, record, turns } = await replay(r);
        const e = r.value.expected;
        // The expected side read losslessly, compared typed: args 1.0 stay floats, big ints stay exact.
        const full = lossless(r.text) as unknown as {
          expected: {
            record: Record<string, unknown>;
            request_params: Record<string, unknown>;
            last_request_messages: unknown;
          };
        };

        // The record, minus the ids the platform adds (the reference row's query_id etc. are ours to add).
        expect(e.record.query_id).toBe(q.query_id);
        expect(e.record.query_type).toBe(q.query_type);
        expect(e.record.run_idx).toBe(0);
        const want = Object.fromEntries(Object.entries(full.expected.record).filter(([k]) => !IDS.includes(k)));
        const replayException = /^replay_exception: ([^:]+): /.exec(String(want.error_category));
        const unknown = r.value.script
          .slice(0, e.n_requests)
          .map(unknownTool)
          .find((n) => n !== undefined);
        if (replayException && unknown !== undefined) {
          // §2b: for an unknown tool only the prefix and the named tool must match; the rest is our wording.
          const prefix = `replay_exception: ${replayException[1]}: `;
          expect(record.error_category?.slice(0, prefix.length)).toBe(prefix);
          expect(record.error_category).toContain(unknown);
          expect(typed({ ...record, error_category: null })).toEqual(typed({ ...want, error_category: null }));
        } else {
          expect(typed(record)).toEqual(typed(want));
        }

        expect(chat.requests).toHaveLength(e.n_requests);
        expect(chat.requests.map((x) => x.messages.length)).toEqual(e.request_message_counts);
        // Fixed params in the reference's key order; `tools` there names tools.json, so it is the whole array.
        // Compared as JS numbers: the request is a JS object (temperature 0.0 in the file is the number 0).
        const params = asJsNumbers(full.expected.request_params) as Record<string, unknown>;
        if ("tools" in params) params.tools = tools;
        for (const req of chat.requests) {
          // Spec §2: `messages` right after `model`; the other keys as the reference sent them.
          expect(Object.keys(req)).toEqual(["model", "messages", ...Object.keys(params).filter((k) => k !== "model")]);
          const { messages: _m, ...rest } = req;
          expect(rest).toEqual(params);
        }
        const last = chat.requests.at(-1)!.messages;
        expect(typed(last)).toEqual(typed(full.expected.last_request_messages)); // key order too
        for (const req of chat.requests) expect(req.messages).toEqual(last.slice(0, req.messages.length));

        // Our per-turn extras: one per answered request (a raised request has none).
        const answered = r.value.script.slice(0, e.n_requests).filter((s) => !("raise" in s)).length;
        expect(turns).toHaveLength(answered);
        turns.forEach((t, k) =>
          expect(t).toEqual({
            system_fingerprint: `fp_${k + 1}`,
            model: "routed-model",
            provider: "prov",
            usage: { prompt_tokens: k + 1, completion_tokens: 1, total_tokens: k + 2 },
          }),
        );
      },
    );

    // The kinds of ending below are found by the script's content; their checks come from the spec (§2, §2b).

    itEachCase(
      lines.filter((r) => endedOn(r, (s) => "raise" in s) >= 0),
      (r) => lineName(r, "a raised request ends the replay with api_error and keeps the calls so far"),
      "line whose replay ends on a raised request",
      async (r) => {
        const at = endedOn(r, (s) => "raise" in s);
        const step = r.value.script[at] as { raise: string };
        const { chat, record } = await replay(r);
        expect(chat.requests).toHaveLength(at + 1);
        const prefix = `api_error: ${step.raise}: `;
        expect(record.error_category?.slice(0, prefix.length)).toBe(prefix);
        expect(record.tool_call_sequence.map((c) => c.tool_call_id)).toEqual(
          callsOf(r.value.script.slice(0, at)).map((c) => c.id),
        );
      },
    );

    itEachCase(
      lines.filter((r) => endedOn(r, (s) => "empty_choices" in s) >= 0),
      (r) => lineName(r, "empty choices end the replay with empty_choices and keep the calls so far"),
      "line whose replay ends on empty_choices",
      async (r) => {
        const at = endedOn(r, (s) => "empty_choices" in s);
        const { chat, record, turns } = await replay(r);
        expect(chat.requests).toHaveLength(at + 1);
        expect(turns).toHaveLength(at + 1);
        expect(record.error_category).toBe("empty_choices");
        expect(record.tool_call_sequence.map((c) => c.tool_call_id)).toEqual(
          callsOf(r.value.script.slice(0, at)).map((c) => c.id),
        );
      },
    );

    itEachCase(
      lines.filter((r) => endedOn(r, (s) => unknownTool(s) !== undefined) >= 0),
      (r) => lineName(r, "an unknown tool gives replay_exception: KeyError and discards the calls"),
      "line whose script calls a tool without a stub",
      async (r) => {
        const name = unknownTool(r.value.script[endedOn(r, (s) => unknownTool(s) !== undefined)])!;
        const { record } = await replay(r);
        expect(record.error_category).toMatch(/^replay_exception: KeyError: /);
        expect(record.error_category).toContain(name);
        expect({ ...record, error_category: null }).toEqual({
          tool_call_sequence: [],
          final_answer: null,
          rationale: "",
          n_tool_calls: 0,
          error_category: null,
        });
      },
    );
  },
);

// Hand-made tools and stubs for the tests below, which need no reference files.
const localTools: ToolDefinition[] = ["count", "take", FINAL].map((name) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: {} } },
}));
const localStubs: Record<string, string> = { count: '{"kind": "int", "value": 5}', take: '{"kind": "list", "len": 3}' };

describe("runReplay", () => {
  const base = (chat: ChatClient): ReplayOptions => ({
    chat,
    model: "m",
    systemPrompt: "s",
    user: "u",
    tools: localTools,
    stubs: localStubs,
  });

  it("sends seed only when given, after tool_choice", async () => {
    const chat = scripted([{ content: "done" }]);
    await runReplay({ ...base(chat), seed: 7, temperature: 0.5, maxTokens: 64, toolChoice: "required" });
    expect(Object.keys(chat.requests[0])).toEqual([
      "model",
      "messages",
      "tools",
      "temperature",
      "max_tokens",
      "tool_choice",
      "seed",
    ]);
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
