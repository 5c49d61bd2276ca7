import { describe, expect, it } from "vitest";
import { createSimClient, criticResponder, defaultResponders, simTrueLabel } from "../../../src/providers/index.ts";
import { parseVerdict } from "../../../src/engines/judge/index.ts";

const LABELS = ["KEEP", "REJECT", "SPLIT", "MERGE", "UNCLEAR"];

async function ask(o: Parameters<typeof criticResponder>[0], seed = 7) {
  const client = createSimClient({ model: "sim:critic", seed, responders: [criticResponder(o), ...defaultResponders] });
  const res = await client.chat({ model: "sim:critic", messages: [{ role: "user", content: "judge this" }] });
  return parseVerdict(res.choices[0].message.content, o.critic);
}

describe("simulated critic", () => {
  it("answers the item's expected label as parseable JSON when it has no bias and no noise", async () => {
    for (const expected of ["KEEP", "SPLIT", "UNCLEAR"]) {
      const v = await ask({ critic: "c", labels: LABELS, item: `i-${expected}`, expected });
      expect(v.error).toBeNull();
      expect(v.kind).toBe(expected);
      expect(v.confidence).toBeGreaterThanOrEqual(0.7);
    }
  });

  it("draws a true label per item that all critics share, never UNCLEAR while other labels exist", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const truth = simTrueLabel("7", `item-${i}`, LABELS);
      seen.add(truth);
      const a = await ask({ critic: "a", labels: LABELS, item: `item-${i}` });
      const b = await ask({ critic: "b", labels: LABELS, item: `item-${i}` });
      expect([a.kind, b.kind]).toEqual([truth, truth]);
    }
    expect([...seen].sort()).toEqual(["KEEP", "MERGE", "REJECT", "SPLIT"]);
  });

  it("bias and noise rates show up at about their configured frequency", async () => {
    let biased = 0;
    let offTruth = 0;
    const N = 2000;
    for (let i = 0; i < N; i++) {
      const item = `item-${i}`;
      if (
        (await ask({ critic: "lean", labels: LABELS, item, expected: "KEEP", bias: { label: "REJECT", rate: 0.3 } }))
          .kind === "REJECT"
      )
        biased++;
      if ((await ask({ critic: "noisy", labels: LABELS, item, expected: "KEEP", noise: 0.5 })).kind !== "KEEP")
        offTruth++;
    }
    // Noise picks any of 5 labels, so 4/5 of noisy answers miss the truth: 0.5 × 0.8 = 0.4.
    expect(biased / N).toBeGreaterThan(0.26);
    expect(biased / N).toBeLessThan(0.34);
    expect(offTruth / N).toBeGreaterThan(0.36);
    expect(offTruth / N).toBeLessThan(0.44);
  });

  it("is deterministic for (seed, critic, item) and rejects bad knobs", async () => {
    const o = { critic: "n", labels: LABELS, item: "x", noise: 0.9 };
    const runs = await Promise.all([1, 2, 3].map(() => ask(o, 11)));
    expect(new Set(runs.map((v) => `${v.kind}/${v.confidence}`)).size).toBe(1);
    expect(() => criticResponder({ ...o, noise: 1.5 })).toThrow(/noise/);
    expect(() => criticResponder({ ...o, bias: { label: "KEEP", rate: -1 } })).toThrow(/bias.rate/);
    expect(() => criticResponder({ ...o, labels: [] })).toThrow(/labels/);
  });
});
