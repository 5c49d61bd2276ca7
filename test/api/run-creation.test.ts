// Issue 14, item 1: "A failed create leaves a run that never runs and cannot be canceled." The run row
// was written, the coordinator's start threw, and the row stayed `queued` for ever; its replay with the
// Idempotency-Key returned the dead run with a 202. Creation is now all-or-nothing where it can be, and
// a run whose start failed or was lost ends `failed` saying why.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { createApp } from "../../src/app.ts";
import { evaluators } from "../../src/evaluators/registry.ts";
import { RunFields } from "../../src/runs/plugin/run-fields.ts";
import type { EvaluatorPlugin } from "../../src/runs/plugin/plugin.ts";
import { releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { openDb } from "../../src/db/client.ts";
import worker from "../../src/index.ts";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { LOST_START_ERROR, START_GRACE_MS, sweepLostStarts } from "../../src/runs/recovery/recover.ts";
import {
  fakeScenario,
  insertRunRow,
  newTenant,
  problem,
  send,
  startRun,
  waitForRun,
  WAIT,
  type RunJson,
  tenantWithHook,
  hookEvents,
} from "./helpers.ts";

const getRun = async (key: string, id: string) =>
  (await (await send("GET", `/v1/runs/${id}`, key)).json()) as RunJson & { finished_at: string | null };

/** A creation time the grace period of a start has passed for (a second to spare). */
const pastGrace = () => new Date(Date.now() - START_GRACE_MS - 1000);

/** A test evaluator with one unit whose id is `id_chars` long. */
const longUnit = {
  name: "toy-long-unit" as const,
  schemas: {
    request: z.strictObject({ id_chars: z.number().int().min(1), ...RunFields }).openapi("ToyLongUnitRunRequest"),
    config: z.object({}),
    result: z.object({}),
    output: z.object({}),
  },
  route: { operationId: "createToyLongUnitRun", summary: "Long unit id", description: "A test evaluator." },
  async create(body) {
    return { config: { id_chars: body.id_chars }, publicConfig: {}, leaseMs: 60_000 };
  },
  plan: (config) => ["u".repeat(config.id_chars)],
  async execute() {
    return { status: "succeeded", output: {} };
  },
  aggregate: () => ({}),
  parseOutput: (text) => JSON.parse(text),
  failureOutput: () => ({}),
  exportLine: (sample) => sample.output,
} satisfies EvaluatorPlugin<
  { id_chars: number; concurrency?: number; webhook_url?: string },
  { id_chars: number },
  Record<string, never>
>;

evaluators.register(longUnit);
// Made after the registration, so it routes the toy's POST /runs.
const app = createApp();
const fetchApp = (path: string, init: RequestInit) =>
  app.fetch(new Request(`http://assay.test${path}`, init), env, {
    waitUntil: () => {},
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext);

describe("POST …/runs when the coordinator refuses the start", () => {
  it("ends the run failed saying why, answers 500 naming it, and its Idempotency-Key replay returns that failed run", async () => {
    const { key, url, hook } = await tenantWithHook("start-refused");
    // A real way to make `start` throw: the coordinator refuses to store a value over production's
    // 2 MB (src/platform/sql-guard.ts), and a test evaluator's plan has one unit whose id is 2.1 MB.
    // (Items too large are refused before anything is written, so a real evaluator cannot get here.)
    const create = () =>
      fetchApp("/v1/toy-long-unit/runs", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": "refused-1" },
        body: JSON.stringify({ id_chars: 2_100_000, webhook_url: url }),
      });

    const p = await problem(await create(), 500);
    expect(p.type).toBe("/problems/internal");
    const runId = /run_[0-9a-z]+/.exec(p.detail)?.[0];
    expect(runId, p.detail).toBeDefined();
    expect(p.detail).toContain("has ended failed");

    const run = await getRun(key, runId!);
    expect(run.status).toBe("failed");
    // The id as JSON: 2,100,000 characters, its quotes and the array's brackets.
    expect(run.error).toMatch(
      /^the run could not be started: a piece of the plan \(unit ids 1 to 1\) is 2,100,004 bytes, over what a Durable Object storage value may hold/,
    );
    expect(run.finished_at).not.toBeNull();
    expect(run.progress).toEqual({ done: 0, failed: 0, total: 1 });

    // The key's request is not made twice: the replay returns the run it made, failed, every time.
    for (let i = 0; i < 2; i++) {
      const again = await create();
      expect(again.status).toBe(202);
      const replayed = (await again.json()) as RunJson;
      expect(replayed.id).toBe(runId);
      expect(replayed.status).toBe("failed");
      expect(replayed.error).toBe(run.error);
    }
    expect((await problem(await send("POST", `/v1/runs/${runId}/cancel`, key), 409)).detail).toContain("failed");
    expect(await hookEvents(hook)).toEqual(["run.failed"]);
  });
});

describe("a run whose start was lost (row written, coordinator never started)", () => {
  it("is ended failed when read after the grace period: GET, list, the event stream and cancel", async () => {
    const { tenantId, key, url, hook } = await tenantWithHook("lost-start");
    const viaGet = await insertRunRow(tenantId, { createdAt: pastGrace(), webhookUrl: url });
    const got = await getRun(key, viaGet);
    expect(got.status).toBe("failed");
    expect(got.error).toBe(LOST_START_ERROR);
    expect(got.finished_at).not.toBeNull();
    expect(await hookEvents(hook)).toEqual(["run.failed"]);

    const viaList = await insertRunRow(tenantId, { createdAt: pastGrace() });
    const page = (await (await send("GET", "/v1/runs?limit=100", key)).json()) as { data: RunJson[] };
    expect(page.data.find((r) => r.id === viaList)?.status).toBe("failed");
    // A lost start is not listed under the status it no longer has.
    const viaQueuedList = await insertRunRow(tenantId, { createdAt: pastGrace() });
    const queued = (await (await send("GET", "/v1/runs?status=queued&limit=100", key)).json()) as { data: RunJson[] };
    expect(queued.data.map((r) => r.id)).not.toContain(viaQueuedList);
    expect((await getRun(key, viaQueuedList)).status).toBe("failed");

    const viaEvents = await insertRunRow(tenantId, { createdAt: pastGrace() });
    const text = await (await send("GET", `/v1/runs/${viaEvents}/events`, key)).text();
    const final = JSON.parse(/^event: final\ndata: (.*)$/m.exec(text)![1]) as RunJson;
    expect(final).toMatchObject({ id: viaEvents, status: "failed", error: LOST_START_ERROR });

    // Cancel reads the run first: it had already ended, so this is the 409 of any ended run.
    const viaCancel = await insertRunRow(tenantId, { createdAt: pastGrace() });
    expect((await problem(await send("POST", `/v1/runs/${viaCancel}/cancel`, key), 409)).detail).toContain("failed");
    expect((await getRun(key, viaCancel)).error).toBe(LOST_START_ERROR);
  });

  it("is left queued within the grace period, and so is an old queued run its coordinator holds", async () => {
    const { tenantId, key } = await newTenant();
    const fresh = await insertRunRow(tenantId);
    expect((await getRun(key, fresh)).status).toBe("queued");

    // A real run, held at its first model request, with its row set back to an old `queued` (as if the
    // coordinator's own D1 write were late): its coordinator has the run, so no read ends it.
    const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 });
    const created = await startRun(key, {
      model,
      provider: { base_url: env.FAKE_OPENAI_URL },
      n_queries: 1,
      n_replays: 2,
      concurrency: 1,
      min_success: 2,
    });
    await vi.waitFor(async () => expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1), WAIT);
    await env.DB.prepare("UPDATE runs SET status = 'queued', created_at = ? WHERE id = ?")
      .bind(pastGrace().getTime(), created.id)
      .run();
    // Whatever the coordinator writes to the row meanwhile, the read does not end the run.
    expect(["queued", "running"]).toContain((await getRun(key, created.id)).status);
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    expect((await waitForRun(key, created.id)).status).toBe("succeeded");
  });

  it("is swept by the Worker's scheduled handler (the cron trigger)", async () => {
    const { tenantId } = await newTenant();
    const lost = await insertRunRow(tenantId, { createdAt: pastGrace() });
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const row = (await env.DB.prepare("SELECT status, error FROM runs WHERE id = ?").bind(lost).first()) as {
      status: string;
      error: string;
    };
    expect(row).toEqual({ status: "failed", error: LOST_START_ERROR });
  });

  it("is ended by sweepLostStarts (the periodic trigger's work) for every tenant, and only past the grace period", async () => {
    const a = await newTenant("a");
    const b = await newTenant("b");
    const lostA = await insertRunRow(a.tenantId, { createdAt: pastGrace() });
    const lostB = await insertRunRow(b.tenantId, { createdAt: pastGrace() });
    const fresh = await insertRunRow(a.tenantId);
    const running = await insertRunRow(b.tenantId, { status: "running", createdAt: pastGrace() });
    // Read through D1, not the API, whose reads would settle the runs themselves.
    const status = async (id: string) =>
      (await env.DB.prepare("SELECT status, error FROM runs WHERE id = ?").bind(id).first()) as {
        status: string;
        error: string | null;
      };

    expect(await sweepLostStarts(env, openDb(env.DB))).toBeGreaterThanOrEqual(2);
    expect(await status(lostA)).toEqual({ status: "failed", error: LOST_START_ERROR });
    expect(await status(lostB)).toEqual({ status: "failed", error: LOST_START_ERROR });
    expect((await status(fresh)).status).toBe("queued");
    expect((await status(running)).status).toBe("running");
    expect((await getRun(a.key, lostA)).finished_at).not.toBeNull();
  });
});
