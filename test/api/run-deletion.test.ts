// Issue 23, item 6: samples were never deleted and there was no DELETE for a run, while D1 holds 10 GB
// per database. DELETE /v1/runs/{id} removes an ended run with everything stored of it (D1 rows, R2
// objects, its coordinator's storage), marks it first so no read sees it, and a deletion cut short
// is finished by the cron.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import {
  createExecutionContext,
  createScheduledController,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import worker from "../../src/index.ts";
import { openDb } from "../../src/db/client.ts";
import { markRunDeleting } from "../../src/db/lifetime.ts";
import {
  deleteRunData,
  QueryBudget,
  REQUEST_DELETION_QUERIES,
  SAMPLES_PER_STATEMENT,
  TICK_DELETION_QUERIES,
} from "../../src/runs/lifetime/delete.ts";
import { highWater, resetHighWater } from "../../src/platform/invocation.ts";
import { LIMITS } from "../../src/limits.ts";
import { releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import {
  fakeScenario,
  insertRunRow,
  newTenant,
  problem,
  send,
  startRun,
  WAIT,
  waitForRun,
  type RunJson,
} from "./helpers.ts";

const coordinator = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId));

/** A finished chain-determinism run on the simulator: 2 queries × 3 replays, so 6 samples. */
async function finishedRun(key: string, headers: Record<string, string> = {}): Promise<RunJson> {
  const created = await startRun(key, { model: "sim:agent", n_queries: 2, n_replays: 3, concurrency: 2 }, headers);
  const run = await waitForRun(key, created.id);
  expect(run.status).toBe("succeeded");
  return run;
}

