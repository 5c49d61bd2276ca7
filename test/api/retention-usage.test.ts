// Issue 23, item 6: a tenant's runs are kept for its retention (days, a default, or for ever), applied
// by the cron; GET /v1/usage tells a tenant what it stores, counted without reading samples.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index.ts";
import { insertRunRow, newTenant, problem, send, startRun, waitForRun } from "./helpers.ts";

const DAY = 86_400_000;

async function runCron(now?: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(now === undefined ? {} : { scheduledTime: now }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** An ended run row that finished `daysAgo` days ago (no coordinator behind it, as after a lost start). */
async function endedRun(tenantId: string, daysAgo: number): Promise<string> {
  const id = await insertRunRow(tenantId);
  await env.DB.prepare("UPDATE runs SET status = 'succeeded', finished_at = ? WHERE id = ?")
    .bind(Date.now() - daysAgo * DAY, id)
    .run();
  return id;
}

const exists = async (id: string) =>
  (await env.DB.prepare("SELECT id FROM runs WHERE id = ?").bind(id).first()) !== null;

async function setRetention(key: string, days: number | null): Promise<void> {
  const res = await send("PUT", "/v1/settings", key, { retention_days: days });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ retention_days: days });
}

describe("GET/PUT /v1/settings", () => {
  it("keeps runs 30 days by default, and takes a number of days or null (for ever)", async () => {
    const { key } = await newTenant();
    expect(await (await send("GET", "/v1/settings", key)).json()).toEqual({ retention_days: 30 });
    await setRetention(key, 7);
    expect(await (await send("GET", "/v1/settings", key)).json()).toEqual({ retention_days: 7 });
    await setRetention(key, null);
    expect(await (await send("GET", "/v1/settings", key)).json()).toEqual({ retention_days: null });
  });

  it.each([
    [{ retention_days: 0 }],
    [{ retention_days: 3651 }],
    [{ retention_days: 1.5 }],
    [{ retention_days: "30" }],
    [{}],
    [{ retention_days: 30, other: 1 }],
  ])("refuses %j with a problem naming the field", async (body) => {
    const { key } = await newTenant();
    const p = await problem(await send("PUT", "/v1/settings", key, body), 400);
    expect(p.errors!.map((e) => e.path).join(" ")).toMatch(/retention_days|other/);
    expect(await (await send("GET", "/v1/settings", key)).json()).toEqual({ retention_days: 30 });
  });
});

describe("retention, applied by the cron", () => {
  it("deletes the runs that finished before each tenant's cutoff, and only those", async () => {
    const short = await newTenant("short");
    await setRetention(short.key, 1);
    const forever = await newTenant("forever");
    await setRetention(forever.key, null);
    const byDefault = await newTenant("default");

    const shortOld = await endedRun(short.tenantId, 2);
    const shortNew = await endedRun(short.tenantId, 0.5);
    const foreverOld = await endedRun(forever.tenantId, 400);
    const defaultOld = await endedRun(byDefault.tenantId, 31);
    const defaultNew = await endedRun(byDefault.tenantId, 29);
    // Not ended: never deleted, whatever its age.
    const running = await insertRunRow(short.tenantId, {
      status: "running",
      createdAt: new Date(Date.now() - 10 * DAY),
    });

    await runCron();
    expect(await exists(shortOld)).toBe(false);
    expect(await exists(defaultOld)).toBe(false);
    for (const kept of [shortNew, foreverOld, defaultNew, running]) expect(await exists(kept)).toBe(true);
    await problem(await send("GET", `/v1/runs/${shortOld}`, short.key), 404);
  });
});

describe("GET /v1/usage", () => {
  it("counts a tenant's runs, samples and bytes, and drops a deleted run from them", async () => {
    const { key } = await newTenant();
    // What it stores; `quotas` (issue 30) is test/api/quotas.test.ts's.
    const stored = async () => {
      const { quotas: _quotas, ...rest } = (await (await send("GET", "/v1/usage", key)).json()) as Record<
        string,
        unknown
      >;
      return rest;
    };
    expect(await stored()).toEqual({ runs: 0, samples: 0, bytes: { d1: 0, r2: 0, total: 0 } });
    const runs = [];
    for (const n of [2, 3]) {
      const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: n, min_success: 2 });
      runs.push(await waitForRun(key, created.id));
    }
    // Expected bytes, counted here from what D1 and the API hold: every sample's output and error,
    // each run's stored config and its (inline) result as GET /v1/runs/{id}/result serves it.
    const utf8 = (s: string | null) => new TextEncoder().encode(s ?? "").length;
    let d1 = 0;
    for (const run of runs) {
      const samples = await env.DB.prepare("SELECT output, error FROM samples WHERE run_id = ?")
        .bind(run.id)
        .all<{ output: string | null; error: string | null }>();
      for (const s of samples.results) d1 += utf8(s.output) + utf8(s.error);
      const row = (await env.DB.prepare("SELECT config FROM runs WHERE id = ?").bind(run.id).first()) as {
        config: string;
      };
      d1 += utf8(row.config);
      d1 += utf8(await (await send("GET", `/v1/runs/${run.id}/result`, key)).text());
    }
    expect(await stored()).toEqual({ runs: 2, samples: 5, bytes: { d1, r2: 0, total: d1 } });

    expect((await send("DELETE", `/v1/runs/${runs[0].id}`, key)).status).toBe(204);
    const after = (await (await send("GET", "/v1/usage", key)).json()) as {
      runs: number;
      samples: number;
      bytes: { d1: number };
    };
    expect([after.runs, after.samples]).toEqual([1, 3]);
    expect(after.bytes.d1).toBeLessThan(d1);
  });

  it("counts a result stored in R2 as R2 bytes", async () => {
    const { key, tenantId } = await newTenant();
    const id = await endedRun(tenantId, 0);
    await env.DB.prepare("UPDATE runs SET result_key = ?, result_bytes = 300000 WHERE id = ?")
      .bind(`runs/${id}/result-x.json`, id)
      .run();
    const usage = (await (await send("GET", "/v1/usage", key)).json()) as { bytes: { r2: number } };
    expect(usage.bytes.r2).toBe(300_000);
  });
});
