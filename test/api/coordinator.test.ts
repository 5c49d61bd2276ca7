// The run platform under failure (issue 3): duplicate Queue delivery, coordinator eviction, a lost
// dispatch recovered by the alarm, and cancel mid-run. Each test waits for its run to end, so no
// background work outlives it. Tests wait on what the coordinator, the lanes and the fake endpoint
// report (issue "A suite you can trust on any clone"), never on the clock: a model call held by the
// fake endpoint keeps a lane inside it for as long as the test needs.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import worker from "../../src/index.ts";
import {
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { laneName, type UnitMessage } from "../../src/runs/lanes/messages.ts";
import type { RunCoordinator, UnitView } from "../../src/runs/coordinator/run-coordinator.ts";
import { createRun } from "../../src/runs/creation/create.ts";
import { openDb } from "../../src/db/client.ts";
import { PROVIDER_SECRET, type ModelSettings } from "../../src/providers/index.ts";
import { DEFAULT_SUITE, type ChainDeterminismRunConfig } from "../../src/evaluators/chain-determinism/index.ts";
import { fakeScenario, newTenant, send, startRun, waitForRun, type RunJson, WAIT } from "./helpers.ts";

/** For vi.waitFor: the condition decides, so the deadline only has to outlast a busy machine. */
/** Tests that wait for runs; the crash tests also wait out the runtime's ~2 s backoff before a crashed lane's alarm is retried. */
const LONG = 60_000;

const coordinator = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId));
const lane = (runId: string, n: number) => env.UNITS.getByName(laneName(runId, n));
const fakeUrl = () => env.FAKE_OPENAI_URL;
/** A provider on the fake endpoint (the key only has to look like one). */
const provider = () => ({ base_url: fakeUrl(), api_key: "sk-coordinator-test-0000" });

