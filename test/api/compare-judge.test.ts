// Issue 18: GET /v1/compare for judge runs. The simulated critics are predictable (an honest one answers
// each item's `expected`, one biased at rate 1 always answers its label), so every expected value below
// is worked out by hand from the items' labels, not read from a run.
import { describe, expect, it } from "vitest";
import { newTenant, problem, send, waitForRun, type RunJson } from "./helpers.ts";
import { byName, comparison, wilsonLimits } from "./compare-helpers.ts";

// 12 items: 4 REJECT, 4 KEEP, 2 SPLIT, 2 MERGE.
const EXPECTED = [
  "KEEP",
  "REJECT",
  "SPLIT",
  "MERGE",
  "KEEP",
  "REJECT",
  "KEEP",
  "SPLIT",
  "REJECT",
  "MERGE",
  "KEEP",
  "REJECT",
];
const ITEMS = EXPECTED.map((expected, i) => ({ id: `item-${i}`, query: `Question number ${i}?`, expected }));
const honest = (name: string) => ({ name, model: "sim:critic" });
const rejecter = (name: string) => ({ name, model: "sim:critic", simulator: { bias: { label: "REJECT", rate: 1 } } });

async function judge(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const res = await send("POST", "/v1/judge/runs", key, { items: ITEMS, ...body });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`judge run: ${res.status} ${text}`);
  const run = await waitForRun(key, (JSON.parse(text) as RunJson).id);
  expect(run.status).toBe("succeeded");
  return run;
}

