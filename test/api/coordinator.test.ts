// The run platform under failure (issue 3): duplicate Queue delivery, coordinator eviction, a lost
// dispatch recovered by the alarm, and cancel mid-run. Each test waits for its run to end, so no
// background work outlives it.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import worker from "../../src/index.ts";
import { createExecutionContext, createMessageBatch, evictDurableObject, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { registerScenario, recordedRequests } from "../support/fake-openai.ts";
import { laneName, type UnitMessage } from "../../src/runs/messages.ts";
import type { RunCoordinator } from "../../src/durable/run-coordinator.ts";
import { newTenant, send, startRun, waitForRun, type RunJson } from "./helpers.ts";

const coordinator = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId));

async function samplesOf(key: string, run: RunJson): Promise<{ unit_id: string; attempts: number }[]> {
  const page = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: { unit_id: string; attempts: number }[] };
  return page.data;
}

async function sampleIds(key: string, run: RunJson): Promise<string[]> {
  return (await samplesOf(key, run)).map((s) => s.unit_id);
}

/** The run succeeded with one sample per unit in `ids`, each from its first attempt (nothing re-dispatched). */
async function expectEachUnitOnceFirstAttempt(key: string, runId: string, ids: string[]): Promise<void> {
  const run = await waitForRun(key, runId);
  expect(run.status).toBe("succeeded");
  const samples = await samplesOf(key, run);
  expect(samples.map((s) => s.unit_id).sort()).toEqual(ids);
  expect(samples.map((s) => s.attempts)).toEqual(ids.map(() => 1));
}

const lane = (runId: string, n: number) => env.UNITS.getByName(laneName(runId, n));

/** A 4-unit run on one lane, whose lane is crashed once it runs a unit it got in a coordinator's reply (the Queue handed it q0.r0 only). */
async function crashLaneAfterItsFirstUnit(key: string): Promise<RunJson> {
  const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 4, min_success: 2, concurrency: 1, simulator: { latency_ms: 150 } });
  await waitUntil(async () => (await inflightUnit(created.id)).id !== "q0.r0");
  await crash(lane(created.id, 0));
  return created;
}

async function waitUntil(f: () => Promise<boolean>, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Resets a Durable Object at once, as a crash or a deploy would: its in-memory state and the work
 * under way are lost (evictDurableObject, by contrast, waits for that work to finish).
 */
async function crash(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_, state) => state.abort("crashed by the test")).then(
    () => Promise.reject(new Error("abort() returned")),
    (e: Error) => expect(e.message).toMatch(/crashed by the test/),
  );
}

/** Waits until the lane object holds a unit in memory (the Queue has handed it one), so a crash interrupts it. */
async function laneBusy(stub: DurableObjectStub): Promise<void> {
  await waitUntil(() => runInDurableObject(stub, (instance) => !!(instance as unknown as { msg?: unknown }).msg));
}

async function inflightUnit(runId: string): Promise<{ id: string; attempts: number; lane: number }> {
  let unit: { id: string; attempts: number; lane: number } | undefined;
  await waitUntil(async () => {
    unit = await runInDurableObject(coordinator(runId), (_, state) =>
      state.storage.sql.exec<{ id: string; attempts: number; lane: number }>("SELECT id, attempts, lane FROM units WHERE state = 'inflight' LIMIT 1").toArray()[0],
    );
    return !!unit;
  });
  return unit!;
}