/** Rows D1 holds of a run, read past the API (which hides a run being deleted). */
async function d1Rows(runId: string): Promise<{ runs: number; samples: number; deliveries: number; keys: number }> {
  const count = async (table: string) =>
    (
      (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table === "runs" ? "id" : "run_id"} = ?`)
        .bind(runId)
        .first()) as { n: number }
    ).n;
  return {
    runs: await count("runs"),
    samples: await count("samples"),
    deliveries: await count("webhook_deliveries"),
    keys: await count("idempotency_keys"),
  };
}

/** Two webhook delivery records of the run, as attempts to deliver its final event leave them. */
async function addDeliveries(runId: string, tenantId: string): Promise<void> {
  for (const attempt of [1, 2]) {
    await env.DB.prepare(
      "INSERT INTO webhook_deliveries (id, message_id, run_id, tenant_id, event, url, attempt, status, duration_ms, created_at) VALUES (?, ?, ?, ?, 'run.succeeded', 'https://example.com/hook', ?, 'failed', 5, ?)",
    )
      .bind(`whd_${runId}_${attempt}`, `msg_final_${runId}`, runId, tenantId, attempt, Date.now())
      .run();
  }
}

/** What the coordinator still stores: its tables' rows (units, outbox, key-value) and its alarm. */
async function coordinatorStorage(runId: string): Promise<{ rows: Record<string, unknown[]>; alarm: number | null }> {
  return runInDurableObject(coordinator(runId), async (_, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%'",
      )
      .toArray()
      .map((t) => t.name);
    const rows: Record<string, unknown[]> = {};
    for (const t of tables) {
      const all = state.storage.sql.exec(`SELECT * FROM ${t}`).toArray();
      if (all.length) rows[t] = all;
    }
    return { rows, alarm: await state.storage.getAlarm() };
  });
}

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.RESULTS.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("DELETE /v1/runs/{run_id}", () => {
  it("deletes an ended run with its samples, webhook deliveries, Idempotency-Key and coordinator storage", async () => {
    const { key, tenantId } = await newTenant();
    const run = await finishedRun(key, { "Idempotency-Key": "delete-me" });
    await addDeliveries(run.id, tenantId);
    expect(await d1Rows(run.id)).toEqual({ runs: 1, samples: 6, deliveries: 2, keys: 1 });
    expect(Object.keys((await coordinatorStorage(run.id)).rows)).toContain("kv");

    const res = await send("DELETE", `/v1/runs/${run.id}`, key);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");

    expect(await d1Rows(run.id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
    await problem(await send("GET", `/v1/runs/${run.id}`, key), 404);
    await problem(await send("GET", `/v1/runs/${run.id}/samples`, key), 404);
    const list = (await (await send("GET", "/v1/runs", key)).json()) as { data: { id: string }[] };
    expect(list.data.map((r) => r.id)).not.toContain(run.id);
    // The coordinator keeps one mark, the phase that makes a late start of the run do nothing; no
    // unit, sample, config or secret, and no alarm.
    const left = await coordinatorStorage(run.id);
    expect(left.alarm).toBeNull();
    expect(left.rows).toEqual({ kv: [{ k: "lifecycle", v: JSON.stringify({ kind: "abandoned", as: "canceled" }) }] });
    // The key no longer names the deleted run: the same request makes a new one.
    const again = await startRun(
      key,
      { model: "sim:agent", n_queries: 2, n_replays: 3, concurrency: 2 },
      { "Idempotency-Key": "delete-me" },
    );
    expect(again.id).not.toBe(run.id);
  });

  it("deletes every R2 object under runs/<id>/ (paged) and the comparisons cached under a base it was compared with", async () => {
    const { key } = await newTenant();
    const run = await finishedRun(key);
    const base = "run_base_of_" + run.id;
    const other = "run_other_of_" + run.id;
    // More than one page of R2's list (1,000 keys), as a large run's per-item scores could make.
    const own = Array.from({ length: 1_001 }, (_, i) => `runs/${run.id}/scores/${String(i).padStart(4, "0")}.json`);
    for (const k of own) await env.RESULTS.put(k, "{}");
    // The R2 layout of cached comparisons: the cache under the base's prefix, a marker under the head's.
    await env.RESULTS.put(`runs/${run.id}/compared-with/${base}`, "");
    await env.RESULTS.put(`runs/${base}/compare/${run.id}/v1/0.95-0.json`, "{}");
    await env.RESULTS.put(`runs/${base}/compare/${run.id}/v1/0.9-0.05.json`, "{}");
    // Not this run's: the base's own objects and its comparison with another head.
    await env.RESULTS.put(`runs/${base}/result.json`, "{}");
    await env.RESULTS.put(`runs/${base}/compare/${other}/v1/0.95-0.json`, "{}");
    await env.RESULTS.put(`runs/${run.id}x/result.json`, "{}");

    expect((await send("DELETE", `/v1/runs/${run.id}`, key)).status).toBe(204);

    expect(await keysUnder(`runs/${run.id}/`)).toEqual([]);
    expect(await keysUnder(`runs/${base}/`)).toEqual([
      `runs/${base}/compare/${other}/v1/0.95-0.json`,
      `runs/${base}/result.json`,
    ]);
    expect(await keysUnder(`runs/${run.id}x/`)).toEqual([`runs/${run.id}x/result.json`]);
  });

  it("is a 409 for a run that has not ended, and deletes nothing", async () => {
    const { key, tenantId } = await newTenant();
    for (const status of ["queued", "running"] as const) {
      const id = await insertRunRow(tenantId, { status });
      const body = await problem(await send("DELETE", `/v1/runs/${id}`, key), 409);
      expect(body.detail).toContain(status);
      expect(((await (await send("GET", `/v1/runs/${id}`, key)).json()) as RunJson).status).toBe(status);
    }
  });

  it("is a 404 for another tenant's run and for an unknown one; the run stays", async () => {
    const a = await newTenant("a");
    const b = await newTenant("b");
    const run = await finishedRun(a.key);
    await problem(await send("DELETE", `/v1/runs/${run.id}`, b.key), 404);
    await problem(await send("DELETE", "/v1/runs/run_0000000000000000000", a.key), 404);
    expect((await send("GET", `/v1/runs/${run.id}`, a.key)).status).toBe(200);
    expect((await d1Rows(run.id)).samples).toBe(6);
  });

  it("is a 404 the second time: nothing is kept of a deleted run", async () => {
    const { key } = await newTenant();
    const run = await finishedRun(key);
    expect((await send("DELETE", `/v1/runs/${run.id}`, key)).status).toBe(204);
    await problem(await send("DELETE", `/v1/runs/${run.id}`, key), 404);
  });

  it("needs credentials", async () => {
    await problem(await send("DELETE", "/v1/runs/run_0000000000000000000", undefined), 401);
  });
});

/** An ended run row with `n` samples written straight into D1 (as many as a large run's, without running it). */
async function runWithSamples(tenantId: string, n: number): Promise<string> {
  const id = await insertRunRow(tenantId, { total: n });
  await env.DB.prepare("UPDATE runs SET status = 'succeeded', done = ?, finished_at = ? WHERE id = ?")
    .bind(n, Date.now(), id)
    .run();
  // 25 rows of 4 parameters per statement (D1 binds at most 100), 100 statements per batch.
  const rows = (k: number) => Array.from({ length: k }, () => "(?, ?, 'succeeded', 1, '{}', ?)").join(", ");
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < n; i += 25) {
    const k = Math.min(25, n - i);
    const values = Array.from({ length: k }, (_, j) => [id, `u${i + j}`, Date.now()]).flat();
    statements.push(
      env.DB.prepare(
        `INSERT INTO samples (run_id, unit_id, status, attempts, output, created_at) VALUES ${rows(k)}`,
      ).bind(...values),
    );
  }
  for (let i = 0; i < statements.length; i += 100) await env.DB.batch(statements.slice(i, i + 100));
  return id;
}

describe("a deletion in bounded steps", () => {
  it("removes samples one chunk per query and stops when its budget is spent, then goes on where it stopped", async () => {
    const { tenantId } = await newTenant();
    const n = 2 * SAMPLES_PER_STATEMENT + 200;
    const id = await runWithSamples(tenantId, n);
    const db = openDb(env.DB);
    await markRunDeleting(db, tenantId, id, new Date());
    // Two queries: the deliveries' (none) and one chunk of samples.
    expect(await deleteRunData(env, db, id, new QueryBudget(2))).toBe("pending");
    expect((await d1Rows(id)).samples).toBe(n - SAMPLES_PER_STATEMENT);
    // The rest: 1 (deliveries) + 2 chunks (500, then 200 < 500 ends it) + keys + row = 5 queries.
    expect(await deleteRunData(env, db, id, new QueryBudget(4))).toBe("pending");
    expect(await d1Rows(id)).toEqual({ runs: 1, samples: 0, deliveries: 0, keys: 0 });
    expect(await deleteRunData(env, db, id, new QueryBudget(5))).toBe("deleted");
    expect(await d1Rows(id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
  });

  it("deletes a run of more samples than one statement removes in one request", async () => {
    const { key, tenantId } = await newTenant();
    const id = await runWithSamples(tenantId, 3 * SAMPLES_PER_STATEMENT + 1);
    expect((await send("DELETE", `/v1/runs/${id}`, key)).status).toBe(204);
    expect(await d1Rows(id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
  });
});

describe("a deletion at the largest size", () => {
  it(`keeps a run of ${LIMITS.unitsPerRun} samples within each invocation's D1 budget: the DELETE answers 202, a cron tick finishes`, async () => {
    const { key, tenantId } = await newTenant();
    const id = await runWithSamples(tenantId, LIMITS.unitsPerRun);
    resetHighWater();
    const res = await send("DELETE", `/v1/runs/${id}`, key);
    expect(res.status).toBe(202);
    // What the request could remove: a chunk per query of its budget, less the deliveries' query.
    expect((await d1Rows(id)).samples).toBe(
      LIMITS.unitsPerRun - (REQUEST_DELETION_QUERIES - 1) * SAMPLES_PER_STATEMENT,
    );
    await runCron();
    expect(await d1Rows(id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
    // Both invocations stayed far inside production's 1,000 queries (src/platform/invocation.ts
    // would have thrown past it); the cron's own share is TICK_DELETION_QUERIES.
    const most = highWater().d1Queries;
    expect(most.count).toBeGreaterThanOrEqual(REQUEST_DELETION_QUERIES);
    expect(most.count).toBeLessThanOrEqual(TICK_DELETION_QUERIES + 10);
  }, 120_000);
});

