import { describe, expect, it } from "vitest";
import {
  checkerClient,
  checkerMessages,
  checkPairs,
  parseCheckerLabels,
  stepCheck,
  type CheckState,
  type LsModelConfig,
} from "../../../src/evaluators/reasoning-quality/backends.ts";
import { createSimEmbeddingClient, simCheckerLabel, simEmbedding } from "../../../src/providers/index.ts";
import { ProviderError, type ChatClient } from "../../../src/providers/types.ts";
import { cosine } from "../../../src/engines/reasoning-quality/index.ts";

const pairs = [
  { premise: "The box holds 4 apples", hypothesis: "The box does not hold 4 apples" },
  { premise: "Apples are fruit", hypothesis: "So the total is 4" },
  { premise: "So the total is 4", hypothesis: "The total is 4" },
];

describe("contradiction checker answers", () => {
  it("reads {labels}, a bare array, fenced or after prose, case-insensitively", () => {
    expect(parseCheckerLabels('{"labels": ["contradiction", "Neutral"]}', 2)).toEqual(["contradiction", "neutral"]);
    expect(parseCheckerLabels('Sure. ["entailment"] hope that helps', 1)).toEqual(["entailment"]);
    expect(parseCheckerLabels('```json\n{"labels":[" ENTAILMENT "]}\n```', 1)).toEqual(["entailment"]);
    // Brackets in the prose before the list are not the list.
    expect(parseCheckerLabels('Pair [1] contradicts; {"note": 1} then {"labels": ["contradiction"]}', 1)).toEqual([
      "contradiction",
    ]);
  });

  it("refuses a wrong count, an unknown label, or no list, saying which", () => {
    expect(() => parseCheckerLabels('{"labels": ["neutral"]}', 2)).toThrow("1 labels for 2 pairs");
    expect(() => parseCheckerLabels('["maybe"]', 1)).toThrow('label 1 is "maybe"');
    expect(() => parseCheckerLabels("all fine", 1)).toThrow("no label list");
    expect(() => parseCheckerLabels('{"verdict": "ok"}', 1)).toThrow("no label list");
  });

  it("numbers every pair in one user message and asks for as many labels", () => {
    const [system, user] = checkerMessages(pairs);
    expect(system.role).toBe("system");
    expect(system.content).toContain('{"labels"');
    expect(user.content).toContain("Pair 3\nFIRST: So the total is 4\nSECOND: The total is 4");
    expect(user.content.endsWith("Give 3 labels.")).toBe(true);
  });
});

describe("checkPairs", () => {
  const ls = (batch_size: number): LsModelConfig => ({
    method: "model",
    model: "x",
    base_url: "http://x",
    batch_size,
    timeout_s: 5,
    fallback: "lexical",
  });
  const signal = new AbortController().signal;

  it("batches pairs, labels them in order and sums usage (simulated checker)", async () => {
    const got = await checkPairs(
      pairs,
      { ...ls(2), model: "sim:checker" },
      checkerClient({ ...ls(2), model: "sim:checker" }, 0, () => {
        throw new Error("no endpoint for sim");
      }),
      signal,
    );
    expect(got.labels).toEqual(pairs.map((p) => simCheckerLabel(p.premise, p.hypothesis)));
    expect(got.labels[0]).toBe("contradiction");
    expect(got.calls).toBe(2);
    expect(got.failed_calls).toBe(0);
    expect(got.usage.total_tokens).toBeGreaterThan(0);
  });

  it("a failed call or an unusable answer leaves only its batch's pairs null, with the reason", async () => {
    let n = 0;
    const flaky: ChatClient = {
      async chat() {
        n++;
        if (n === 1) throw new ProviderError({ name: "InternalServerError", kind: "transient", message: "503 down" });
        return { choices: [{ message: { content: n === 2 ? '{"labels": ["neutral", "neutral"]}' : "no idea" } }] };
      },
    };
    const got = await checkPairs([...pairs, ...pairs], ls(2), () => flaky, signal);
    expect(got.calls).toBe(3);
    expect(got.failed_calls).toBe(2);
    expect(got.labels.filter((l) => l === null).length).toBe(4);
    expect(got.labels.filter((l) => l === "neutral").length).toBe(2);
    expect(got.errors.join(" | ")).toMatch(/503 down.*no label list|no label list.*503 down/);
  });
});

describe("stepCheck", () => {
  const ls: LsModelConfig = {
    method: "model",
    model: "sim:checker",
    base_url: null,
    batch_size: 1,
    timeout_s: 5,
    fallback: "lexical",
  };
  const many = Array.from({ length: 9 }, (_, i) => pairs[i % pairs.length]);
  const client = () =>
    checkerClient(ls, 0, () => {
      throw new Error("no endpoint for sim");
    });
  const signal = new AbortController().signal;

  it("stopped before every round but the first of each call, and continued from a stored copy, gives the unbroken record", async () => {
    const whole = await checkPairs(many, ls, client(), signal);
    // 9 pairs, one per call, 4 calls a round: rounds of 4, 4 and 1, so it stops twice.
    let from: CheckState | undefined;
    let stops = 0;
    for (;;) {
      let asked = 0;
      const done = await stepCheck(many, ls, client(), signal, { from, beforeRound: () => asked++ === 0 });
      if ("paused" in done) {
        stops++;
        expect(done.paused.batches).toHaveLength(4 * stops);
        from = JSON.parse(JSON.stringify(done.paused)) as CheckState;
        continue;
      }
      expect(done).toEqual(whole);
      break;
    }
    expect(stops).toBe(2);
    expect(whole.labels).toEqual(many.map((p) => simCheckerLabel(p.premise, p.hypothesis)));
  });
});

describe("simulated embeddings", () => {
  it("are unit vectors; identical texts cosine 1, shared words higher than disjoint ones", async () => {
    const client = createSimEmbeddingClient();
    const res = await client.embed({
      model: "sim:e",
      input: ["the red apple", "the red apple", "a red apple pie", "quantum tunnelling"],
    });
    const [a, b, c, d] = res.data;
    expect(Math.hypot(...a)).toBeCloseTo(1, 12);
    expect(cosine(a, b)).toBeCloseTo(1, 12);
    expect(cosine(a, c)).toBeGreaterThan(cosine(a, d));
    expect(simEmbedding("")).toEqual(new Array(64).fill(0));
    expect((await client.embed({ model: "sim:e", input: ["x"], dimensions: 8 })).data[0].length).toBe(8);
  });
});
