// Issue 14, item 6: retries were invisible. `sample.attempts` was always 1, a run against an endpoint
// answering 429 reported no retry anywhere, and nothing said how many tries a failed sample took. The
// platform counts every model call where the lane gives the evaluator its clients (and the aggregate
// its embeddings client): per sample, its HTTP requests, retries and 429 answers over all its
// attempts; per run, their totals with the aggregate's. Read here where they are stored (D1).
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { scenarioStats } from "../support/fake-openai.ts";
import type { RunCoordinator } from "../../src/runs/coordinator/run-coordinator.ts";
import { fakeScenario, newTenant, startRq, startRun, waitForRun } from "./helpers.ts";
import { startWithLostDispatch } from "./lost-dispatch.ts";

const fakeUrl = () => env.FAKE_OPENAI_URL;
const provider = () => ({ base_url: fakeUrl(), api_key: "sk-retries-test-0000" });
/** A 429 that asks for no wait, so the retries cost no time. */
const RATE_LIMITED = { status: 429, headers: { "retry-after": "0" } };

type Calls = { requests: number | null; retries: number | null; rate_limited: number | null };

async function storedSamples(runId: string) {
  const { results } = await env.DB.prepare(
    `SELECT unit_id, status, attempts, error, call_requests AS requests, call_retries AS retries, call_rate_limited AS rate_limited
       FROM samples WHERE run_id = ? ORDER BY unit_id`,
  )
    .bind(runId)
    .all<{ unit_id: string; status: string; attempts: number; error: string | null } & Calls>();
  return results;
}

async function storedRunCalls(runId: string): Promise<Calls> {
  return (await env.DB.prepare(
    "SELECT call_requests AS requests, call_retries AS retries, call_rate_limited AS rate_limited FROM runs WHERE id = ?",
  )
    .bind(runId)
    .first<Calls>())!;
}

describe("model calls, retries and 429s", () => {
  it("counts each sample's requests, retries and 429s, and the run's totals, when every request is first answered 429", async () => {
    const { key } = await newTenant();
    // Each distinct request is answered 429 once, then answered: every call takes two requests.
    const model = await fakeScenario(
      { agent: { calls: 1 }, faults: [{ on: { attempt: 1 }, respond: RATE_LIMITED }] },
      "r429",
    );
    // Two queries of one replay each: distinct conversations, so each request's first attempt is the 429.
    const created = await startRun(key, {
      model,
      provider: provider(),
      n_queries: 2,
      n_replays: 1,
      min_success: 2,
      concurrency: 1,
    });
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("succeeded");
    // A replay of one tool call is two calls (the tool call, the final answer), each a 429 and then an answer.
    expect(
      (await storedSamples(run.id)).map(({ unit_id, status, attempts, requests, retries, rate_limited }) => ({
        unit_id,
        status,
        attempts,
        requests,
        retries,
        rate_limited,
      })),
    ).toEqual([
      { unit_id: "q0.r0", status: "succeeded", attempts: 1, requests: 4, retries: 2, rate_limited: 2 },
      { unit_id: "q1.r0", status: "succeeded", attempts: 1, requests: 4, retries: 2, rate_limited: 2 },
    ]);
    expect(await storedRunCalls(run.id)).toEqual({ requests: 8, retries: 4, rate_limited: 4 });
    // What the endpoint saw, and what chain-determinism's own count says.
    expect((await scenarioStats(fakeUrl(), model)).received).toBe(8);
    expect(run.result.endpoint.requests).toBe(8);
  });

  it("a sample that failed for rate limits says how many requests it made and how many were 429s", async () => {
    const { key } = await newTenant();
    const model = await fakeScenario({ agent: { calls: 1 }, faults: [{ respond: RATE_LIMITED }] }, "r429all");
    const created = await startRun(key, {
      model,
      provider: provider(),
      n_queries: 1,
      n_replays: 2,
      min_success: 2,
      concurrency: 1,
    });
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("failed");
    const samples = await storedSamples(run.id);
    // The one retry policy tries a call three times (two retries), each answered 429; the replay ends
    // there with the harness's error row, whose text stays the harness's.
    for (const s of samples) {
      expect(s).toMatchObject({ status: "failed", attempts: 1, requests: 3, retries: 2, rate_limited: 3 });
      expect(s.error).toMatch(/^api_error: RateLimitError/);
    }
    expect(samples).toHaveLength(2);
    expect(await storedRunCalls(run.id)).toEqual({ requests: 6, retries: 4, rate_limited: 6 });
    expect((await scenarioStats(fakeUrl(), model)).received).toBe(6);
  });

  it("a unit's sample counts the calls of every attempt its lane reported, not only the last", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario({ agent: { calls: 1 } }, "rattempts");
    // Its first attempt is run here, as a lane whose execution threw after three requests (two of
    // them 429s and retried) would report it; the run's own lane runs the second.
    const { runId, lost } = await startWithLostDispatch(tenantId, model, { nReplays: 1, concurrency: 1 });
    const [first] = lost;
    await runInDurableObject(env.RUNS.get(env.RUNS.idFromName(runId)), async (instance: RunCoordinator) => {
      expect(await instance.unitContext(first.unitId, first.attempt)).not.toBeNull();
      expect(
        await instance.unitFailed(first.unitId, first.attempt, "Error: the lane's execution threw", {
          requests: 3,
          retries: 2,
          rateLimited: 2,
        }),
      ).toBeNull();
    });
    // The retry after its backoff goes through the Queue to the lane, which runs it against the endpoint.
    const run = await waitForRun(key, runId);
    expect(run.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(
      (await storedSamples(runId)).map(({ attempts, requests, retries, rate_limited }) => ({
        attempts,
        requests,
        retries,
        rate_limited,
      })),
    ).toEqual([{ attempts: 2, requests: 3 + 2, retries: 2, rate_limited: 2 }]);
    expect(await storedRunCalls(runId)).toEqual({ requests: 5, retries: 2, rate_limited: 2 });
    expect((await scenarioStats(fakeUrl(), model)).received).toBe(2);
  });

  it("a run's totals count its aggregate's calls too", async () => {
    const { key } = await newTenant();
    // The aggregate's one embeddings request is answered 429 once, then answered.
    const emb = await fakeScenario(
      { embedding: [1, 0], faults: [{ on: { attempt: 1 }, respond: RATE_LIMITED }] },
      "raggr",
    );
    const created = await startRq(key, {
      models: [{ name: "s", model: "sim:reasoner", simulator: { accuracy: 0.5, variation: 1, verbosity: 3 } }],
      datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 0, num_robustness: 0 } }],
      K: 2,
      P: 0,
      seed: 7,
      ss: {
        method: "embeddings",
        model: emb,
        provider: { base_url: fakeUrl(), api_key: "sk-embed-key-5678" },
        batch_size: 64,
      },
    });
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("succeeded");
    expect(run.result.models[0].extensions.ss_method).toBe("embeddings");
    expect((await scenarioStats(fakeUrl(), emb)).received).toBe(2);
    // The units called the simulator, which sends no HTTP request: the run's calls are its aggregate's.
    for (const s of await storedSamples(run.id)) expect(s).toMatchObject({ requests: 0, retries: 0, rate_limited: 0 });
    expect(await storedRunCalls(run.id)).toEqual({ requests: 2, retries: 1, rate_limited: 1 });
  });
});
