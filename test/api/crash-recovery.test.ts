// Issue 14, item 2: stalls after a crash. Killed right after the 202 (its units handed to the local
// queue, which lives in memory, and not yet started by any lane), a run stayed `running` 0/20 for its
// whole lease; killed during the final aggregation, it stayed `running` until a 10-minute watchdog.
// Recovery must take seconds: a dispatched unit no lane has started is dispatched again within
// seconds (and run once however many copies arrive), and an interrupted finish resumes within
// seconds. Each run here has a lease of 10 minutes, so a test that passes did not wait for it.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import worker from "../../src/index.ts";
import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { releaseScenario, scenarioStats, type Scenario } from "../support/fake-openai.ts";
import type { UnitMessage } from "../../src/runs/lanes/messages.ts";
import { fakeScenario, newTenant, send, startRq, waitForRun, WAIT, type RunJson } from "./helpers.ts";
import { LEASE_MS, startCrashing, startWithLostDispatch } from "./lost-dispatch.ts";

const coordinator = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId));
const fakeUrl = () => env.FAKE_OPENAI_URL;

/** Resets a Durable Object at once, as a crash or a deploy would (see coordinator.test.ts). */
async function crash(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_, state) => state.abort("crashed by the test")).then(
    () => Promise.reject(new Error("abort() returned")),
    (e: Error) => expect(e.message).toMatch(/crashed by the test/),
  );
}

/** Hands messages to the Queue consumer, as the Queue would (a late or repeated delivery). */
async function deliver(messages: UnitMessage[]): Promise<void> {
  const batch = createMessageBatch(
    "assay-units",
    messages.map((body, i) => ({ id: `late-${i}-${body.unitId}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  await getQueueResult(batch, ctx);
}

async function samplesOf(key: string, runId: string): Promise<{ unit_id: string; attempts: number }[]> {
  const page = (await (await send("GET", `/v1/runs/${runId}/samples?limit=100`, key)).json()) as {
    data: { unit_id: string; attempts: number }[];
  };
  return page.data;
}

describe("recovery after a crash", () => {
  it("dispatches again within seconds the units no lane started (their messages lost), and runs each once however many copies arrive", async () => {
    const { key, tenantId } = await newTenant();
    // Every model call is held until released: a lane that started its unit stays inside it.
    const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "lost");
    const { runId, lost } = await startWithLostDispatch(tenantId, model, { nReplays: 2, concurrency: 2 });
    expect(lost.map((m) => [m.unitId, m.attempt, m.lane])).toEqual([
      ["q0.r0", 1, 0],
      ["q0.r1", 1, 1],
    ]);
    // Nothing delivers those messages: the coordinator's own alarm sends them again once their start
    // deadline (seconds) passes, long before the 10-minute lease, and both lanes start.
    await vi.waitFor(async () => expect((await scenarioStats(fakeUrl(), model)).held).toBe(2), WAIT);
    const inflight = await coordinator(runId).units({ state: "inflight" });
    // Started by their lanes, as the first attempt (a re-sent message is not another attempt) …
    expect(inflight.map((u) => [u.id, u.attempts, u.lane, u.started])).toEqual([
      ["q0.r0", 1, 0, true],
      ["q0.r1", 1, 1, true],
    ]);
    // … and from here bounded by the full lease, not by the start deadline.
    for (const u of inflight) expect(u.leaseUntil!).toBeGreaterThan(Date.now() + LEASE_MS / 2);

    // The lost originals arrive late, while each lane is inside its unit's call: ignored.
    await deliver(lost);
    await releaseScenario(fakeUrl(), model);
    const run = await waitForRun(key, runId);
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 2, failed: 0, total: 2 });
    // … and once more after the run ended: nothing runs again.
    await deliver(lost);
    const samples = await samplesOf(key, runId);
    expect(samples.map((s) => [s.unit_id, s.attempts]).sort()).toEqual([
      ["q0.r0", 1],
      ["q0.r1", 1],
    ]);
    // Each unit ran exactly once: one replay of one tool call is two requests (the call, the final answer).
    const stats = await scenarioStats(fakeUrl(), model);
    expect(stats).toMatchObject({ received: 4, in_flight: 0 });
  });

  it.each(["DB", "UNIT_QUEUE"] as const)(
    "carries on within seconds a run whose coordinator crashed during its start (at its first use of %s)",
    async (binding) => {
      // Crashed when it writes the run's `running` status to D1, or when it first dispatches: its plan is
      // stored (the creating request takes such a run as started), and nothing but the coordinator's
      // own alarm can carry it on.
      const { key, tenantId } = await newTenant();
      const model = await fakeScenario({ agent: { calls: 1 } }, "startcrash");
      const runId = await startCrashing(tenantId, model, { nReplays: 2, concurrency: 2 }, binding);
      const run = await waitForRun(key, runId);
      expect(run.status).toBe("succeeded");
      expect(run.progress).toEqual({ done: 2, failed: 0, total: 2 });
      // D1 was told it started, by the alarm if the crash came first.
      expect((run as RunJson & { started_at: string | null }).started_at).not.toBeNull();
      const samples = await samplesOf(key, runId);
      expect(samples.map((s) => [s.unit_id, s.attempts]).sort()).toEqual([
        ["q0.r0", 1],
        ["q0.r1", 1],
      ]);
    },
  );

  it("resumes a finish whose coordinator crashed during the aggregate within seconds of the restart", async () => {
    const { key } = await newTenant();
    // The aggregate's embeddings calls are held: the finish is under way, waiting on them, when the coordinator crashes.
    const emb = await fakeScenario({ embedding: [1, 0], hold_after: 0 } satisfies Omit<Scenario, "id">, "fin");
    const created = await startRq(key, {
      models: [{ name: "s", model: "sim:reasoner", simulator: { accuracy: 0.5, variation: 1, verbosity: 3 } }],
      datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 0, num_robustness: 0 } }],
      K: 2,
      P: 0,
      seed: 7,
      concurrency: 3,
      ss: {
        method: "embeddings",
        model: emb,
        provider: { base_url: fakeUrl(), api_key: "sk-embed-key-5678" },
        batch_size: 64,
      },
    });
    await vi.waitFor(
      async () => expect(await scenarioStats(fakeUrl(), emb)).toMatchObject({ received: 1, held: 1 }),
      WAIT,
    );
    await crash(coordinator(created.id));
    // The restarted coordinator runs the finish again: its aggregate asks for the embeddings again.
    await vi.waitFor(
      async () => expect((await scenarioStats(fakeUrl(), emb)).received).toBeGreaterThanOrEqual(2),
      WAIT,
    );
    await releaseScenario(fakeUrl(), emb);
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("succeeded");
    expect(run.progress.done).toBe(run.progress.total);
    const m = run.result.models[0];
    expect(m.extensions.ss_method).toBe("embeddings");
    // Identical vectors for every text: every pair's cosine is 1.
    expect(m.raw_metrics.stability).toBe(1);
  });
});