describe("RunCoordinator", () => {
  it("ignores a Queue message delivered twice: one sample per unit, counted once", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 4, min_success: 2, concurrency: 1, simulator: { latency_ms: 150 } });
    const unit = await inflightUnit(created.id);
    const body: UnitMessage = { kind: "unit", runId: created.id, unitId: unit.id, attempt: unit.attempts, lane: unit.lane };
    const batch = createMessageBatch("assay-units", [
      { id: "dup-1", timestamp: new Date(), attempts: 1, body },
      { id: "dup-2", timestamp: new Date(), attempts: 1, body },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks.sort()).toEqual(["dup-1", "dup-2"]);
    const run = await waitForRun(key, created.id);
    expect(run.progress).toEqual({ done: 4, failed: 0, total: 4 });
    const ids = await sampleIds(key, run);
    expect(ids.sort()).toEqual(["q0.r0", "q0.r1", "q0.r2", "q0.r3"]);
  });

  it("finishes a run whose coordinator is evicted mid-run, from its storage", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 2, n_replays: 5, concurrency: 2, simulator: { latency_ms: 100 } });
    await inflightUnit(created.id);
    await evictDurableObject(coordinator(created.id));
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 10, failed: 0, total: 10 });
    expect(new Set(await sampleIds(key, run)).size).toBe(10);
  });

  it("finishes a run whose lane crashes mid-unit: the lane's alarm resumes it, each sample once", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 6, min_success: 2, concurrency: 2, simulator: { latency_ms: 150 } });
    const unit = await inflightUnit(created.id);
    await laneBusy(lane(created.id, unit.lane));
    await crash(lane(created.id, unit.lane));
    expect((await waitForRun(key, created.id)).progress).toEqual({ done: 6, failed: 0, total: 6 });
    // Resumed by the lane's own alarm with the same attempt, not re-dispatched when a lease ran out.
    await expectEachUnitOnceFirstAttempt(key, created.id, ["q0.r0", "q0.r1", "q0.r2", "q0.r3", "q0.r4", "q0.r5"]);
  }, 20_000);

  // The runtime retries a crashed lane's alarm after a backoff of about 2 s: these tests take longer.
  it("resumes a crashed lane at the unit the coordinator gave it last, not the one the Queue handed it", async () => {
    const { key } = await newTenant();
    const created = await crashLaneAfterItsFirstUnit(key);
    await expectEachUnitOnceFirstAttempt(key, created.id, ["q0.r0", "q0.r1", "q0.r2", "q0.r3"]);
  }, 20_000);

  it("a stale Queue message reaching a crashed lane does not strand the unit the coordinator gave it", async () => {
    const { key } = await newTenant();
    const created = await crashLaneAfterItsFirstUnit(key);
    // The Queue redelivers the lane's first message, long since done, before the lane's alarm resumes it.
    const body: UnitMessage = { kind: "unit", runId: created.id, unitId: "q0.r0", attempt: 1, lane: 0 };
    const batch = createMessageBatch("assay-units", [{ id: "late", timestamp: new Date(), attempts: 2, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    await getQueueResult(batch, ctx);
    await expectEachUnitOnceFirstAttempt(key, created.id, ["q0.r0", "q0.r1", "q0.r2", "q0.r3"]);
  }, 20_000);

  it("D1 never counts a unit in progress before it holds the unit's sample, even when the unit ends during a flush", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 4, min_success: 2, concurrency: 1, simulator: { latency_ms: 300 } });
    const d1 = async () => {
      const run = await env.DB.prepare("SELECT done, failed FROM runs WHERE id = ?").bind(created.id).first<{ done: number; failed: number }>();
      const samples = await env.DB.prepare("SELECT count(*) AS n FROM samples WHERE run_id = ?").bind(created.id).first<{ n: number }>();
      return { counted: run!.done + run!.failed, samples: samples!.n };
    };
    await runInDurableObject(coordinator(created.id), async (instance: RunCoordinator, state) => {
      // A unit in flight on a lane that does not exist (concurrency 1), so only this test reports it.
      const row = state.storage.sql.exec<{ id: string }>("SELECT id FROM units WHERE state = 'pending' ORDER BY ord DESC LIMIT 1").one();
      state.storage.sql.exec("UPDATE units SET state = 'inflight', attempts = 1, lane = 1, lease_until = ? WHERE id = ?", Date.now() + 600_000, row.id);
      (instance as unknown as { dirty: boolean }).dirty = true;
      // The alarm's flush starts and waits on D1; the unit ends in that window.
      const alarm = instance.alarm();
      await instance.unitDone(row.id, 1, { status: "succeeded", output: "{}", error: null });
      await alarm;
      const { counted, samples } = await d1();
      expect(counted).toBeLessThanOrEqual(samples);
    });
    // The unit handed to the missing lane would wait for its lease: end the run here.
    expect((await send("POST", `/v1/runs/${created.id}/cancel`, key)).status).toBe(200);
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("canceled");
    const { counted, samples } = await d1();
    expect(counted).toBe(samples);
  });

  it("re-dispatches a unit whose lease expired (a lost message) when its alarm fires", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 3, min_success: 2, concurrency: 1, simulator: { latency_ms: 300 } });
    // Make a pending unit look dispatched long ago, as if its message had been lost.
    const lost = await runInDurableObject(coordinator(created.id), (_, state) => {
      const row = state.storage.sql.exec<{ id: string }>("SELECT id FROM units WHERE state = 'pending' ORDER BY ord DESC LIMIT 1").one();
      // Lane 1 does not exist at concurrency 1, so no runner will ever report this unit.
      state.storage.sql.exec("UPDATE units SET state = 'inflight', attempts = 1, lane = 1, lease_until = ? WHERE id = ?", Date.now() - 1, row.id);
      return row.id;
    });
    expect(await runDurableObjectAlarm(coordinator(created.id))).toBe(true);
    const state = await coordinator(created.id).state();
    expect(state.meta!.status).toBe("running");
    const run = await waitForRun(key, created.id);
    expect(run.progress).toEqual({ done: 3, failed: 0, total: 3 });
    const sample = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=10`, key)).json()) as { data: { unit_id: string; attempts: number }[] };
    expect(sample.data.find((s) => s.unit_id === lost)!.attempts).toBe(2);
  });

  it("keeps at most `concurrency` units in flight", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 6, concurrency: 2, simulator: { latency_ms: 100 } });
    let max = 0;
    for (let i = 0; i < 15; i++) {
      const s = await coordinator(created.id).state();
      max = Math.max(max, s.units.inflight ?? 0);
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(max).toBe(2);
    await waitForRun(key, created.id);
  });

  it("cancel mid-run: no model call starts after it returns, finished samples are kept, the key is dropped", async () => {
    const { key } = await newTenant();
    const model = `cancel-${Date.now()}`;
    await registerScenario(env.FAKE_OPENAI_URL, { id: model, agent: { calls: 3 }, delay_ms: 150 });
    const created = await startRun(key, {
      model,
      provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-cancel-test-key-000000" },
      n_queries: 1,
      n_replays: 10,
      concurrency: 2,
    });
    await waitUntil(async () => ((await (await send("GET", `/v1/runs/${created.id}`, key)).json()) as RunJson).progress.done >= 1);
    const res = await send("POST", `/v1/runs/${created.id}/cancel`, key);
    const returnedAt = Date.now();
    expect(res.status).toBe(200);
    const canceled = (await res.json()) as RunJson;
    expect(canceled.status).toBe("canceled");
    await new Promise((r) => setTimeout(r, 700));
    const requests = await recordedRequests(env.FAKE_OPENAI_URL, model);
    expect(requests.filter((r) => r.at > returnedAt + 20)).toEqual([]);
    const run = (await (await send("GET", `/v1/runs/${created.id}`, key)).json()) as RunJson;
    expect(run.status).toBe("canceled");
    const ids = await sampleIds(key, run);
    expect(ids.length).toBe(run.progress.done + run.progress.failed);
    expect(ids.length).toBeLessThan(10);
    expect(run.result.n_total).toBe(ids.length);
    expect((await coordinator(created.id).state()).hasSecret).toBe(false);
    const again = await send("POST", `/v1/runs/${created.id}/cancel`, key);
    expect(again.status).toBe(409);
  });
});
