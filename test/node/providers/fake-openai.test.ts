import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createOpenAIClient } from "../../../src/providers/index.ts";
import type { ChatClient, ChatMessage, ToolDefinition } from "../../../src/providers/index.ts";
import {
  deleteScenario,
  recordedRequests,
  registerScenario,
  releaseScenario,
  scenarioStats,
  startFakeOpenAI,
} from "../../support/fake-openai.ts";
import type { FakeOpenAI } from "../../support/fake-openai.ts";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

/** For vi.waitFor: generous, since the condition, not the clock, decides; the test's own timeout is longer. */
const WAIT = { timeout: 15_000, interval: 20 };

const tools: ToolDefinition[] = ["lookup", "search", "final_answer"].map((name) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
}));

/** Plays one conversation to final_answer; returns the tool names called, in order. */
async function converse(client: ChatClient, model: string, user: string): Promise<string[]> {
  const messages: ChatMessage[] = [{ role: "user", content: user }];
  const names: string[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const { message } = (await client.chat({ model, messages, tools })).choices[0];
    messages.push({ role: "assistant", content: message.content, tool_calls: message.tool_calls });
    for (const call of message.tool_calls ?? []) {
      names.push(call.function.name);
      if (call.function.name === "final_answer") return names;
      messages.push({ role: "tool", tool_call_id: call.id, content: "result" });
    }
  }
  throw new Error("no final_answer");
}

describe("the fake OpenAI server", () => {
  it("plays the agent round-robin, then final_answer", async () => {
    await registerScenario(fake.url, { id: "rr", agent: { calls: 3 } });
    const client = createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "sk-fake-key-1234" });
    expect(await converse(client, "rr", "hi")).toEqual(["lookup", "search", "lookup", "final_answer"]);
    const requests = await recordedRequests(fake.url, "rr");
    expect(requests.map((r) => [r.nth, r.turn, r.attempt])).toEqual([
      [1, 0, 1],
      [2, 1, 1],
      [3, 2, 1],
      [4, 3, 1],
    ]);
    expect(requests[0].headers.authorization).toBe("***1234");
    expect(JSON.stringify(requests)).not.toContain("sk-fake-key");
  });

  it("answers an unregistered model with the default agent (2 calls)", async () => {
    const client = createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "k" });
    expect(await converse(client, "never-registered", "hi")).toEqual(["lookup", "search", "final_answer"]);
    expect(await recordedRequests(fake.url, "never-registered")).toHaveLength(3);
  });

  it("forgets a deleted scenario", async () => {
    await registerScenario(fake.url, { id: "gone", agent: { calls: 1 } });
    await deleteScenario(fake.url, "gone");
    expect(await recordedRequests(fake.url, "gone")).toEqual([]);
  });

  it("matches faults by nth request of the scenario", async () => {
    await registerScenario(fake.url, { id: "nth", faults: [{ on: { nth: 2 }, respond: { status: 503 } }] });
    const client = createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "k", sleep: async () => {} });
    const names = await converse(client, "nth", "hi");
    expect(names).toEqual(["lookup", "search", "final_answer"]);
    expect((await recordedRequests(fake.url, "nth")).map((r) => r.attempt)).toEqual([1, 1, 2, 1]);
  });

  // The benchmark's scenario: 4 calls + final_answer = 5 requests per replay, 200 ms each. Every first
  // request is held until all 60 have arrived, so "served concurrently" is what the server saw at
  // once, not how long it took.
  it("serves 60 concurrent conversations at once, each response 200 ms after its request", async () => {
    await registerScenario(fake.url, { id: "bench", agent: { calls: 4 }, delay_ms: 200, hold_after: 0 });
    const client = createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "k", maxRetries: 0 });
    const runs = Promise.all(Array.from({ length: 60 }, (_, i) => converse(client, "bench", `replay ${i}`)));
    await vi.waitFor(
      async () => expect(await scenarioStats(fake.url, "bench")).toMatchObject({ held: 60, in_flight: 60 }),
      WAIT,
    );
    const released = performance.now();
    expect(await releaseScenario(fake.url, "bench")).toBe(60);
    expect((await runs).every((r) => r.length === 5)).toBe(true);
    // Turns 1–4 each arrive after the previous answer and wait their own 200 ms: at least 4 × 200 ms.
    // (A lower bound only: a slow machine can make it longer, never shorter.)
    expect(performance.now() - released).toBeGreaterThanOrEqual(800);
    expect(await recordedRequests(fake.url, "bench")).toHaveLength(300);
    expect(await scenarioStats(fake.url, "bench")).toEqual({
      id: "bench",
      received: 300,
      in_flight: 0,
      max_in_flight: 60,
      held: 0,
    });
  }, 30_000);

  it("counts one client's consecutive requests as never in flight together", async () => {
    await registerScenario(fake.url, { id: "sequential", agent: { calls: 3 }, delay_ms: 20 });
    await converse(createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "k" }), "sequential", "hi");
    expect(await scenarioStats(fake.url, "sequential")).toEqual({
      id: "sequential",
      received: 4,
      in_flight: 0,
      max_in_flight: 1,
      held: 0,
    });
  });

  it("holds requests after the first hold_after until released, and forgets one whose client gave up", async () => {
    await registerScenario(fake.url, { id: "held", agent: { calls: 1 }, hold_after: 1 });
    const client = createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "k", maxRetries: 0 });
    // The first request is answered at once; the second (turn 1) is held.
    const conversation = converse(client, "held", "hi");
    await vi.waitFor(
      async () => expect(await scenarioStats(fake.url, "held")).toMatchObject({ received: 2, in_flight: 1, held: 1 }),
      WAIT,
    );
    // A request whose client gives up leaves both counts.
    const controller = new AbortController();
    const abandoned = client.chat(
      { model: "held", messages: [{ role: "user", content: "bye" }], tools },
      { signal: controller.signal },
    );
    await vi.waitFor(
      async () => expect(await scenarioStats(fake.url, "held")).toMatchObject({ received: 3, in_flight: 2, held: 2 }),
      WAIT,
    );
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await vi.waitFor(
      async () => expect(await scenarioStats(fake.url, "held")).toMatchObject({ in_flight: 1, held: 1 }),
      WAIT,
    );
    expect(await releaseScenario(fake.url, "held")).toBe(1);
    expect(await conversation).toEqual(["lookup", "final_answer"]);
    // Released: later requests are not held.
    expect(await converse(client, "held", "again")).toEqual(["lookup", "final_answer"]);
    expect(await scenarioStats(fake.url, "held")).toEqual({
      id: "held",
      received: 5,
      in_flight: 0,
      max_in_flight: 2,
      held: 0,
    });
  }, 30_000);
});