async function samplesOf(key: string, run: RunJson): Promise<{ unit_id: string; attempts: number }[]> {
  const page = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as {
    data: { unit_id: string; attempts: number }[];
  };
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

/** Waits until the coordinator has a unit in flight, and returns the first (in plan order). */
async function inflightUnit(runId: string): Promise<UnitView & { lane: number }> {
  return vi.waitFor(async () => {
    const [unit] = await coordinator(runId).units({ state: "inflight", limit: 1 });
    if (!unit) throw new Error(`run ${runId}: no unit in flight yet`);
    return { ...unit, lane: unit.lane! };
  }, WAIT);
}

/** Waits until the fake endpoint holds `n` calls of `model`: that many lanes are each inside a model call. */
async function heldCalls(model: string, n: number): Promise<void> {
  await vi.waitFor(async () => expect((await scenarioStats(fakeUrl(), model)).held).toBe(n), WAIT);
}

/** A 4-unit run on one lane, whose lane is crashed once it runs a unit it got in a coordinator's reply (the Queue handed it q0.r0 only). */
async function crashLaneAfterItsFirstUnit(key: string): Promise<RunJson> {
  const created = await startRun(key, {
    model: "sim:agent",
    n_queries: 1,
    n_replays: 4,
    min_success: 2,
    concurrency: 1,
    simulator: { latency_ms: 150 },
  });
  await vi.waitFor(async () => {
    const inflight = await coordinator(created.id).units({ state: "inflight" });
    expect(inflight).toHaveLength(1);
    expect(inflight[0].id).not.toBe("q0.r0");
  }, WAIT);
  await crash(lane(created.id, 0));
  return created;
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

/** Waits until the lane holds a unit in memory (the Queue has handed it one), so a crash interrupts it. */
async function laneBusy(runId: string, n: number): Promise<void> {
  await vi.waitFor(async () => expect((await lane(runId, n).inspect()).unit).not.toBeNull(), WAIT);
}

/**
 * A chain-determinism run created the way POST /v1/chain-determinism/runs creates one (createRun),
 * on `model` at the fake endpoint, but with a lease of `leaseMs`: the route derives minutes from
 * max_turns and timeout_s, too long for a test to watch one run out.
 */
async function startRunWithLease(tenantId: string, model: string, leaseMs: number): Promise<string> {
  const settings: ModelSettings = {
    model,
    provider: { base_url: fakeUrl() },
    timeout_s: 60,
    seed: null,
    simulator: null,
  };
  const publicConfig = {
    ...settings,
    suite: { id: "default", name: "assay default", sha256: "" },
    n_queries: 1,
    n_replays: 3,
    temperature: 0,
    concurrency: 1,
    max_turns: 10,
    max_tokens: 1024,
    min_success: 2,
  };
  const config: ChainDeterminismRunConfig = { ...publicConfig, suite_data: DEFAULT_SUITE };
  const { run } = await createRun(env, openDb(env.DB), tenantId, {
    evaluator: "chain-determinism",
    config,
    publicConfig,
    secrets: { [PROVIDER_SECRET]: provider().api_key },
    concurrency: 1,
    leaseMs,
    body: null,
  });
  return run.id;
}

describe("RunCoordinator", () => {
  it(
    "ignores a Queue message delivered twice: one sample per unit, counted once",
    async () => {
      const { key } = await newTenant();
      const created = await startRun(key, {
        model: "sim:agent",
        n_queries: 1,
        n_replays: 4,
        min_success: 2,
        concurrency: 1,
        simulator: { latency_ms: 150 },
      });
      const unit = await inflightUnit(created.id);
      const body: UnitMessage = {
        kind: "unit",
        runId: created.id,
        unitId: unit.id,
        attempt: unit.attempts,
        lane: unit.lane,
      };
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
    },
    LONG,
  );

  it(
    "finishes a run whose coordinator is evicted mid-run, from its storage",
    async () => {
      const { key } = await newTenant();
      const created = await startRun(key, {
        model: "sim:agent",
        n_queries: 2,
        n_replays: 5,
        concurrency: 2,
        simulator: { latency_ms: 100 },
      });
      await inflightUnit(created.id);
      await evictDurableObject(coordinator(created.id));
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("succeeded");
      expect(run.progress).toEqual({ done: 10, failed: 0, total: 10 });
      expect(new Set(await sampleIds(key, run)).size).toBe(10);
    },
    LONG,
  );

  it(
    "finishes a run whose lane crashes mid-unit: the lane's alarm resumes it, each sample once",
    async () => {
      const { key } = await newTenant();
      const created = await startRun(key, {
        model: "sim:agent",
        n_queries: 1,
        n_replays: 6,
        min_success: 2,
        concurrency: 2,
        simulator: { latency_ms: 150 },
      });
      const unit = await inflightUnit(created.id);
      await laneBusy(created.id, unit.lane);
      await crash(lane(created.id, unit.lane));
      expect((await waitForRun(key, created.id)).progress).toEqual({ done: 6, failed: 0, total: 6 });
      // Resumed by the lane's own alarm with the same attempt, not re-dispatched when a lease ran out.
      await expectEachUnitOnceFirstAttempt(key, created.id, ["q0.r0", "q0.r1", "q0.r2", "q0.r3", "q0.r4", "q0.r5"]);
    },
    LONG,
  );

  it(
    "resumes a crashed lane at the unit the coordinator gave it last, not the one the Queue handed it",
    async () => {
      const { key } = await newTenant();
      const created = await crashLaneAfterItsFirstUnit(key);
      await expectEachUnitOnceFirstAttempt(key, created.id, ["q0.r0", "q0.r1", "q0.r2", "q0.r3"]);
    },
    LONG,
  );

  it(
    "a stale Queue message reaching a crashed lane does not strand the unit the coordinator gave it",
    async () => {
      const { key } = await newTenant();
      const created = await crashLaneAfterItsFirstUnit(key);
      // The Queue redelivers the lane's first message, long since done, before the lane's alarm resumes it.
      const body: UnitMessage = { kind: "unit", runId: created.id, unitId: "q0.r0", attempt: 1, lane: 0 };
      const batch = createMessageBatch("assay-units", [{ id: "late", timestamp: new Date(), attempts: 2, body }]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env, ctx);
      await getQueueResult(batch, ctx);
      await expectEachUnitOnceFirstAttempt(key, created.id, ["q0.r0", "q0.r1", "q0.r2", "q0.r3"]);
    },
    LONG,
  );

  it(
    "D1 never counts a unit in progress before it holds the unit's sample, even when the unit ends during a flush",
    async () => {
      const { key } = await newTenant();
      // Every model call is held: the units on both lanes stay in flight until this test reports them itself.
      const model = await fakeScenario({ agent: { calls: 3 }, hold_after: 0 }, "flush");
      const created = await startRun(key, {
        model,
        provider: provider(),
        n_queries: 1,
        n_replays: 4,
        min_success: 2,
        concurrency: 2,
      });
      const d1 = async () => {
        const run = await env.DB.prepare("SELECT done, failed FROM runs WHERE id = ?")
          .bind(created.id)
          .first<{ done: number; failed: number }>();
        const samples = await env.DB.prepare("SELECT count(*) AS n FROM samples WHERE run_id = ?")
          .bind(created.id)
          .first<{ n: number }>();
        return { counted: run!.done + run!.failed, samples: samples!.n };
      };
      await heldCalls(model, 2);
      const [first, second] = await coordinator(created.id).units({ state: "inflight" });
      // Run the alarm the start armed (its progress flush) now, so that it cannot flush in the middle of what follows.
      await runDurableObjectAlarm(coordinator(created.id));
      await runInDurableObject(coordinator(created.id), async (instance: RunCoordinator) => {
        const sample = { status: "succeeded", output: "{}", error: null } as const;
        // One unit ends (reported here, as its lane would): its sample waits in the outbox for a flush.
        await instance.unitDone(first.id, first.attempts, sample);
        // The alarm's flush starts and writes that sample to D1; the other unit ends in that window.
        const alarm = instance.alarm();
        await instance.unitDone(second.id, second.attempts, sample);
        await alarm;
        const { counted, samples } = await d1();
        expect(counted).toBeLessThanOrEqual(samples);
      });
      // The lanes are still inside their held calls, and the next units went to this test, not to them: end the run here.
      expect((await send("POST", `/v1/runs/${created.id}/cancel`, key)).status).toBe(200);
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("canceled");
      expect(await d1()).toEqual({ counted: 2, samples: 2 });
    },
    LONG,
  );

  it(
    "copies to D1 a flush of more samples than one statement can bind, each with its model calls",
    async () => {
      // Issue 14 (item 6) gave each sample row its model calls, so a row binds 10 parameters and D1
      // takes at most 100 a statement: 14 samples in one statement would be refused on every flush,
      // and the run stuck.
      const { key } = await newTenant();
      const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "wide");
      const created = await startRun(key, {
        model,
        provider: provider(),
        n_queries: 2,
        n_replays: 8,
        min_success: 2,
        concurrency: 2,
      });
      await heldCalls(model, 2);
      // The start's alarm (a progress flush) runs now, so that it cannot flush part of what follows.
      await runDurableObjectAlarm(coordinator(created.id));
      const lanesUnits = await coordinator(created.id).units({ state: "inflight" });
      await runInDurableObject(coordinator(created.id), async (instance: RunCoordinator) => {
        const sample = {
          status: "succeeded",
          output: "{}",
          error: null,
          calls: { requests: 2, retries: 1, rateLimited: 1 },
        } as const;
        // 14 units end, reported here as their lanes would (each report's reply is that lane's next unit) …
        const queue = lanesUnits.map((u) => ({ unitId: u.id, attempt: u.attempts }));
        for (let n = 0; n < 14; n++) {
          const u = queue.shift()!;
          const next = await instance.unitDone(u.unitId, u.attempt, sample);
          if (next) queue.push(next);
        }
        // … and one progress flush copies them all.
        await instance.alarm();
      });
      const stored = await env.DB.prepare(
        "SELECT count(*) AS n, sum(call_requests) AS requests FROM samples WHERE run_id = ?",
      )
        .bind(created.id)
        .first<{ n: number; requests: number }>();
      expect(stored).toEqual({ n: 14, requests: 28 });
      const progress = await env.DB.prepare("SELECT done, call_requests AS requests FROM runs WHERE id = ?")
        .bind(created.id)
        .first();
      expect(progress).toEqual({ done: 14, requests: 28 });
      expect((await send("POST", `/v1/runs/${created.id}/cancel`, key)).status).toBe(200);
      expect((await waitForRun(key, created.id)).status).toBe("canceled");
      await releaseScenario(fakeUrl(), model);
    },
    LONG,
  );

  it(
    "re-dispatches a unit whose lane went silent past its lease when its alarm fires",
    async () => {
      const { key, tenantId } = await newTenant();
      // Every model call is held until released: the lane running the first unit goes silent.
      const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "lease");
      const runId = await startRunWithLease(tenantId, model, 2_000);
      const silent = await inflightUnit(runId);
      await heldCalls(model, 1);
      // The lease runs out with the unit's call unanswered: the coordinator's alarm takes the unit back
      // (to be tried again after a backoff) and hands the lane the next unit through the Queue.
      await vi.waitFor(async () => {
        const [unit] = await coordinator(runId).units({ limit: 1 });
        expect(unit).toMatchObject({ id: silent.id, state: "pending", attempts: 1, lane: silent.lane });
      }, WAIT);
      expect((await coordinator(runId).state()).meta!.status).toBe("running");
      // The lane's late report of its first attempt is ignored; the unit's sample is its second attempt's.
      await releaseScenario(fakeUrl(), model);
      const run = await waitForRun(key, runId);
      expect(run.progress).toEqual({ done: 3, failed: 0, total: 3 });
      const samples = await samplesOf(key, run);
      expect(samples.find((s) => s.unit_id === silent.id)!.attempts).toBe(2);
    },
    LONG,
  );

  it(
    "keeps at most `concurrency` units in flight",
    async () => {
      const { key } = await newTenant();
      // Every model call is held until two are: both lanes are then inside a call at once.
      const model = await fakeScenario({ agent: { calls: 1 }, delay_ms: 50, hold_after: 0 }, "conc");
      const created = await startRun(key, { model, provider: provider(), n_queries: 1, n_replays: 6, concurrency: 2 });
      await heldCalls(model, 2);
      expect(await coordinator(created.id).units({ state: "inflight" })).toHaveLength(2);
      await releaseScenario(fakeUrl(), model);
      expect((await waitForRun(key, created.id)).progress).toEqual({ done: 6, failed: 0, total: 6 });
      // A lane makes one call at a time, so the most calls the endpoint ever had at once is the most
      // units that were in flight: exactly `concurrency`, counted where it happens rather than sampled.
      expect((await scenarioStats(fakeUrl(), model)).max_in_flight).toBe(2);
    },
    LONG,
  );

  it(
    "cancel mid-run: no model call starts after it, finished samples are kept, the key is dropped",
    async () => {
      const { key } = await newTenant();
      // 4 calls a replay; calls after the 9th are held. Of 9 answered calls on 2 lanes, one lane made
      // at least 5, so it finished a replay: when both lanes are held, a sample exists and each lane
      // is inside a call the endpoint has already received.
      const model = await fakeScenario({ agent: { calls: 3 }, hold_after: 9 }, "cancel");
      const created = await startRun(key, { model, provider: provider(), n_queries: 1, n_replays: 10, concurrency: 2 });
      await vi.waitFor(
        async () => expect(await scenarioStats(fakeUrl(), model)).toMatchObject({ received: 11, held: 2 }),
        WAIT,
      );
      const res = await send("POST", `/v1/runs/${created.id}/cancel`, key);
      expect(res.status).toBe(200);
      const canceled = (await res.json()) as RunJson;
      expect(canceled.status).toBe("canceled");
      // From here the endpoint answers at once, so a lane that was not stopped would go on calling it.
      await releaseScenario(fakeUrl(), model);
      await vi.waitFor(async () => {
        expect((await scenarioStats(fakeUrl(), model)).in_flight).toBe(0);
        for (const n of [0, 1]) expect((await lane(created.id, n).inspect()).running).toBe(false);
      }, WAIT);
      // Not one call reached the endpoint after the two the lanes were inside when the cancel came,
      // and the lanes are stopped for good (a later Queue message or alarm runs nothing).
      expect((await scenarioStats(fakeUrl(), model)).received).toBe(11);
      for (const n of [0, 1])
        expect(await lane(created.id, n).inspect()).toEqual({ unit: null, running: false, aborted: true });
      const run = (await (await send("GET", `/v1/runs/${created.id}`, key)).json()) as RunJson;
      expect(run.status).toBe("canceled");
      const ids = await sampleIds(key, run);
      expect(ids.length).toBe(run.progress.done + run.progress.failed);
      expect(ids.length).toBeGreaterThanOrEqual(1);
      expect(ids.length).toBeLessThan(10);
      expect(run.result.n_total).toBe(ids.length);
      expect((await coordinator(created.id).state()).hasSecret).toBe(false);
      const again = await send("POST", `/v1/runs/${created.id}/cancel`, key);
      expect(again.status).toBe(409);
    },
    LONG,
  );
});

