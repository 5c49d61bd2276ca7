// Issue 18: GET /v1/compare for rpl runs, the generic compare's case of GET /v1/rpl/compare: the same
// parity (422 naming the settings) and the same winner, plus each figure's change. prob_true_rpl's
// interval combines the two runs' own intervals (MOVER); the expected intervals below are worked out from
// the runs' published ci95 with the formula written out here, and the formula itself is checked against
// Newcombe's published example.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { registerScenario } from "../support/fake-openai.ts";
import { moverDifference } from "../../src/engines/stats/index.ts";
import { newTenant, problem, send, waitForRun, type RunJson } from "./helpers.ts";
import { byName, comparison, wilsonLimits } from "./compare-helpers.ts";

async function rplRun(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const res = await send("POST", "/v1/rpl/runs", key, { B: 200, ...body });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`rpl run: ${res.status} ${text}`);
  const run = await waitForRun(key, (JSON.parse(text) as RunJson).id);
  expect(run.status).toBe("succeeded");
  return run;
}

async function rplWinner(
  key: string,
  a: string,
  b: string,
): Promise<{ dimension: string | null; winner: { run_id: string | null; rule: string } }> {
  const res = await send("GET", `/v1/rpl/compare?runs=${a},${b}`, key);
  expect(res.status).toBe(200);
  return (await res.json()) as { dimension: string | null; winner: { run_id: string | null; rule: string } };
}

/** The MOVER limits of h − b from each estimate's own interval (Zou & Donner 2008), written out again. */
function mover(b: number, [lb, ub]: number[], h: number, [lh, uh]: number[]): [number, number] {
  return [h - b - Math.sqrt((h - lh) ** 2 + (ub - b) ** 2), h - b + Math.sqrt((uh - h) ** 2 + (b - lb) ** 2)];
}

describe("moverDifference", () => {
  it("with Wilson limits it is Newcombe's method 10: his example 56/70 − 48/80 gives 0.0524 to 0.3339", () => {
    // Newcombe (1998), Statistics in Medicine 17:873–890, Table II example (a), method 10.
    const z = 1.959963984540054;
    const [lo, hi] = moverDifference(48 / 80, wilsonLimits(48, 80, z), 56 / 70, wilsonLimits(56, 70, z));
    expect(lo).toBeCloseTo(0.0524, 4);
    expect(hi).toBeCloseTo(0.3339, 4);
  });

  it("for symmetric intervals it is d ± sqrt(hb² + hh²)", () => {
    // base 0.30 ± 0.03, head 0.50 ± 0.04: d = 0.20, half-width sqrt(0.03² + 0.04²) = 0.05.
    const [lo, hi] = moverDifference(0.3, [0.27, 0.33], 0.5, [0.46, 0.54]);
    expect(lo).toBeCloseTo(0.15, 12);
    expect(hi).toBeCloseTo(0.25, 12);
  });

  it("refuses an estimate outside its interval", () => {
    expect(() => moverDifference(0.5, [0.6, 0.7], 0.5, [0.4, 0.6])).toThrow(RangeError);
  });
});

