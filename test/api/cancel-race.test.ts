// Issue 30: concurrent cancels while a run finishes could answer 200 with `"status":"running"`. A
// cancel answers the run once the cancel has taken effect: 200 `canceled`, or 409 naming how it ended.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { fakeScenario, insertRunRow, newTenant, send, startRq, startRun, waitForRun, WAIT } from "./helpers.ts";

const LONG = 90_000;
const CANCELS = 8;

/** What a cancel answered: its HTTP status and the run status it names (the body's, or a 409's detail). */
async function cancelAnswer(runId: string, key: string): Promise<{ http: number; status: string }> {
  const res = await send("POST", `/v1/runs/${runId}/cancel`, key);
  const body = (await res.json()) as { status?: unknown; detail?: string };
  if (res.status === 200) return { http: 200, status: String(body.status) };
  expect(res.status).toBe(409);
  const named = /already ended \((\w+)\)/.exec(body.detail ?? "");
  expect(named, body.detail).not.toBeNull();
  return { http: 409, status: named![1] };
}

describe("POST /v1/runs/{run_id}/cancel, racing the run's end", () => {
  it(
    "many concurrent cancels while the run is in its finish all answer canceled, none running",
    async () => {
      const { key } = await newTenant();
      // Every unit ends on the simulator; the aggregate's one embeddings call is held, so the run stays
      // in its finish (every sample in, D1 still `running`) for as long as the cancels take.
      const held = await fakeScenario({ embedding: [1, 0], hold_after: 0 }, "cxr");
      const created = await startRq(key, {
        models: [{ model: "sim:reasoner" }],
        datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 0, num_robustness: 0 } }],
        K: 2,
        P: 0,
        ss: { method: "embeddings", model: held, provider: { base_url: env.FAKE_OPENAI_URL }, batch_size: 64 },
      });
      await vi.waitFor(
        async () => expect(await scenarioStats(env.FAKE_OPENAI_URL, held)).toMatchObject({ held: 1 }),
        WAIT,
      );
      const answers = await Promise.all(Array.from({ length: CANCELS }, () => cancelAnswer(created.id, key)));
      // The first to reach the coordinator cancels; the others answer once that cancel has ended the run
      // (200), or find it ended already (409) — both say canceled.
      expect(answers.map((a) => a.status)).toEqual(Array(CANCELS).fill("canceled"));
      expect(answers.some((a) => a.http === 200)).toBe(true);
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("canceled");
      await releaseScenario(env.FAKE_OPENAI_URL, held);
    },
    LONG,
  );

  it(
    "cancels racing the last sample: each answers the state the run ended in, never running",
    async () => {
      const { key } = await newTenant();
      // Two replays on one lane, two requests each (a tool call, then the answer): the fourth, the run's
      // last model call, is held.
      const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 3 }, "cxr");
      const created = await startRun(key, {
        model,
        provider: { base_url: env.FAKE_OPENAI_URL },
        n_queries: 1,
        n_replays: 2,
        concurrency: 1,
        min_success: 2,
      });
      await vi.waitFor(
        async () => expect(await scenarioStats(env.FAKE_OPENAI_URL, model)).toMatchObject({ received: 4, held: 1 }),
        WAIT,
      );
      // The held call is the run's last: its answer and the cancels go out together.
      const [, ...answers] = await Promise.all([
        releaseScenario(env.FAKE_OPENAI_URL, model),
        ...Array.from({ length: CANCELS }, () => cancelAnswer(created.id, key)),
      ]);
      const run = await waitForRun(key, created.id);
      expect(["succeeded", "canceled"]).toContain(run.status);
      // Every answer names the run's final state: a 200 only if the cancel is what ended it.
      for (const a of answers) expect(a.status).toBe(run.status);
      if (run.status === "succeeded") expect(answers.every((a) => a.http === 409)).toBe(true);
    },
    LONG,
  );

  it("a run canceled at its coordinator whose end is not stored yet (the alarm's to finish) answers canceled, not running", async () => {
    const { tenantId, key } = await newTenant();
    const id = await insertRunRow(tenantId, { status: "running", done: 1, total: 2 });
    // The coordinator holds the run, canceled, its finish not yet run: what an eviction between the
    // cancel and its finish leaves (written the way an earlier version stored it, as the lifecycle reads it).
    await runInDurableObject(env.RUNS.get(env.RUNS.idFromName(id)), async (_, ctx) => {
      const meta = {
        runId: id,
        tenantId,
        evaluator: "chain-determinism",
        concurrency: 1,
        leaseMs: 60_000,
        maxAttempts: 3,
        total: 2,
        status: "canceled",
        done: 1,
        failed: 0,
      };
      ctx.storage.sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", "meta", JSON.stringify(meta));
    });
    const res = await send("POST", `/v1/runs/${id}/cancel`, key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("canceled");
  });
});
