// Issue 23: GET /v1/compare reads what each run's comparer kept when it was aggregated (R2,
// runs/<id>/item-scores-v<version>.json), never the samples, and keeps each answer (runs/<base>/compare/<head>/v<version>/…,
// with a runs/<head>/compared-with/<base> marker). Its answers must be those of the samples-based
// comparers it replaced, kept as the oracle in test/support/compare-oracle, on the same seeded runs.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { newTenant, problem, send, startRq, startRun, waitForRun, type RunJson } from "./helpers.ts";
import { comparison } from "./compare-helpers.ts";
import { oracleComparison } from "../support/compare-oracle/index.ts";
import { answerKey, basisKey } from "../../src/runs/results/comparison-store.ts";

async function succeeded(key: string, started: Promise<{ id: string }>): Promise<RunJson> {
  const run = await waitForRun(key, (await started).id);
  expect(run.status, run.error ?? "").toBe("succeeded");
  return run;
}

async function post(key: string, path: string, body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await send("POST", path, key, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as { id: string };
}

// 30 items: 20 reasoning, 10 robustness, as in compare-reasoning-quality.test.ts.
const DATASET = { synthetic: { seed: 42, num_reasoning: 20, num_adversarial: 0, num_robustness: 10 } };
const reasoner = (name: string, accuracy: number) => ({
  name,
  model: "sim:reasoner",
  simulator: { accuracy, verbosity: 3, variation: 0.2 },
});
const rq = (key: string, body: Record<string, unknown>) =>
  succeeded(key, startRq(key, { datasets: [DATASET], K: 2, P: 1, seed: 5, ...body }));

// 12 items of 4 labels, as in compare-judge.test.ts.
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
const critic = (name: string, simulator: Record<string, unknown> = {}) => ({ name, model: "sim:critic", simulator });
const judge = (key: string, body: Record<string, unknown>) =>
  succeeded(key, post(key, "/v1/judge/runs", { items: ITEMS, ...body }));

const cd = (key: string, body: Record<string, unknown>) =>
  succeeded(key, startRun(key, { model: "sim:agent", n_replays: 5, concurrency: 4, seed: 7, n_queries: 8, ...body }));
const rpl = (key: string, body: Record<string, unknown>) =>
  succeeded(
    key,
    post(key, "/v1/rpl/runs", {
      B: 200,
      claim: "Compare claim one.",
      model: "sim:rpl",
      K: 4,
      R: 2,
      seed: "7",
      ...body,
    }),
  );

/** The API's answer and the oracle's for the same query. */
async function both(
  t: { key: string; tenantId: string },
  base: string,
  head: string,
  q: { confidence?: number; min_effect?: number } = {},
) {
  const query = `${q.confidence === undefined ? "" : `&confidence=${q.confidence}`}${q.min_effect === undefined ? "" : `&min_effect=${q.min_effect}`}`;
  const api = await comparison(t.key, base, head, query);
  const oracle = await oracleComparison(env, t.tenantId, { base, head, ...q });
  return { api, oracle };
}

const objectKeys = async (prefix: string) => (await env.RESULTS.list({ prefix })).objects.map((o) => o.key).sort();

describe("GET /v1/compare from kept per-item scores", () => {
  it("answers what the samples-based comparers answered: reasoning-quality, judge, chain-determinism, rpl", async () => {
    const t = await newTenant();
    const [a, b] = [
      await rq(t.key, { models: [reasoner("reasoner", 0.9), reasoner("steady", 0.7)] }),
      await rq(t.key, { models: [reasoner("reasoner", 0.5), reasoner("steady", 0.7), reasoner("newcomer", 0.6)] }),
    ];
    const backed = {
      ls: { method: "model", model: "sim:checker" },
      ss: { method: "embeddings", model: "sim:embedder" },
    };
    const [c, d] = [
      await rq(t.key, { models: [reasoner("reasoner", 0.8)], ...backed }),
      await rq(t.key, { models: [reasoner("reasoner", 0.4)], ...backed }),
    ];
    const [h, r] = [
      await judge(t.key, { critics: [critic("a"), critic("b"), critic("c", { noise: 0.3 })], seed: 3 }),
      await judge(t.key, {
        critics: [critic("a"), critic("b", { noise: 0.5 }), critic("c", { bias: { label: "REJECT", rate: 0.6 } })],
        seed: 3,
      }),
    ];
    const [s, v] = [
      await cd(t.key, { simulator: { divergence: 0.2 } }),
      await cd(t.key, { simulator: { divergence: 0.7 } }),
    ];
    const [p, q] = [await rpl(t.key, {}), await rpl(t.key, { seed: "8" })];

    const cases: [string, string, { confidence?: number; min_effect?: number }][] = [
      [a.id, b.id, {}],
      [b.id, a.id, { confidence: 0.8, min_effect: 0.01 }],
      [c.id, d.id, {}],
      [h.id, r.id, {}],
      [r.id, h.id, { confidence: 0.9 }],
      [s.id, v.id, {}],
      [p.id, q.id, {}],
    ];
    for (const [base, head, query] of cases) {
      const { api, oracle } = await both(t, base, head, query);
      // Every interval is a bootstrap's percentile or a closed form: equal means the same doubles.
      expect(api, `${base} → ${head} ${JSON.stringify(query)}`).toEqual(oracle);
      // The bootstraps were exercised: some interval of each reasoning-quality and judge pair has a width.
      if (api.evaluator === "reasoning-quality" || api.evaluator === "judge") {
        expect(
          api.metrics.some((m) => m.method === "paired-bootstrap" && m.ci95 !== null && m.ci95[0] < m.ci95[1]),
          `${base} → ${head}`,
        ).toBe(true);
      }
    }
  });

  it("never reads the samples, and keeps each answer under both runs' prefixes", async () => {
    const t = await newTenant();
    const [a, b] = [
      await rq(t.key, { models: [reasoner("reasoner", 0.9)] }),
      await rq(t.key, { models: [reasoner("reasoner", 0.5)] }),
    ];
    expect(await objectKeys(`runs/${a.id}/item-scores`)).toEqual([basisKey(a.id)]);
    const oracle = await oracleComparison(env, t.tenantId, { base: a.id, head: b.id, confidence: 0.9 });

    // With the samples gone from D1, a comparison still gives the answer they gave.
    await env.DB.prepare("DELETE FROM samples WHERE run_id IN (?, ?)").bind(a.id, b.id).run();
    expect(await comparison(t.key, a.id, b.id, "&confidence=0.9")).toEqual(oracle);
    expect(await objectKeys(`runs/${a.id}/compare/`)).toEqual([answerKey(a.id, b.id, 0.9, 0)]);
    expect(await objectKeys(`runs/${b.id}/compared-with/`)).toEqual([`runs/${b.id}/compared-with/${a.id}`]);

    // Kept: with both runs' scores gone too, the same query is answered from the kept answer …
    await env.RESULTS.delete([basisKey(a.id), basisKey(b.id)]);
    expect(await comparison(t.key, a.id, b.id, "&confidence=0.9")).toEqual(oracle);
    // … while another one cannot be computed: a reasoning-quality run without kept scores is a 409 naming it.
    const gone = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${b.id}`, t.key), 409);
    expect(gone.detail).toContain(`Run '${a.id}' was aggregated before per-item scores were kept`);
    // Another tenant sees neither run, kept answer or not.
    const other = await newTenant("other");
    await problem(await send("GET", `/v1/compare?base=${a.id}&head=${b.id}&confidence=0.9`, other.key), 404);
  });

  it("builds the scores of a run aggregated before they were kept from its result, once, where the comparer can", async () => {
    const t = await newTenant();
    const [h, r] = [
      await judge(t.key, { critics: [critic("a"), critic("b"), critic("c", { noise: 0.4 })], seed: 1 }),
      await judge(t.key, { critics: [critic("a"), critic("b", { noise: 0.4 }), critic("c", { noise: 0.4 })], seed: 1 }),
    ];
    const kept = await (await env.RESULTS.get(basisKey(h.id)))!.text();
    await env.RESULTS.delete(basisKey(h.id));
    const { api, oracle } = await both(t, h.id, r.id);
    expect(api).toEqual(oracle);
    expect(await (await env.RESULTS.get(basisKey(h.id)))!.text()).toBe(kept);
  });
});