describe("GET /v1/compare (rpl)", () => {
  it("the same settings and seed twice: no_change on every metric, and the winner GET /v1/rpl/compare names", async () => {
    const { key } = await newTenant();
    const body = { claim: "Compare claim one.", model: "sim:rpl", K: 4, R: 2, seed: "7" };
    const [a, b] = [await rplRun(key, body), await rplRun(key, body)];
    const c = await comparison(key, a.id, b.id);
    expect(c.evaluator).toBe("rpl");
    expect(c.paired).toBe(false);
    expect(c.metrics.map((m) => m.name)).toEqual(["prob_true_rpl", "ci_width", "stability_score", "pqs"]);
    for (const m of c.metrics) {
      expect(m.delta, m.name).toBe(0);
      expect(m.verdict, m.name).toBe("no_change");
    }
    expect(c.verdict).toBe("no_change");
    expect(c.flipped).toEqual([]);
    const original = await rplWinner(key, a.id, b.id);
    expect(c.details.winner).toEqual(original.winner);
    expect(c.details.dimension).toBe(original.dimension);
    // Identical runs: the two intervals' distances, combined, on each side of 0.
    const r = a.result.aggregates;
    const expected = mover(r.prob_true_rpl, r.ci95, r.prob_true_rpl, r.ci95);
    expect(byName(c, "prob_true_rpl").ci95![0]).toBeCloseTo(expected[0], 12);
    expect(byName(c, "prob_true_rpl").ci95![1]).toBeCloseTo(expected[1], 12);
    expect(c.details.prob_true_rpl).toEqual({ two_sided: true, moved: false, direction: null });
  });

  it("a model with no spread against one with spread: the CI width regresses, the prior's move is two-sided, the winner is the original's", async () => {
    const { key } = await newTenant();
    // One answer for every prompt: every template mean is the same logit, so the CI is a point (width 0).
    const steady = `rpl-steady-${Date.now()}`;
    await registerScenario(env.FAKE_OPENAI_URL, {
      id: steady,
      text: JSON.stringify({
        prob_true: 0.7,
        confidence_self: 0.6,
        assumptions: [],
        reasoning_bullets: ["a", "b", "c"],
        contrary_considerations: ["x", "y"],
        ambiguity_flags: [],
      }),
    });
    const claim = "Compare claim two.";
    const a = await rplRun(key, {
      claim,
      model: steady,
      provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-rpl-compare-0000000000" },
      K: 8,
      R: 2,
    });
    const b = await rplRun(key, { claim, model: "sim:rpl", K: 8, R: 2 });
    const [ra, rb] = [a.result.aggregates, b.result.aggregates];
    expect(ra.ci_width).toBe(0);
    // The simulator spreads its answers by template (±0.08) and replicate (±0.03): its CI is wider than 0.003.
    expect(rb.ci_width).toBeGreaterThan(0.003);

    const c = await comparison(key, a.id, b.id);
    const width = byName(c, "ci_width");
    expect(width).toMatchObject({
      base: 0,
      head: rb.ci_width,
      higher_is_better: false,
      ci95: null,
      method: "none",
      verdict: "regressed",
    });
    expect(byName(c, "stability_score")).toMatchObject({
      base: ra.stability_score,
      head: rb.stability_score,
      ci95: null,
    });
    expect(byName(c, "pqs")).toMatchObject({ base: a.result.quality.pqs, head: b.result.quality.pqs, ci95: null });
    expect(c.verdict).toBe("regressed");

    const p = byName(c, "prob_true_rpl");
    expect(p.delta).toBeCloseTo(rb.prob_true_rpl - ra.prob_true_rpl, 15);
    const expected = mover(ra.prob_true_rpl, ra.ci95, rb.prob_true_rpl, rb.ci95);
    expect(p.ci95![0]).toBeCloseTo(expected[0], 12);
    expect(p.ci95![1]).toBeCloseTo(expected[1], 12);
    expect(p.method).toBe("combined-bootstraps");
    // Never a verdict: a prior that moves is not better or worse. Whether it moved is in details.
    expect(p.verdict).toBe("no_change");
    const moved = expected[0] > 0 || expected[1] < 0;
    expect(c.details.prob_true_rpl).toEqual({
      two_sided: true,
      moved,
      direction: moved ? (p.delta! > 0 ? "up" : "down") : null,
    });

    const original = await rplWinner(key, a.id, b.id);
    expect(original.dimension).toBe("model");
    expect(c.details).toMatchObject({ dimension: "model", winner: original.winner });
    // The narrowest CI (width 0, narrower by more than 0.003) wins on the original's first rule.
    expect(original.winner).toEqual({ run_id: a.id, rule: "ci_width" });

    // Another confidence: each run's interval is taken there by z(0.90)/z(0.95) before combining.
    const c90 = await comparison(key, a.id, b.id, "&confidence=0.9");
    const scale = 1.6448536269514722 / 1.959963984540054;
    const at = (x: number, [lo, hi]: number[]) => [x - (x - lo) * scale, x + (hi - x) * scale];
    const e90 = mover(ra.prob_true_rpl, at(ra.prob_true_rpl, ra.ci95), rb.prob_true_rpl, at(rb.prob_true_rpl, rb.ci95));
    expect(byName(c90, "prob_true_rpl").ci95![0]).toBeCloseTo(e90[0], 12);
    expect(byName(c90, "prob_true_rpl").ci95![1]).toBeCloseTo(e90[1], 12);

    // A noise floor above the width change makes it no_change.
    const floor = await comparison(key, a.id, b.id, `&min_effect=${rb.ci_width + 0.01}`);
    expect(byName(floor, "ci_width").verdict).toBe("no_change");
  });

  it("422 for runs of different claims or K, or that vary a second setting, naming each with both runs' values", async () => {
    const { key } = await newTenant();
    const base = { model: "sim:rpl", K: 2, R: 2 };
    const a = await rplRun(key, { ...base, claim: "Compare claim three." });
    const b = await rplRun(key, { ...base, claim: "Compare claim four." });
    const c = await rplRun(key, { ...base, claim: "Compare claim three.", K: 4 });
    const d = await rplRun(key, { ...base, claim: "Compare claim three.", K: 4, model: "sim:rpl-other" });
    const claim = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${b.id}`, key), 422);
    expect(claim.errors).toEqual([
      { path: "config.claim", message: 'base has "Compare claim three.", head "Compare claim four."' },
    ]);
    const k = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${c.id}`, key), 422);
    expect(k.errors).toEqual([{ path: "config.K", message: "base has 2, head 4" }]);
    // The model may vary alone; with K it cannot, and both are named (as GET /v1/rpl/compare names them).
    const two = await problem(await send("GET", `/v1/compare?base=${a.id}&head=${d.id}`, key), 422);
    expect(two.errors!.map((e) => e.path).sort()).toEqual(["config.K", "config.model"]);
    expect(two.errors!.find((e) => e.path === "config.model")!.message).toBe(
      'base has "sim:rpl", head "sim:rpl-other"',
    );
    // GET /v1/rpl/compare refuses the same pairs.
    for (const other of [b, c, d])
      await problem(await send("GET", `/v1/rpl/compare?runs=${a.id},${other.id}`, key), 422);
  });
});
