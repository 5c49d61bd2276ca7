import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIClient } from "../../../src/providers/index.ts";
import type { ChatClient, ChatMessage, ToolDefinition } from "../../../src/providers/index.ts";
import { deleteScenario, recordedRequests, registerScenario, startFakeOpenAI } from "../../support/fake-openai.ts";
import type { FakeOpenAI } from "../../support/fake-openai.ts";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

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
    const client = createOpenAIClient({ baseURL: fake.url, apiKey: "sk-fake-key-1234" });
    expect(await converse(client, "rr", "hi")).toEqual(["lookup", "search", "lookup", "final_answer"]);
    const requests = await recordedRequests(fake.url, "rr");
    expect(requests.map((r) => [r.nth, r.turn, r.attempt])).toEqual([[1, 0, 1], [2, 1, 1], [3, 2, 1], [4, 3, 1]]);
    expect(requests[0].headers.authorization).toBe("***1234");
    expect(JSON.stringify(requests)).not.toContain("sk-fake-key");
  });

  it("answers an unregistered model with the default agent (2 calls)", async () => {
    const client = createOpenAIClient({ baseURL: fake.url, apiKey: "k" });
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
    const client = createOpenAIClient({ baseURL: fake.url, apiKey: "k", sleep: async () => {} });
    const names = await converse(client, "nth", "hi");
    expect(names).toEqual(["lookup", "search", "final_answer"]);
    expect((await recordedRequests(fake.url, "nth")).map((r) => r.attempt)).toEqual([1, 1, 2, 1]);
  });

  // The benchmark's scenario: 4 calls + final_answer = 5 requests per replay, 200 ms each.
  it("serves 60 concurrent conversations at 200 ms per response without queueing", async () => {
    await registerScenario(fake.url, { id: "bench", agent: { calls: 4 }, delay_ms: 200 });
    const client = createOpenAIClient({ baseURL: fake.url, apiKey: "k", maxRetries: 0 });
    const started = performance.now();
    const runs = await Promise.all(Array.from({ length: 60 }, (_, i) => converse(client, "bench", `replay ${i}`)));
    const elapsed = performance.now() - started;
    expect(runs.every((r) => r.length === 5)).toBe(true);
    expect(await recordedRequests(fake.url, "bench")).toHaveLength(300);
    // 5 sequential responses × 200 ms = 1 s if nothing waits on anything else.
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(2500); // generous for busy CI; serialised it would take 60 s
  });
});