// Issue 15 (item 3): the run's phase is one stored value, and one place says what the alarm is for.
describe("RunCoordinator lifecycle and alarm plan", () => {
  it(
    "says what its alarm is for: while a lane is inside a call, the unit's lease",
    async () => {
      const { key } = await newTenant();
      const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "purpose");
      const created = await startRun(key, {
        model,
        provider: provider(),
        n_queries: 1,
        n_replays: 2,
        min_success: 2,
        concurrency: 1,
      });
      await heldCalls(model, 1);
      // Whatever alarm is due now (the start's progress flush, or one after it) runs and plans the next:
      // with D1 up to date and the one unit started, that is its lease.
      await runDurableObjectAlarm(coordinator(created.id));
      const { phase, alarm } = await coordinator(created.id).state();
      expect(phase).toEqual({ kind: "running" });
      expect(alarm?.for).toBe("lease");
      expect((await send("POST", `/v1/runs/${created.id}/cancel`, key)).status).toBe(200);
      expect((await waitForRun(key, created.id)).status).toBe("canceled");
      expect((await coordinator(created.id).state()).phase).toEqual({ kind: "finished", status: "canceled" });
      await releaseScenario(fakeUrl(), model);
    },
    LONG,
  );

  it(
    "ends a run finished, with no secret kept and no alarm left set",
    async () => {
      const { key } = await newTenant();
      const created = await startRun(key, {
        model: "sim:agent",
        n_queries: 1,
        n_replays: 2,
        min_success: 2,
        concurrency: 1,
      });
      expect((await waitForRun(key, created.id)).status).toBe("succeeded");
      const state = await coordinator(created.id).state();
      expect(state).toMatchObject({
        phase: { kind: "finished", status: "succeeded" },
        hasSecret: false,
        units: { ended: 2 },
      });
      expect(state.meta).toMatchObject({ status: "succeeded", done: 2, failed: 0, total: 2 });
      await runInDurableObject(coordinator(created.id), async (_, ctx) =>
        expect(await ctx.storage.getAlarm()).toBeNull(),
      );
    },
    LONG,
  );

  it(
    "goes on with a run stored before its phase had a key of its own (a status in its meta)",
    async () => {
      const { key } = await newTenant();
      const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "legacy");
      const created = await startRun(key, {
        model,
        provider: provider(),
        n_queries: 1,
        n_replays: 3,
        min_success: 2,
        concurrency: 1,
      });
      await heldCalls(model, 1);
      // The storage an earlier version left: the status in the meta record, no lifecycle key.
      await runInDurableObject(coordinator(created.id), async (_, ctx) => {
        const sql = ctx.storage.sql;
        const meta = JSON.parse(sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = 'meta'").one().v) as Record<
          string,
          unknown
        >;
        sql.exec("UPDATE kv SET v = ? WHERE k = 'meta'", JSON.stringify({ ...meta, status: "running" }));
        sql.exec("DELETE FROM kv WHERE k = 'lifecycle'");
      });
      await evictDurableObject(coordinator(created.id));
      await releaseScenario(fakeUrl(), model);
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("succeeded");
      expect(run.progress).toEqual({ done: 3, failed: 0, total: 3 });
      expect((await coordinator(created.id).state()).phase).toEqual({ kind: "finished", status: "succeeded" });
    },
    LONG,
  );

  it("keeps the end of a run finished by an earlier version: a cancel or a late start changes nothing", async () => {
    const stub = coordinator(`legacy-${Date.now()}`);
    await runInDurableObject(stub, async (instance: RunCoordinator, ctx) => {
      const meta = {
        runId: "run_legacy",
        tenantId: "t",
        evaluator: "chain-determinism",
        concurrency: 1,
        leaseMs: 60_000,
        maxAttempts: 3,
        total: 2,
      };
      const put = (k: string, v: unknown) =>
        ctx.storage.sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", k, JSON.stringify(v));
      put("meta", { ...meta, status: "failed", done: 0, failed: 2 });
      put("finished", true);
      expect((await instance.state()).phase).toEqual({ kind: "finished", status: "failed" });
      expect(await instance.cancel()).toBe("failed");
      expect(await instance.abandon("canceled")).toBe(false);
      await instance.start({ ...meta, config: {}, unitIds: ["a", "b"], secretEnc: null });
      expect(await instance.units()).toEqual([]);
      expect((await instance.state()).meta).toMatchObject({ status: "failed", done: 0, failed: 2 });
    });
  });
});