describe("GET /v1/compare (judge)", () => {
  it("the same panel, items and seed twice: no_change on every metric, no consensus changed", async () => {
    const { key } = await newTenant();
    const body = {
      critics: ["x", "y", "z"].map((name) => ({ name, model: "sim:critic", simulator: { noise: 0.6 } })),
      seed: 3,
    };
    const [a, b] = [await judge(key, body), await judge(key, body)];
    const c = await comparison(key, a.id, b.id);
    expect(c.paired).toBe(true);
    expect(c.metrics.map((m) => m.name)).toEqual(["accuracy", "agreement", "batch_alpha"]);
    for (const m of c.metrics) {
      expect(m.delta, m.name).toBe(0);
      expect(m.verdict, m.name).toBe("no_change");
    }
    expect(byName(c, "accuracy").p_value).toBe(1);
    expect(c.verdict).toBe("no_change");
    expect(c.flipped).toEqual([]);
  });

  it("a biased critic: agreement and alpha fall while the majority keeps the consensus; a second one flips it and accuracy regresses", async () => {
    const { key } = await newTenant();
    const h = await judge(key, { critics: [honest("a"), honest("b"), honest("c")] });
    const r1 = await judge(key, { critics: [honest("a"), honest("b"), rejecter("c")] });
    const r2 = await judge(key, { critics: [honest("a"), rejecter("b"), rejecter("c")] });

    // Three honest critics against (honest, honest, rejecter).
    const one = await comparison(key, h.id, r1.id);
    // agreement_pct: 1 on every item; then 1 on the 4 REJECT items and 2/3 on the 8 others: (4 + 8·2/3)/12 = 7/9.
    const agreement = byName(one, "agreement");
    expect([agreement.base, agreement.head]).toEqual([1, expect.closeTo(7 / 9, 12)]);
    expect(agreement.verdict).toBe("regressed");
    // Alpha (nominal), 36 values in 12 units of 3. Honest: perfect agreement over 4 labels → 1.
    // (x, x, REJECT) units add o_xx = 2·1/2 = 1, o_xR = o_Rx = 2·1/2 = 1; (R, R, R) units o_RR = 3·2/2 = 3.
    // n_R = 12 + 8 = 20, n_KEEP = 8, n_SPLIT = n_MERGE = 4; Σ n_c² = 496; disagreement n − Σ o_cc = 36 − 20 = 16:
    // α = 1 − (n − 1)·16 / (n² − Σ n_c²) = 1 − 35·16/800 = 0.3.
    const alpha = byName(one, "batch_alpha");
    expect(alpha.base).toBe(1);
    expect(alpha.head).toBeCloseTo(0.3, 12);
    // Every resample holding a non-REJECT item has head α < 1 = base α (one holding none has no α): below 0.
    expect(alpha.ci95![1]).toBeLessThan(0);
    expect(alpha.verdict).toBe("regressed");
    // Two honest critics still outvote the rejecter: accuracy stays 1.
    expect(byName(one, "accuracy")).toMatchObject({ base: 1, head: 1, delta: 0, p_value: 1, verdict: "no_change" });
    expect(one.flipped).toEqual([]);
    expect(one.verdict).toBe("regressed");
    // The changed critic shows in its agreement with the consensus: 1 → 4/12.
    expect(one.details.per_critic).toContainEqual({ critic: "c", base: 1, head: 4 / 12 });

    // (honest, honest, rejecter) against (honest, rejecter, rejecter): the 8 non-REJECT items now vote REJECT.
    const two = await comparison(key, r1.id, r2.id);
    const flipped = ITEMS.filter((it) => it.expected !== "REJECT").map((it) => ({
      id: it.id,
      base: it.expected,
      head: "REJECT",
    }));
    expect(two.flipped).toEqual(flipped);
    const accuracy = byName(two, "accuracy");
    expect(accuracy.method).toBe("newcombe-paired");
    expect([accuracy.base, accuracy.head]).toEqual([1, 4 / 12]);
    // McNemar exact: 8 items right only in base, 0 only in head: p = 2·C(8, 0)/2⁸ = 2/256.
    expect(accuracy.p_value).toBeCloseTo(2 / 256, 15);
    // Newcombe (1998b) method 10, table a = 4 (right in both), b = 0 (head only), c = 8 (base only), d = 0:
    // φ̂ = 0 (a zero margin), θ = (b − c)/n = −8/12, with the Wilson limits of head 4/12 and base 12/12.
    const z = 1.959963984540054;
    const [l1, u1] = wilsonLimits(4, 12, z);
    const [l2, u2] = wilsonLimits(12, 12, z);
    const theta = -8 / 12;
    expect(accuracy.ci95![0]).toBeCloseTo(theta - Math.hypot(4 / 12 - l1, u2 - 1), 12);
    expect(accuracy.ci95![1]).toBeCloseTo(theta + Math.hypot(u1 - 4 / 12, 1 - l2), 12);
    expect(accuracy.verdict).toBe("regressed");
    expect(two.details.accuracy).toEqual({
      items: 12,
      both_correct: 4,
      base_only_correct: 8,
      head_only_correct: 0,
      neither_correct: 0,
    });
    // Agreement is 7/9 in both: a 2-against-1 split, whichever side wins.
    expect(byName(two, "agreement")).toMatchObject({ delta: 0, verdict: "no_change" });
    // (x, R, R) units: o_RR = 2·1/2 = 1, o_xR = o_Rx = 1. n_R = 20 + 8 = 28, n_KEEP = 4, n_SPLIT = n_MERGE = 2;
    // Σ n_c² = 808, disagreement 36 − 20 = 16: α = 1 − 35·16/(1296 − 808) = 1 − 560/488.
    expect(byName(two, "batch_alpha").head).toBeCloseTo(1 - 560 / 488, 12);
    expect(two.verdict).toBe("regressed");
  });

  it("answers 422 naming config.items or config.labels when the runs judged other items or labels", async () => {
    const { key } = await newTenant();
    const small = (items: { id: string; expected?: string }[], extra: Record<string, unknown> = {}) =>
      judge(key, {
        items: items.map((it) => ({ query: `What about ${it.id}?`, ...it })),
        critics: [honest("a")],
        ...extra,
      });
    const ab = await small([{ id: "a" }, { id: "b" }]);
    const ac = await small([{ id: "a" }, { id: "c" }]);
    const items = await problem(await send("GET", `/v1/compare?base=${ab.id}&head=${ac.id}`, key), 422);
    expect(items.errors).toEqual([
      { path: "config.items", message: "base has 2 items, head 2; only in base: 'b'; only in head: 'c'" },
    ]);

    const expects = await small([{ id: "a", expected: "KEEP" }, { id: "b" }]);
    const moved = await problem(await send("GET", `/v1/compare?base=${ab.id}&head=${expects.id}`, key), 422);
    expect(moved.errors?.map((e) => e.path)).toEqual(["config.items"]);
    expect(moved.errors?.[0].message).toContain("'a' expects nothing in base, KEEP in head");

    const twoLabels = await small([{ id: "a" }, { id: "b" }], { labels: ["KEEP", "REJECT"] });
    const labels = await problem(await send("GET", `/v1/compare?base=${ab.id}&head=${twoLabels.id}`, key), 422);
    expect(labels.errors).toEqual([
      { path: "config.labels", message: "base has KEEP, REJECT, SPLIT, MERGE, UNCLEAR; head KEEP, REJECT" },
    ]);
  });
});
