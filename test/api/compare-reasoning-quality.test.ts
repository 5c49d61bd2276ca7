// Issue 18: GET /v1/compare for reasoning-quality runs: per model (matched by name) and metric, paired by
// item. The simulated reasoner knows an item when a draw fixed by (seed, model name, item) falls under its
// accuracy, so on the same items a reasoner of accuracy 0.5 knows a subset of what one of 0.9 knows: the
// difference is known in direction, and its size is read back from the two results, never from the
// comparison itself.
import { describe, expect, it } from "vitest";
import { newTenant, problem, send, startRq, waitForRun, type RunJson } from "./helpers.ts";
import { byName, comparison } from "./compare-helpers.ts";

const METRICS = ["correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability"];
// 30 items: 20 reasoning, 10 robustness (both kinds have paraphrases, so RS is measured).
const DATASET = { synthetic: { seed: 42, num_reasoning: 20, num_adversarial: 0, num_robustness: 10 } };
const sim = (name: string, accuracy: number) => ({
  name,
  model: "sim:reasoner",
  simulator: { accuracy, verbosity: 3, variation: 0.2 },
});

async function rq(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const run = await waitForRun(key, (await startRq(key, { datasets: [DATASET], K: 2, P: 1, seed: 5, ...body })).id);
  expect(run.status).toBe("succeeded");
  return run;
}

const modelOf = (run: RunJson, name: string) => run.result.models.find((m: { model: string }) => m.model === name);

