// Issue 23, item 5: a replay may be stopped between turns and continued from its stored state (in a
// fresh invocation of its lane), and ends with the same record and the same requests as a replay
// that ran in one go.
import { describe, expect, it } from "vitest";
import type { ChatClient, ChatRequest, ToolDefinition } from "../../../src/providers/types.ts";
import {
  runReplay,
  stepReplay,
  type ReplayOptions,
  type ReplayResult,
  type ReplayState,
} from "../../../src/engines/chain-determinism/index.ts";
import { describeReference, itEachCase, type RefLine } from "../../support/reference.ts";

type Step =
  | { raise: string }
  | { empty_choices: true }
  | { content?: string | null; tool_calls?: Array<{ id: string; name: string; arguments: string | null }> };

/** Answers from a script, whichever client object sends the request (a continued replay gets a new one), and records each request. */
function scripted(script: Step[]) {
  const requests: ChatRequest[] = [];
  const client = (): ChatClient => ({
    async chat(request) {
      requests.push(structuredClone(request));
      const step = script[requests.length - 1];
      if (!step) throw new Error("script exhausted");
      if ("raise" in step) throw Object.assign(new Error("boom"), { name: step.raise });
      const meta = {
        model: "m",
        system_fingerprint: `fp_${requests.length}`,
        provider: "p",
        usage: { prompt_tokens: requests.length, completion_tokens: 1, total_tokens: requests.length + 1 },
      };
      if ("empty_choices" in step) return { ...meta, choices: [] };
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
  });
  return { requests, client };
}

/**
 * The replay in pieces: `turnsPerPiece` requests per piece, the state stored as JSON text between
 * pieces (as the coordinator keeps it) and read back by a fresh client, as a fresh invocation would.
 */
async function inPieces(
  options: (chat: ChatClient) => ReplayOptions,
  script: ReturnType<typeof scripted>,
  turnsPerPiece: number,
) {
  let stored: string | null = null;
  let pieces = 0;
  for (;;) {
    pieces++;
    let left = turnsPerPiece;
    const from = stored === null ? undefined : (JSON.parse(stored) as ReplayState);
    const r = await stepReplay({ ...options(script.client()), from, beforeTurn: () => left-- > 0 });
    if (!("paused" in r)) return { result: r, pieces };
    stored = JSON.stringify(r.paused);
  }
}

const tools: ToolDefinition[] = ["count", "take", "final_answer"].map((name) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: {} } },
}));
const stubs: Record<string, string> = { count: '{"kind": "int", "value": 5}', take: '{"kind": "list", "len": 3}' };
const base = (chat: ChatClient): ReplayOptions => ({
  chat,
  model: "m",
  systemPrompt: "s",
  user: "u",
  tools,
  stubs,
  maxTurns: 50,
});
const same = (a: ReplayResult, b: ReplayResult) => expect(JSON.stringify(b)).toBe(JSON.stringify(a));

describe("stepReplay", () => {
  // 49 tool-calling turns (args with a float lexeme and a null), then the final answer: 50 requests.
  const long: Step[] = [
    ...Array.from({ length: 49 }, (_, i) => ({
      content: i % 7 === 0 ? `thinking ${i}` : null,
      tool_calls: [{ id: `c${i}`, name: i % 2 ? "take" : "count", arguments: i % 5 === 0 ? null : `{"n": ${i}.0}` }],
    })),
    { content: "so", tool_calls: [{ id: "f", name: "final_answer", arguments: '{"answer": "5"}' }] },
  ];

  it.each([1, 2, 7, 49])(
    "stopped every %i turns, ends with the same record and sends the same requests as one run",
    async (n) => {
      const whole = scripted(long);
      const once = await runReplay(base(whole.client()));
      const split = scripted(long);
      const { result, pieces } = await inPieces(base, split, n);
      same(once, result);
      expect(split.requests).toEqual(whole.requests);
      expect(once.record).toMatchObject({ n_tool_calls: 50, final_answer: "5", error_category: null });
      // 50 requests, n per piece: ⌈50 / n⌉ pieces.
      expect(pieces).toBe(Math.ceil(50 / n));
    },
  );

  it("a replay that ends on an error after a pause keeps the calls recorded before it", async () => {
    const script: Step[] = [
      { tool_calls: [{ id: "a", name: "count", arguments: "{}" }] },
      { raise: "APIConnectionError" },
    ];
    const once = await runReplay(base(scripted(script).client()));
    const { result } = await inPieces(base, scripted(script), 1);
    same(once, result);
    expect(result.record.error_category).toBe("api_error: APIConnectionError: boom");
    expect(result.record.n_tool_calls).toBe(1);
  });

  it("asks before every request, and a pause before the first sends nothing", async () => {
    const s = scripted(long);
    const r = await stepReplay({ ...base(s.client()), beforeTurn: () => false });
    expect(s.requests).toHaveLength(0);
    expect(r).toEqual({
      paused: {
        turn: 0,
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: "u" },
        ],
        turns: [],
      },
    });
  });
});

// The reference's own replays, each stopped after every turn: the same record as in one go.
type LoopLine = { query_index: number; script: Step[] };
type Query = { query_id: string; question: string };
describeReference(
  "agent_loop_vectors.jsonl, stopped after every turn",
  "chain-determinism",
  ["tools.json", "stub_responses.json", "queries.json", "agent_loop_vectors.jsonl"],
  (ref) => {
    const refTools = ref.json<ToolDefinition[]>("tools.json");
    const refStubs = ref.json<Record<string, string>>("stub_responses.json");
    const queries = ref.json<Query[]>("queries.json");
    const lines = ref.records<LoopLine>("agent_loop_vectors.jsonl");
    itEachCase(
      lines,
      (r: RefLine<LoopLine>) => `line ${r.line}`,
      "line",
      async (r) => {
        const options = (chat: ChatClient): ReplayOptions => ({
          chat,
          model: "test-model",
          systemPrompt: "s",
          user: queries[r.value.query_index].question,
          tools: refTools,
          stubs: refStubs,
        });
        const whole = scripted(r.value.script);
        const once = await runReplay(options(whole.client()));
        const split = scripted(r.value.script);
        const { result } = await inPieces(options, split, 1);
        same(once, result);
        expect(split.requests).toEqual(whole.requests);
      },
    );
  },
);
