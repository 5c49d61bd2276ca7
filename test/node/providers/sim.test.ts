import { describe, expect, it } from "vitest";
import { createSimClient, isSimModel, defaultResponders } from "../../../src/providers/index.ts";
import type {
  ChatClient,
  ChatMessage,
  ChatRequest,
  SimClientOptions,
  SimResponder,
  ToolDefinition,
} from "../../../src/providers/index.ts";

const tool = (name: string, parameters?: unknown): ToolDefinition => ({
  type: "function",
  function: { name, ...(parameters ? { parameters } : {}) },
});

const TOOLS: ToolDefinition[] = [
  tool("search", {
    type: "object",
    properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 3 } },
    required: ["query", "limit"],
  }),
  tool("fetch_page", {
    type: "object",
    properties: { url: { type: "string" }, mode: { type: "string", enum: ["html", "text"] } },
    required: ["url", "mode"],
  }),
  tool("calculator", {
    type: "object",
    properties: { expression: { type: "string" }, exact: { type: "boolean" } },
    required: ["expression"],
  }),
  tool("final_answer", { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] }),
];
const QUERY = "What is the population of Lisbon divided by the area of Portugal?";

type Run = { sequence: string[]; turns: number; messages: ChatMessage[]; answer?: string; text?: string };

/** The simplest agent loop: call tools (with a canned result) until final_answer or prose, at most 10 turns. */
async function drive(client: ChatClient, query = QUERY, tools = TOOLS, model = "sim:agent"): Promise<Run> {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: query },
  ];
  const sequence: string[] = [];
  for (let turn = 1; turn <= 10; turn++) {
    const res = await client.chat({ model, messages, tools });
    const message = res.choices[0].message;
    messages.push({
      role: "assistant",
      content: message.content,
      ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
    });
    if (!message.tool_calls?.length) return { sequence, turns: turn, messages, text: message.content ?? "" };
    for (const call of message.tool_calls) {
      sequence.push(`${call.function.name}(${call.function.arguments})`);
      if (call.function.name === "final_answer")
        return { sequence, turns: turn, messages, answer: JSON.parse(call.function.arguments!).answer };
      messages.push({ role: "tool", tool_call_id: call.id, content: "42" });
    }
  }
  throw new Error("no final answer within 10 turns");
}

const sim = (o: Partial<SimClientOptions> = {}) => createSimClient({ model: "sim:agent", seed: 7, ...o });
const replays = (n: number, o: Partial<SimClientOptions> = {}) =>
  Promise.all(Array.from({ length: n }, (_, replay) => drive(sim({ replay, ...o }))));
const key = (r: Run) => r.sequence.join(" ");

describe("isSimModel", () => {
  it.each([
    ["sim:agent", true],
    ["sim:x?divergence=1", true],
    ["sim:", false],
    ["gpt-4o", false],
    ["openai/sim:x", false],
  ])("%s → %s", (model, expected) => expect(isSimModel(model)).toBe(expected));
});