describe("a deletion cut short", () => {
  it("hides the run at once and is finished by the cron: stopped after its first steps (coordinator, R2, the budget spent)", async () => {
    const { key, tenantId } = await newTenant();
    const run = await finishedRun(key);
    await addDeliveries(run.id, tenantId);
    await env.RESULTS.put(`runs/${run.id}/result-x.json`, "{}");
    const db = openDb(env.DB);
    // What a DELETE does before it stops: the mark, then the steps one query allows (the coordinator,
    // the R2 objects, one statement of deliveries), as if the request died there.
    expect(await markRunDeleting(db, tenantId, run.id, new Date())).toBeDefined();
    expect(await deleteRunData(env, db, run.id, new QueryBudget(1))).toBe("pending");
    expect(await d1Rows(run.id)).toEqual({ runs: 1, samples: 6, deliveries: 0, keys: 0 });
    expect(await keysUnder(`runs/${run.id}/`)).toEqual([]);
    await problem(await send("GET", `/v1/runs/${run.id}`, key), 404);
    await problem(await send("DELETE", `/v1/runs/${run.id}`, key), 404);

    await runCron();
    expect(await d1Rows(run.id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
  });

  it("is finished by the cron when only the mark was written", async () => {
    const { key } = await newTenant();
    const run = await finishedRun(key);
    // The state a DELETE that died right after its first write leaves.
    await env.DB.prepare("UPDATE runs SET deleted_at = ? WHERE id = ?").bind(Date.now(), run.id).run();
    await runCron();
    expect(await d1Rows(run.id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
    expect((await coordinatorStorage(run.id)).rows).toEqual({
      kv: [{ k: "lifecycle", v: JSON.stringify({ kind: "abandoned", as: "canceled" }) }],
    });
  });

  it("answers 202 while the coordinator still holds the run, and the cron deletes it once the coordinator lets go", async () => {
    const { key } = await newTenant();
    const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "held");
    const created = await startRun(key, {
      model,
      provider: { base_url: env.FAKE_OPENAI_URL },
      n_queries: 1,
      n_replays: 2,
      concurrency: 1,
      min_success: 2,
    });
    await vi.waitFor(async () => expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1), WAIT);
    // D1 shows the run ended while its coordinator is still running it: the moment between a finish's
    // D1 write and its own end, held open here.
    await env.DB.prepare("UPDATE runs SET status = 'canceled', finished_at = ? WHERE id = ?")
      .bind(Date.now(), created.id)
      .run();

    const res = await send("DELETE", `/v1/runs/${created.id}`, key);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ id: created.id, status: "deleting" });
    await problem(await send("GET", `/v1/runs/${created.id}`, key), 404);
    // Its coordinator refused the purge: it still has the run's units.
    expect(Object.keys((await coordinatorStorage(created.id)).rows)).toContain("units");
    await runCron();
    expect((await d1Rows(created.id)).runs).toBe(1);

    // The coordinator lets go (its run ends), and the next tick deletes everything.
    await coordinator(created.id).cancel();
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    await runCron();
    expect(await d1Rows(created.id)).toEqual({ runs: 0, samples: 0, deliveries: 0, keys: 0 });
    expect((await coordinatorStorage(created.id)).rows).toEqual({
      kv: [{ k: "lifecycle", v: JSON.stringify({ kind: "abandoned", as: "canceled" }) }],
    });
  });
});
