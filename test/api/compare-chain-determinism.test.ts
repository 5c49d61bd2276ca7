// Issue 18: GET /v1/compare for chain-determinism runs. Expected values are computed here from the two
// runs' own per-query results (McNemar's exact p by summing binomial terms, Newcombe's interval from
// Wilson limits written out), never read from the comparison.
import { describe, expect, it } from "vitest";
import { newTenant, problem, send, startRun, waitForRun, type RunJson } from "./helpers.ts";
import { byName, compare, comparison, wilsonLimits } from "./compare-helpers.ts";

async function run(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const done = await waitForRun(
    key,
    (await startRun(key, { model: "sim:agent", n_replays: 5, concurrency: 4, seed: 7, ...body })).id,
  );
  expect(done.status).toBe("succeeded");
  return done;
}

/** C(n, k) as a float, from the product formula (exact for the small n here). */
function choose(n: number, k: number): number {
  let c = 1;
  for (let j = 1; j <= k; j++) c = (c * (n - k + j)) / j;
  return c;
}

/** Two-sided exact McNemar: 2·P(X ≤ min(b, c)) for X ~ Binomial(b + c, ½), capped at 1. */
function mcnemar(b: number, c: number): number {
  const m = b + c;
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) tail += choose(m, i) / 2 ** m;
  return Math.min(1, 2 * tail);
}

describe("GET /v1/compare (chain-determinism)", () => {
  it("the same settings and seed twice: no_change on every metric, nothing flipped", async () => {
    const { key } = await newTenant();
    const body = { n_queries: 6, simulator: { divergence: 0.4 } };
    const [a, b] = [await run(key, body), await run(key, body)];
    const c = await comparison(key, a.id, b.id);
    expect(c.paired).toBe(true);
    expect(c.metrics.map((m) => m.name)).toEqual(["divergence_rate", "error_rate", "modal_share_mean"]);
    for (const m of c.metrics) {
      expect(m.delta, m.name).toBe(0);
      expect(m.verdict, m.name).toBe("no_change");
    }
    expect(c.verdict).toBe("no_change");
    expect(c.flipped).toEqual([]);
    expect(byName(c, "divergence_rate").p_value).toBe(1); // no discordant query
  });

  it("divergence 0 against 0.9 on the same suite: regressed, paired by query, with the exact test on the flipped queries", async () => {
    const { key } = await newTenant();
    const base = await run(key, { n_queries: 10, simulator: { divergence: 0 } });
    const head = await run(key, { n_queries: 10, simulator: { divergence: 0.9 } });
    const c = await comparison(key, base.id, head.id);
    expect(c.paired).toBe(true);

    // The discordant queries, from the runs' own per-query results.
    type Q = { query_id: string; status: string; diverged: boolean | null };
    const headBy = new Map((head.result.per_query as Q[]).map((q) => [q.query_id, q]));
    const pairs = (base.result.per_query as Q[])
      .map((q) => [q, headBy.get(q.query_id)!] as const)
      .filter(([b, h]) => b.status === "measurable" && h.status === "measurable");
    const toDiverged = pairs.filter(([b, h]) => !b.diverged && h.diverged).map(([b]) => b.query_id);
    const toStable = pairs.filter(([b, h]) => b.diverged && !h.diverged).map(([b]) => b.query_id);
    expect(toStable).toEqual([]); // divergence 0 never diverges
    expect(toDiverged.length).toBeGreaterThanOrEqual(6); // else the test below could not be significant

    const rate = byName(c, "divergence_rate");
    expect(rate.method).toBe("newcombe-paired");
    expect(rate.base).toBe(0);
    expect(rate.head).toBeCloseTo(pairs.filter(([, h]) => h.diverged).length / pairs.length, 12);
    expect(rate.p_value).toBeCloseTo(mcnemar(toStable.length, toDiverged.length), 12);
    expect(rate.p_value!).toBeLessThan(0.05);
    expect(rate.ci95![0]).toBeGreaterThan(0);
    expect(rate.verdict).toBe("regressed");
    expect(c.verdict).toBe("regressed");
    expect(c.flipped).toEqual(toDiverged.map((id) => ({ id, base: "stable", head: "diverged" })));
    // Modal shares fall where replays came apart; divergence 0 keeps every query at 1.
    const share = byName(c, "modal_share_mean");
    expect(share.base).toBe(1);
    expect(share.verdict).toBe("regressed");
    expect(c.details.modal_share).toHaveLength(pairs.length);
  });

  it("different queries of the suite are compared unpaired, with Newcombe's interval for independent proportions", async () => {
    const { key } = await newTenant();
    const base = await run(key, { n_queries: 3, simulator: { divergence: 0 } });
    const head = await run(key, { n_queries: 4, simulator: { divergence: 0.9 } });
    const c = await comparison(key, base.id, head.id);
    expect(c.paired).toBe(false);
    expect(c.flipped).toEqual([]);
    const rate = byName(c, "divergence_rate");
    expect(rate.method).toBe("newcombe");
    expect(rate.p_value).toBeNull();
    // Newcombe (1998a) method 10 from each run's diverged / measurable, z = Φ⁻¹(0.975).
    const z = 1.959963984540054;
    const [k1, n1, k2, n2] = [
      base.result.n_diverged,
      base.result.n_measurable,
      head.result.n_diverged,
      head.result.n_measurable,
    ];
    const [p1, p2] = [k1 / n1, k2 / n2];
    const [l1, u1] = wilsonLimits(k1, n1, z);
    const [l2, u2] = wilsonLimits(k2, n2, z);
    expect(rate.ci95![0]).toBeCloseTo(p2 - p1 - Math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), 12);
    expect(rate.ci95![1]).toBeCloseTo(p2 - p1 + Math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2), 12);
    expect(c.metrics.map((m) => m.name)).toEqual(["divergence_rate", "error_rate"]);
    expect(c.details.pairing.paired).toBe(false);
  });

  it("answers 422 naming what differs: n_replays, the evaluator, a run that has not succeeded", async () => {
    const { key } = await newTenant();
    const five = await run(key, { n_queries: 1, min_success: 2 });
    const three = await run(key, { n_queries: 1, n_replays: 3, min_success: 2 });
    const replays = await problem(await compare(key, five.id, three.id), 422);
    expect(replays.errors).toEqual([{ path: "config.n_replays", message: "base has 5, head 3" }]);

    const judge = await send("POST", "/v1/judge/runs", key, {
      items: [{ id: "a", query: "Is this fine?" }],
      critics: [{ name: "x", model: "sim:critic" }],
    });
    const judged = await waitForRun(key, ((await judge.json()) as RunJson).id);
    const evaluators = await problem(await compare(key, five.id, judged.id), 422);
    expect(evaluators.errors?.map((e) => e.path)).toEqual(["evaluator"]);

    // A slow run, canceled: never succeeded.
    const slow = await startRun(key, {
      model: "sim:agent",
      n_queries: 1,
      n_replays: 5,
      simulator: { latency_ms: 30_000 },
    });
    await send("POST", `/v1/runs/${slow.id}/cancel`, key);
    const canceled = await waitForRun(key, slow.id);
    expect(canceled.status).toBe("canceled");
    const unfinished = await problem(await compare(key, five.id, slow.id), 422);
    expect(unfinished.errors).toEqual([{ path: "head.status", message: `'${slow.id}' has not succeeded (canceled)` }]);
  });
});