describe("createSimClient as a tool-calling agent", () => {
  it("answers the same inputs with the same outputs, across clients", async () => {
    const a = await drive(sim({ replay: 3 }));
    const b = await drive(sim({ replay: 3 }));
    expect(b).toEqual(a);
    const req: ChatRequest = { model: "sim:agent", messages: a.messages.slice(0, 2), tools: TOOLS };
    expect(await sim({ replay: 3 }).chat(req)).toEqual(await sim({ replay: 3 }).chat(req));
  });

  it("reports fingerprint, model, provider and usage ≈ characters / 4", async () => {
    const req: ChatRequest = { model: "sim:agent", messages: [{ role: "user", content: QUERY }], tools: TOOLS };
    const res = await sim().chat(req);
    expect(res.system_fingerprint).toMatch(/^sim-[0-9a-f]{8}$/);
    expect(res).toMatchObject({ model: "sim:agent", provider: "assay-sim" });
    // prompt = ceil(len(JSON of {messages, tools}) / 4)
    expect(res.usage!.prompt_tokens).toBe(
      Math.ceil(JSON.stringify({ messages: req.messages, tools: TOOLS }).length / 4),
    );
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    expect(res.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it("calls final_answer within 10 turns after 2–6 valid tool calls, for many seeds and queries", async () => {
    const queries = [QUERY, "Summarise the latest news on fusion energy", "", "Book a table for two in Rome tomorrow"];
    for (let seed = 0; seed < 40; seed++) {
      for (const query of queries) {
        const run = await drive(sim({ seed, divergence: 0.5, replay: seed % 3 }), query);
        expect(run.answer).toMatch(/^The answer is /);
        const calls = run.sequence.slice(0, -1);
        expect(calls.length).toBeGreaterThanOrEqual(2);
        expect(calls.length).toBeLessThanOrEqual(7); // 6, or 7 when a deviation repeats a call
        for (const c of calls) expect(c).toMatch(/^(search|fetch_page|calculator)\(/);
      }
    }
  });

  it("builds arguments from each tool's JSON schema", async () => {
    for (let seed = 0; seed < 30; seed++) {
      const run = await drive(sim({ seed }));
      for (const m of run.messages) {
        if (m.role !== "assistant") continue;
        for (const c of m.tool_calls ?? []) {
          const args = JSON.parse(c.function.arguments!);
          if (c.function.name === "search") {
            expect(typeof args.query).toBe("string");
            expect(args.limit).toBeGreaterThanOrEqual(1);
            expect(args.limit).toBeLessThanOrEqual(3);
          }
          if (c.function.name === "fetch_page") expect(["html", "text"]).toContain(args.mode);
          if (c.function.name === "calculator") expect(Object.keys(args)).toEqual(["expression"]);
        }
      }
    }
  });

  it("sometimes puts several tool calls in one message", async () => {
    let parallel = 0;
    for (let seed = 0; seed < 50; seed++) {
      const run = await drive(sim({ seed }));
      if (run.messages.some((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 1)) parallel++;
    }
    expect(parallel).toBeGreaterThan(0);
    expect(parallel).toBeLessThan(50);
  });

  it("with divergence 0, every replay follows the same tool sequence", async () => {
    const runs = await replays(30, { divergence: 0 });
    expect(new Set(runs.map(key)).size).toBe(1);
  });

  it("with divergence 1, every replay departs from the modal sequence", async () => {
    for (const seed of [7, 8, 9]) {
      const modal = key(await drive(sim({ seed, divergence: 0 })));
      const runs = await replays(30, { seed, divergence: 1 });
      for (const run of runs) expect(key(run)).not.toBe(modal);
    }
  });

  it("with divergence 0.25, about a quarter of replays deviate", async () => {
    const modal = key(await drive(sim({ divergence: 0 })));
    const runs = await replays(400, { divergence: 0.25 });
    const deviating = runs.filter((r) => key(r) !== modal).length / runs.length;
    // Binomial(400, 0.25): sd = sqrt(400 × 0.25 × 0.75) / 400 ≈ 0.022; ±0.08 is over 3.5 sd.
    expect(deviating).toBeGreaterThan(0.17);
    expect(deviating).toBeLessThan(0.33);
  });

  it("still diverges with a single tool that takes no arguments (the call is repeated)", async () => {
    const tools = [tool("ping"), tool("final_answer")];
    const modal = key(await drive(sim({ divergence: 0 }), QUERY, tools));
    for (let replay = 0; replay < 10; replay++) {
      const run = await drive(sim({ divergence: 1, replay }), QUERY, tools);
      expect(key(run)).not.toBe(modal);
      expect(run.sequence.at(-1)).toMatch(/^final_answer\(/);
      expect(run.answer).toEqual(expect.any(String));
    }
  });

  it("reads knobs from the model name", async () => {
    const modal = key(await drive(sim({ divergence: 0 })));
    const run = await drive(createSimClient({ model: "sim:agent?divergence=1", seed: 7, divergence: 0 }));
    expect(key(run)).not.toBe(modal);
  });

  it("ends with prose when no final_answer tool is offered", async () => {
    const run = await drive(sim(), QUERY, TOOLS.slice(0, 3));
    expect(run.answer).toBeUndefined();
    expect(run.text).toMatch(/^The answer is /);
  });

  it("answers with text when tool_choice is none", async () => {
    const res = await sim().chat({
      model: "sim:agent",
      messages: [{ role: "user", content: QUERY }],
      tools: TOOLS,
      tool_choice: "none",
    });
    expect(res.choices[0].message.tool_calls).toBeUndefined();
    expect(res.choices[0].finish_reason).toBe("stop");
  });
});

describe("createSimClient without tools", () => {
  it("answers short deterministic text", async () => {
    const req: ChatRequest = {
      model: "sim:chat",
      messages: [{ role: "user", content: "Tell me about penguins in Antarctica" }],
    };
    const a = await createSimClient({ model: "sim:chat" }).chat(req);
    const b = await createSimClient({ model: "sim:chat" }).chat(req);
    expect(a).toEqual(b);
    expect(a.choices[0].message.content).toMatch(
      /^Simulated reply about tell about penguins antarctica \[[0-9a-f]{6}\]\.$/,
    );
  });

  it("tries custom responders first and falls back to the defaults", async () => {
    const probability: SimResponder = (ctx) =>
      ctx.userText.startsWith("Claim:") ? { content: '{"prob_true": 0.7}', finish_reason: "stop" } : undefined;
    const client = createSimClient({ model: "sim:rpl", responders: [probability, ...defaultResponders] });
    const claim = await client.chat({ model: "sim:rpl", messages: [{ role: "user", content: "Claim: water is wet" }] });
    expect(claim.choices[0].message.content).toBe('{"prob_true": 0.7}');
    const other = await client.chat({ model: "sim:rpl", messages: [{ role: "user", content: "hello there" }] });
    expect(other.choices[0].message.content).toMatch(/^Simulated reply/);
  });
});

describe("createSimClient knobs and contract", () => {
  it("waits latencyMs and stops when the caller aborts", async () => {
    const req: ChatRequest = { model: "sim:slow", messages: [{ role: "user", content: "hi" }] };
    const started = performance.now();
    await createSimClient({ model: "sim:slow", latencyMs: 60 }).chat(req);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    const reason = new Error("stop");
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 10);
    await expect(
      createSimClient({ model: "sim:slow", latencyMs: 5_000 }).chat(req, { signal: controller.signal }),
    ).rejects.toBe(reason);
  });

  it.each([
    [{ divergence: 1.5 }],
    [{ divergence: -0.1 }],
    [{ replay: -1 }],
    [{ replay: 1.5 }],
    [{ model: "gpt-4o" }],
    [{ model: "sim:x?divergence=2" }],
  ])("rejects %j with a RangeError", (o) => {
    expect(() => createSimClient({ model: "sim:x", ...o })).toThrow(RangeError);
  });

  // The simulator has no failure modes of its own: every request it can be given gets one answer.
  it.each<[string, ChatRequest]>([
    ["no messages", { model: "sim:x", messages: [] }],
    ["no user message", { model: "sim:x", messages: [{ role: "system", content: "You are an agent." }] }],
    [
      "tools with tool_choice none",
      { model: "sim:x", messages: [{ role: "user", content: QUERY }], tools: TOOLS, tool_choice: "none" },
    ],
    [
      "tools without final_answer",
      { model: "sim:x", messages: [{ role: "user", content: QUERY }], tools: TOOLS.slice(0, 1) },
    ],
  ])("answers a request with %s, with one choice and no error", async (_, req) => {
    const res = await createSimClient({ model: "sim:x" }).chat(req);
    expect(res.choices).toHaveLength(1);
  });

  it("accepts 64-bit seeds as strings and bigints alike", async () => {
    const seed = "18446744073709551557";
    const a = await drive(createSimClient({ model: "sim:agent", seed }));
    const b = await drive(createSimClient({ model: "sim:agent", seed: BigInt(seed) }));
    expect(a).toEqual(b);
  });
});
