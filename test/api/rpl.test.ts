import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { registerScenario, recordedRequests } from "../support/fake-openai.ts";
import { call, newTenant, problem, send, waitForRun, type RunJson } from "./helpers.ts";

const answer = (p: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    prob_true: p,
    confidence_self: 0.6,
    assumptions: [],
    reasoning_bullets: ["a", "b", "c"],
    contrary_considerations: ["x", "y"],
    ambiguity_flags: [],
    ...extra,
  });

async function startRpl(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const res = await send("POST", "/v1/rpl/runs", key, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`rpl run: ${res.status} ${text}`);
  return JSON.parse(text) as RunJson;
}

let n = 0;
async function fake(s: Record<string, unknown>): Promise<string> {
  const id = `rpl-${Date.now()}-${n++}`;
  await registerScenario(env.FAKE_OPENAI_URL, { id, ...s });
  return id;
}

const provider = { base_url: "", api_key: "sk-rpl-test-key-00000000" };

describe("POST /v1/rpl/runs", () => {
  it("estimates a prior with the simulator, with the original's aggregates", async () => {
    const { key } = await newTenant();
    const run = await waitForRun(
      key,
      (await startRpl(key, { claim: "Tariffs raise consumer prices.", model: "sim:rpl", K: 8, R: 2, B: 1000 })).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 16, failed: 0, total: 16 });
    // The original's output shape (spec §14): the figures sit under `aggregates`.
    const r = run.result.aggregates;
    expect(run.result.sampling).toEqual({ K: 8, R: 2, T: null });
    expect(r.prob_true_rpl).toBeGreaterThan(0);
    expect(r.prob_true_rpl).toBeLessThan(1);
    expect(r.ci95[0]).toBeLessThanOrEqual(r.prob_true_rpl);
    expect(r.ci95[1]).toBeGreaterThanOrEqual(r.prob_true_rpl);
    expect(r.rpl_compliance_rate).toBe(1);
    expect(r.cache_hit_rate).toBe(0);
    expect(typeof r.is_stable).toBe("boolean");
  });

  it("reuses the tenant's cached samples: a rerun makes no model calls", async () => {
    const { key } = await newTenant();
    const model = await fake({ text: answer(0.7) });
    const body = {
      claim: "Water boils at 100 C at sea level.",
      model,
      provider: { ...provider, base_url: env.FAKE_OPENAI_URL },
      K: 4,
      R: 2,
      B: 200,
    };
    const first = await waitForRun(key, (await startRpl(key, body)).id);
    expect(first.status).toBe("succeeded");
    expect(first.result.aggregates.cache_hit_rate).toBe(0);
    const calls = (await recordedRequests(env.FAKE_OPENAI_URL, model)).length;
    expect(calls).toBe(8);
    const second = await waitForRun(key, (await startRpl(key, body)).id);
    expect(second.result.aggregates.cache_hit_rate).toBe(1);
    expect((await recordedRequests(env.FAKE_OPENAI_URL, model)).length).toBe(calls);
    expect(second.result.aggregates.prob_true_rpl).toBe(first.result.aggregates.prob_true_rpl);
    const fresh = await waitForRun(key, (await startRpl(key, { ...body, no_cache: true })).id);
    expect(fresh.result.aggregates.cache_hit_rate).toBe(0);
    expect((await recordedRequests(env.FAKE_OPENAI_URL, model)).length).toBe(calls + 8);
  });

  it("keeps non-compliant answers as invalid samples and counts them", async () => {
    const { key } = await newTenant();
    // Concurrency 1, so the n-th request is the n-th unit; five bad answers, three good ones.
    const model = await fake({
      text: answer(0.4),
      faults: [
        { on: { nth: 1 }, respond: { content: "I think it is probably true." } },
        { on: { nth: 2 }, respond: { content: answer(1.5) } },
        { on: { nth: 3 }, respond: { content: answer("0.7") } },
        { on: { nth: 4 }, respond: { content: answer(0.5, { reasoning_bullets: ["see https://example.com"] }) } },
        { on: { nth: 5 }, respond: { content: "" } },
      ],
    });
    const run = await waitForRun(
      key,
      (
        await startRpl(key, {
          claim: "Claim A.",
          model,
          provider: { ...provider, base_url: env.FAKE_OPENAI_URL },
          K: 4,
          R: 2,
          B: 200,
          concurrency: 1,
        })
      ).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 3, failed: 5, total: 8 });
    expect(run.result.aggregates.rpl_compliance_rate).toBe(3 / 8);
    const samples = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=20`, key)).json()) as {
      data: { status: string; error: string | null }[];
    };
    expect(samples.data.filter((s) => s.status === "failed").every((s) => !!s.error)).toBe(true);
  });

  it.each([
    ["a 429 storm", { faults: [{ respond: { status: 429, headers: { "retry-after": "0" } } }] }, {}],
    ["a timeout", { faults: [{ respond: { hang: true } }] }, { timeout_s: 0.2 }],
  ])("fails the run with the reason when %s leaves fewer than 3 valid samples", async (_, scenario, extra) => {
    const { key } = await newTenant();
    const model = await fake(scenario);
    const run = await waitForRun(
      key,
      (
        await startRpl(key, {
          claim: "Claim B.",
          model,
          provider: { ...provider, base_url: env.FAKE_OPENAI_URL },
          K: 2,
          R: 2,
          B: 200,
          concurrency: 4,
          ...extra,
        })
      ).id,
      30_000,
    );
    expect(run.status).toBe("failed");
    expect(run.progress.failed).toBe(4);
    expect(run.error).toMatch(/3 valid/);
  });

  it("runs one run per prompt version for an A/B request", async () => {
    const { key } = await newTenant();
    const res = await send("POST", "/v1/rpl/runs", key, {
      claim: "Claim C.",
      model: "sim:rpl",
      K: 2,
      R: 2,
      B: 100,
      prompt_version: ["rpl-assay-v1"],
    });
    expect(res.status).toBe(202);
    const group = (await res.json()) as { object: string; group_id: string; runs: RunJson[] };
    expect(group.object).toBe("run_group");
    expect(group.runs).toHaveLength(1);
    expect(group.group_id).toMatch(/^grp_/);
    expect(group.runs[0].config.group_id).toBe(group.group_id);
    await waitForRun(key, group.runs[0].id);
    const bad = await problem(
      await send("POST", "/v1/rpl/runs", key, {
        claim: "x",
        model: "sim:rpl",
        prompt_version: ["rpl-assay-v1", "nope"],
      }),
      400,
    );
    expect(bad.errors![0].path).toBe("prompt_version.1");
  });

  // Issue 14, item 7: an A/B request replayed with its Idempotency-Key answered a new group_id each
  // time, while its runs kept the first one.
  it("returns the same group and runs when an A/B request is replayed with its Idempotency-Key, and 422 for another body", async () => {
    const { key } = await newTenant();
    const body = { claim: "Claim G.", model: "sim:rpl", K: 2, R: 2, B: 100, prompt_version: ["rpl-assay-v1"] };
    const post = (b: Record<string, unknown>) =>
      call("/v1/rpl/runs", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": "ab-1" },
        body: JSON.stringify(b),
      });
    type Group = { group_id: string; runs: RunJson[] };
    const first = (await (await post(body)).json()) as Group;
    const again = await post(body);
    expect(again.status).toBe(202);
    const second = (await again.json()) as Group;
    expect(second.group_id).toBe(first.group_id);
    expect(second.runs.map((r) => r.id)).toEqual(first.runs.map((r) => r.id));
    expect(second.runs.map((r) => r.config.group_id)).toEqual([first.group_id]);
    expect((await problem(await post({ ...body, claim: "Claim H." }), 422)).type).toBe(
      "/problems/idempotency-mismatch",
    );
    await waitForRun(key, first.runs[0].id);
  });

  it("refuses a claim whose longest prompt would pass the 4,000-character cap, naming claim", async () => {
    const { key } = await newTenant();
    const bad = await problem(
      await send("POST", "/v1/rpl/runs", key, { claim: "word ".repeat(350).trim(), model: "sim:rpl" }),
      400,
    );
    expect(bad.errors![0].path).toBe("claim");
    expect(bad.errors![0].message).toContain("4000");
  });

  it("validates the seed as a 64-bit decimal string", async () => {
    const { key } = await newTenant();
    const bad = await problem(
      await send("POST", "/v1/rpl/runs", key, { claim: "x", model: "sim:rpl", seed: "18446744073709551616" }),
      400,
    );
    expect(bad.errors![0].path).toBe("seed");
    const ok = await startRpl(key, {
      claim: "Claim D.",
      model: "sim:rpl",
      K: 2,
      R: 2,
      B: 100,
      seed: "18446744073709551615",
    });
    expect(ok.config.bootstrap_seed).toBe("18446744073709551615");
    await waitForRun(key, ok.id);
  });
});

describe("GET /v1/rpl/compare", () => {
  it("compares runs that differ in one dimension and refuses runs that differ in more, naming the settings", async () => {
    const { key } = await newTenant();
    const base = { claim: "Claim E.", K: 4, R: 2, B: 200 };
    const a = await waitForRun(key, (await startRpl(key, { ...base, model: "sim:rpl-a" })).id);
    const b = await waitForRun(key, (await startRpl(key, { ...base, model: "sim:rpl-b" })).id);
    const c = await waitForRun(key, (await startRpl(key, { ...base, model: "sim:rpl-b", K: 2 })).id);
    const res = await send("GET", `/v1/rpl/compare?runs=${a.id},${b.id}`, key);
    expect(res.status).toBe(200);
    const cmp = (await res.json()) as {
      dimension: string;
      runs: { run_id: string; value: string }[];
      winner: { rule: string };
    };
    expect(cmp.dimension).toBe("model");
    expect(cmp.runs.map((r) => r.value)).toEqual(["sim:rpl-a", "sim:rpl-b"]);
    expect(["ci_width", "pqs", "stability", "tie"]).toContain(cmp.winner.rule);

    const refused = await problem(await send("GET", `/v1/rpl/compare?runs=${a.id},${c.id}`, key), 422);
    expect(refused.errors!.map((e) => e.path).sort()).toEqual(["K", "model"]);
    const unknown = await problem(await send("GET", `/v1/rpl/compare?runs=${a.id},run_nope`, key), 400);
    expect(unknown.errors).toEqual([{ path: "runs.1", message: "no run 'run_nope' for this tenant" }]);
    const one = await problem(await send("GET", `/v1/rpl/compare?runs=${a.id}`, key), 400);
    expect(one.errors![0].path).toBe("runs");
  });
});

describe("preset auto", () => {
  it("stops at S1 when every gate passes, with the controller and decision log", async () => {
    const { key } = await newTenant();
    // One answer for every prompt: zero spread, so the CI is a point and stability is perfect.
    const model = await fake({ text: answer(0.7) });
    const run = await waitForRun(
      key,
      (
        await startRpl(key, {
          claim: "Auto A.",
          model,
          provider: { ...provider, base_url: env.FAKE_OPENAI_URL },
          preset: "auto",
          B: 200,
        })
      ).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.config).toMatchObject({ preset: "auto", stage: 1, T: 8, K: 8, R: 2 });
    expect(run.result.next_run_id).toBeUndefined();
    const auto = run.result.auto;
    expect(auto.controller).toMatchObject({
      policy: "templates-first-then-replicates",
      start: { T: 8, K: 8, R: 2 },
      ceilings: { T: 16, K: 16, R: 3 },
    });
    expect(auto.decision_log).toHaveLength(1);
    expect(auto.decision_log[0].decision).toBe("stop_pass");
    expect(auto.decision_log[0].stage_id).toMatch(/^S1-[0-9a-f]{8}$/);
    expect(auto.final.decision).toBe("stop_pass");
  });

  it("escalates through the stages, reusing cached samples, and stops at the limits", async () => {
    const { key } = await newTenant();
    // Answers that swing between 0.1 and 0.9 by request: wide CIs fail the width gate at every stage.
    const faults = Array.from({ length: 120 }, (_, i) => ({
      on: { nth: i + 1 },
      respond: { content: answer(i % 2 ? 0.9 : 0.1) },
    }));
    const model = await fake({ text: answer(0.5), faults });
    const s1 = await waitForRun(
      key,
      (
        await startRpl(key, {
          claim: "Auto B.",
          model,
          provider: { ...provider, base_url: env.FAKE_OPENAI_URL },
          preset: "auto",
          B: 200,
          concurrency: 8,
        })
      ).id,
    );
    expect(s1.status).toBe("succeeded");
    expect(s1.result.auto.decision_log[0].decision).toBe("escalate_to_T16_K16_R2");
    const s2 = await waitForRun(key, s1.result.next_run_id, 30_000);
    expect(s2.config).toMatchObject({ stage: 2, T: 16, K: 16, R: 2 });
    // S1's 8 templates × 2 replicates come from the cache: 16 of S2's 32 samples.
    expect(s2.result.aggregates.cache_hit_rate).toBe(0.5);
    const s3 = await waitForRun(key, s2.result.next_run_id, 30_000);
    expect(s3.config).toMatchObject({ stage: 3, T: 16, K: 16, R: 3 });
    expect(s3.result.aggregates.cache_hit_rate).toBe(32 / 48);
    expect(s3.result.next_run_id).toBeUndefined();
    expect(s3.result.auto.decision_log.map((d: { decision: string }) => d.decision)).toEqual([
      "escalate_to_T16_K16_R2",
      "escalate_to_T16_K16_R3",
      "stop_limits",
    ]);
    // 16 + 16 + 16 model calls in all: only the top-ups reached the endpoint.
    expect((await recordedRequests(env.FAKE_OPENAI_URL, model)).length).toBe(48);
  });
});