describe("GET /v1/compare (reasoning-quality)", () => {
  it("the same settings and seed twice: no_change on every metric and strategy, nothing flipped", async () => {
    const { key } = await newTenant();
    const body = { models: [sim("reasoner", 0.7)] };
    const [a, b] = [await rq(key, body), await rq(key, body)];
    const c = await comparison(key, a.id, b.id);
    expect(c.paired).toBe(true);
    const strategies = Object.keys(a.result.strategies);
    expect(c.metrics.map((m) => m.name)).toEqual([
      ...METRICS.map((k) => `reasoner.${k}`),
      ...strategies.map((s) => `reasoner.q.${s}`),
    ]);
    for (const m of c.metrics) {
      expect(m.delta, m.name).toBe(0);
      expect(m.verdict, m.name).toBe("no_change");
      expect(m.higher_is_better, m.name).toBe(true);
    }
    // Every figure was rebuilt from the samples (so it has an interval); identical items give a zero delta
    // on every resample.
    expect(byName(c, "reasoner.correctness")).toMatchObject({ method: "newcombe-paired", p_value: 1 });
    for (const k of METRICS.slice(1))
      expect(byName(c, `reasoner.${k}`), k).toMatchObject({ method: "paired-bootstrap", ci95: [0, 0] });
    expect(c.verdict).toBe("no_change");
    expect(c.flipped).toEqual([]);
    expect(c.details.models).toEqual({ compared: ["reasoner"], base_only: [], head_only: [] });
    expect(c.details.no_interval).toBeUndefined();
  });

  it("a reasoner of accuracy 0.9 against one of 0.5 on the same items: correctness regressed", async () => {
    const { key } = await newTenant();
    const a = await rq(key, { models: [sim("reasoner", 0.9), sim("steady", 0.7)] });
    const b = await rq(key, { models: [sim("reasoner", 0.5), sim("steady", 0.7), sim("newcomer", 0.6)] });
    const c = await comparison(key, a.id, b.id);
    expect(c.paired).toBe(true);
    expect(c.details.items).toBe(30);
    expect(c.details.models).toEqual({ compared: ["reasoner", "steady"], base_only: [], head_only: ["newcomer"] });

    // The figures are the results', and each was reproduced from the samples (an interval, not `none`).
    for (const name of ["reasoner", "steady"]) {
      for (const k of METRICS) {
        const m = byName(c, `${name}.${k}`);
        expect([m.base, m.head], `${name}.${k}`).toEqual([
          modelOf(a, name).raw_metrics[k],
          modelOf(b, name).raw_metrics[k],
        ]);
        expect(m.ci95, `${name}.${k}`).not.toBeNull();
      }
      for (const s of Object.keys(a.result.strategies)) {
        const m = byName(c, `${name}.q.${s}`);
        expect([m.base, m.head]).toEqual([modelOf(a, name).aggregated[s], modelOf(b, name).aggregated[s]]);
      }
    }

    const cq = byName(c, "reasoner.correctness");
    expect(cq.base! - cq.head!).toBeGreaterThan(0.2);
    expect(cq.verdict).toBe("regressed");
    expect(cq.ci95![1]).toBeLessThan(0);
    expect(cq.p_value!).toBeLessThan(0.05);
    expect(c.verdict).toBe("regressed");

    // The flipped items are the reasoner's; the 0.5 reasoner knows a subset of the 0.9 one's items, so every
    // flip goes from correct to wrong, and their number is the drop in correct items: (cq_b − cq_h) · 30.
    expect(c.flipped.every((f) => f.id.startsWith("reasoner/") && f.base === "correct" && f.head === "wrong")).toBe(
      true,
    );
    expect(c.flipped.length).toBe(Math.round((cq.base! - cq.head!) * 30));
    // The 2×2 table behind the paired interval, from the results and the flips alone.
    const baseCorrect = Math.round(cq.base! * 30);
    expect(c.details.correctness.reasoner).toEqual({
      items: 30,
      both_correct: baseCorrect - c.flipped.length,
      base_only_correct: c.flipped.length,
      head_only_correct: 0,
      neither_correct: 30 - baseCorrect,
    });

    // `steady` answered exactly the same in both runs (its draws depend on its name, the item and the seed).
    for (const m of c.metrics.filter((x) => x.name.startsWith("steady."))) {
      expect(m.delta, m.name).toBe(0);
      expect(m.verdict, m.name).toBe("no_change");
    }

    // Rank changes per strategy, as the two results' rankings say.
    const rank = (run: RunJson, s: string, model: string) =>
      run.result.rankings[s].find((r: { model: string }) => r.model === model).rank;
    for (const s of Object.keys(a.result.strategies)) {
      const expected = ["reasoner", "steady"]
        .map((model) => ({ model, base_rank: rank(a, s, model), head_rank: rank(b, s, model) }))
        .filter((x) => x.base_rank !== x.head_rank);
      expect(c.details.rank_changes[s], s).toEqual(expected);
    }
  });

  it("model-backed LS is rebuilt from the recorded labels; SS by embeddings (not stored) keeps its figures without an interval", async () => {
    const { key } = await newTenant();
    const body = {
      models: [sim("reasoner", 0.7)],
      ls: { method: "model", model: "sim:checker" },
      ss: { method: "embeddings", model: "sim:embedder" },
    };
    const [a, b] = [await rq(key, body), await rq(key, body)];
    expect(modelOf(a, "reasoner").extensions).toMatchObject({ ls_method: "model", ss_method: "embeddings" });
    const c = await comparison(key, a.id, b.id);
    expect(byName(c, "reasoner.logical_coherence")).toMatchObject({ method: "paired-bootstrap", ci95: [0, 0] });
    expect(byName(c, "reasoner.stability")).toMatchObject({
      base: modelOf(a, "reasoner").raw_metrics.stability,
      delta: 0,
      ci95: null,
      method: "none",
      verdict: "no_change",
    });
    // Every built-in strategy weighs SS, so no Q can be rebuilt either; the details say which figures have no interval.
    const strategies = Object.keys(a.result.strategies);
    for (const s of strategies) expect(byName(c, `reasoner.q.${s}`), s).toMatchObject({ ci95: null, method: "none" });
    expect([...c.details.no_interval.reasoner].sort()).toEqual(
      ["stability", ...strategies.map((s) => `q.${s}`)].sort(),
    );
  });

  it("422 for runs of different items, different K, or no model in common", async () => {
    const { key } = await newTenant();
    const a = await rq(key, {
      models: [sim("reasoner", 0.7)],
      datasets: [{ synthetic: { seed: 1, num_reasoning: 4, num_adversarial: 0, num_robustness: 0 } }],
    });
    const b = await rq(key, {
      models: [sim("reasoner", 0.7)],
      datasets: [{ synthetic: { seed: 2, num_reasoning: 4, num_adversarial: 0, num_robustness: 0 } }],
    });
    const c = await rq(key, {
      models: [sim("reasoner", 0.7)],
      datasets: [{ synthetic: { seed: 1, num_reasoning: 4, num_adversarial: 0, num_robustness: 0 } }],
      K: 3,
    });
    const d = await rq(key, {
      models: [sim("other", 0.7)],
      datasets: [{ synthetic: { seed: 1, num_reasoning: 4, num_adversarial: 0, num_robustness: 0 } }],
    });

    const items = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${b.id}`, key), 422);
    expect(items.errors).toEqual([
      {
        path: "config.datasets",
        message:
          "base evaluates synthetic (seed 1: 4/0/0), head synthetic (seed 2: 4/0/0): the same items are needed to pair them",
      },
    ]);
    const k = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${c.id}`, key), 422);
    expect(k.errors).toEqual([
      { path: "config.metrics.consistency_runs", message: "base has 2, head 3" },
      { path: "config.metrics.stability_runs", message: "base has 2, head 3" },
    ]);
    const models = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${d.id}`, key), 422);
    expect(models.errors).toEqual([
      { path: "config.models", message: "no model name is in both runs (base: reasoner; head: other)" },
    ]);
  });

  it("runs on an uploaded dataset are paired on its items (read back: datasets never change); once it is deleted, only the figures", async () => {
    const { key } = await newTenant();
    const upload = await send("POST", "/v1/reasoning-quality/datasets", key, {
      name: "sums",
      format: "json",
      items: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => ({
        question: `What is ${i} + ${i}?`,
        answer: String(2 * i),
      })),
    });
    expect(upload.status).toBe(201);
    const { id } = (await upload.json()) as { id: string };
    const body = (accuracy: number) => ({ models: [sim("reasoner", accuracy)], datasets: [{ id }], P: 0 });
    const [a, b] = [await rq(key, body(1)), await rq(key, body(0))];
    const c = await comparison(key, a.id, b.id);
    expect(c.paired).toBe(true);
    const cq = byName(c, "reasoner.correctness");
    // Every item correct in base and wrong in head: 12 discordant pairs one way, McNemar p = 2 · 2⁻¹².
    expect(cq).toMatchObject({
      base: 1,
      head: 0,
      delta: -1,
      method: "newcombe-paired",
      p_value: 2 / 4096,
      verdict: "regressed",
    });
    expect(cq.ci95![1]).toBeLessThan(0);
    expect(c.flipped).toHaveLength(12);
    expect(c.flipped.every((f) => f.base === "correct" && f.head === "wrong")).toBe(true);

    expect((await send("DELETE", `/v1/reasoning-quality/datasets/${id}`, key)).status).toBe(204);
    const gone = await comparison(key, a.id, b.id);
    expect(gone.paired).toBe(false);
    expect(gone.details.unpaired_reason).toMatch(/deleted/);
    const figures = byName(gone, "reasoner.correctness");
    expect(figures).toMatchObject({ base: 1, head: 0, delta: -1, ci95: null, method: "none" });
    // No interval and no noise floor set: a point estimate alone makes no verdict …
    expect(figures.verdict).toBe("no_change");
    // … while a floor the caller sets does.
    const floored = await comparison(key, a.id, b.id, "&min_effect=0.5");
    expect(byName(floored, "reasoner.correctness").verdict).toBe("regressed");
  });
});
