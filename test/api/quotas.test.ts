// Issue 30: quotas per tenant. Each is refused at its limit with a 429 naming it (and Retry-After where
// waiting helps), on a tenant whose quota the test set low; a refused creation writes no run; a run
// that ends in any way frees its slot; other tenants are unaffected.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { registerScenario, releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { START_GRACE_MS } from "../../src/runs/recovery/recover.ts";
import { createRun } from "../../src/runs/creation/create.ts";
import { openDb } from "../../src/db/client.ts";
import { admitRuns, releaseRuns } from "../../src/quotas/index.ts";
import { DEFAULT_SUITE, type ChainDeterminismRunConfig } from "../../src/evaluators/chain-determinism/index.ts";
import { runCron } from "../support/cron.ts";
import {
  ADMIN_TOKEN,
  call,
  fakeScenario,
  insertRunRow,
  newTenant,
  problem,
  send,
  startRun,
  waitForRun,
  WAIT,
} from "./helpers.ts";

type Quotas = Record<
  "runs_per_minute" | "concurrent_runs" | "units_per_day" | "stored_bytes" | "heavy_reads_per_minute",
  number
>;
type TenantQuotas = { tenant_id: string; quotas: Quotas; overrides: Partial<Quotas>; defaults: Quotas };

async function setQuotas(tenantId: string, patch: Record<string, number | null>): Promise<TenantQuotas> {
  const res = await send("PUT", `/v1/admin/tenants/${tenantId}/quotas`, ADMIN_TOKEN, patch);
  expect(res.status).toBe(200);
  return (await res.json()) as TenantQuotas;
}

/** A chain-determinism run on the simulator: n_queries × n_replays units. */
const simRun = (units = 2) => ({ model: "sim:agent", n_queries: 1, n_replays: units });
const create = (key: string, body: Record<string, unknown> = simRun()) =>
  send("POST", "/v1/chain-determinism/runs", key, body);

async function runCount(tenantId: string): Promise<number> {
  return (
    (await env.DB.prepare("SELECT count(*) AS n FROM runs WHERE tenant_id = ?").bind(tenantId).first()) as { n: number }
  ).n;
}

/** A 429 quota-exceeded naming `quota` with `limit`; returns its Retry-After (null when absent). */
async function refused(res: Response, quota: string, limit: number): Promise<number | null> {
  const retry = res.headers.get("retry-after");
  const p = (await problem(res, 429)) as Awaited<ReturnType<typeof problem>> & { quota: string; limit: number };
  expect(p.type).toBe("/problems/quota-exceeded");
  expect({ quota: p.quota, limit: p.limit }).toEqual({ quota, limit });
  expect(p.detail).toContain(quota);
  return retry === null ? null : Number(retry);
}

/** Moves everything the tenant's quota object counted `ms` into the past, as if that time had passed. */
async function age(tenantId: string, ms: number): Promise<void> {
  const stub = env.QUOTAS.get(env.QUOTAS.idFromName(tenantId));
  await runInDurableObject(stub, (_o, state) => {
    const row = state.storage.sql.exec<{ v: string }>("SELECT v FROM quota WHERE k = 1").one();
    const s = JSON.parse(row.v) as { created: number[]; heavy: number[]; active: { id: string; at: number }[] };
    s.created = s.created.map((t) => t - ms);
    s.heavy = s.heavy.map((t) => t - ms);
    s.active = s.active.map((r) => ({ ...r, at: r.at - ms }));
    state.storage.sql.exec("UPDATE quota SET v = ? WHERE k = 1", JSON.stringify(s));
  });
}

/** A run that stays running: its one model call is held by the fake endpoint until released. */
async function heldRun(key: string): Promise<{ id: string; model: string }> {
  const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 }, "quota");
  const run = await startRun(key, {
    model,
    provider: { base_url: env.FAKE_OPENAI_URL },
    n_queries: 1,
    n_replays: 1,
    concurrency: 1,
  });
  await vi.waitFor(async () => expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1), WAIT);
  return { id: run.id, model };
}

describe("runs_per_minute", () => {
  it("refuses the run past the limit with 429, Retry-After within the minute and the quota named, and writes no run", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { runs_per_minute: 2 });
    expect((await create(key)).status).toBe(202);
    expect((await create(key)).status).toBe(202);
    const retry = await refused(await create(key), "runs_per_minute", 2);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(await runCount(tenantId)).toBe(2);
    // Once the minute has passed for the first creation, there is room for one.
    await age(tenantId, 60_000);
    expect((await create(key)).status).toBe(202);
  });

  it("refuses an A/B request whole when its runs do not all fit, leaving none of them", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { runs_per_minute: 2 });
    expect((await create(key)).status).toBe(202);
    // A second version of the tenant's own, so the request makes two runs.
    const bank = {
      kind: "rpl",
      name: "q",
      version: "v2",
      system: "Estimate.\n",
      user_template: 'Claim: "{CLAIM}"\n',
      paraphrases: ["P1 {CLAIM}", "P2 {CLAIM}", "P3 {CLAIM}"],
    };
    const pushed = await send("POST", "/v1/prompts", key, bank);
    expect(pushed.status).toBe(201);
    const res = await send("POST", "/v1/rpl/runs", key, {
      claim: "Claim C.",
      model: "sim:rpl",
      K: 2,
      R: 2,
      B: 100,
      prompt_version: ["rpl-assay-v1", "q@v2"],
    });
    expect(await refused(res, "runs_per_minute", 2)).toBeGreaterThanOrEqual(1);
    expect(await runCount(tenantId)).toBe(1);
  });

  it("does not count a replay with the same Idempotency-Key", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { runs_per_minute: 1 });
    const again = () =>
      call("/v1/chain-determinism/runs", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": "q-1" },
        body: JSON.stringify(simRun()),
      });
    const first = (await (await again()).json()) as { id: string };
    const replay = await again();
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { id: string }).id).toBe(first.id);
  });
});

describe("two requests racing with one Idempotency-Key", () => {
  it("count one run: the request whose write loses takes its admission back", async () => {
    const { tenantId } = await newTenant();
    const model = await fakeScenario({ agent: { calls: 1 } }, "quota-race");
    const publicConfig = {
      model,
      provider: { base_url: env.FAKE_OPENAI_URL },
      timeout_s: 60,
      seed: null,
      simulator: null,
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
    const request = {
      evaluator: "chain-determinism" as const,
      config,
      publicConfig,
      leaseMs: 60_000,
      body: { model },
      idempotencyKey: "race-1",
      release: (runs: { id: string; units: number }[]) => releaseRuns(env, tenantId, runs),
    };
    const db = openDb(env.DB);
    const admit = (runs: { id: string; units: number }[]) => admitRuns(env, tenantId, runs);
    // The race made certain: while the first request is between its admission and its write, the
    // second (same key, same body) runs whole, so the first finds the key taken when it writes.
    let winner: string | undefined;
    const loser = await createRun(env, db, tenantId, {
      ...request,
      admit: async (runs) => {
        await admit(runs);
        winner = (await createRun(env, db, tenantId, { ...request, admit })).run.id;
      },
    });
    expect(loser.created).toBe(false);
    expect(loser.run.id).toBe(winner);
    expect(await runCount(tenantId)).toBe(1);
    const standing = await env.QUOTAS.get(env.QUOTAS.idFromName(tenantId)).standing();
    expect({ runs: standing.used.runs_per_minute, units: standing.used.units_per_day }).toEqual({ runs: 1, units: 3 });
  });
});

describe("a request refused after validation", () => {
  type Used = Record<"runs_per_minute" | "concurrent_runs" | "units_per_day", number>;
  const used = async (key: string): Promise<Used> => {
    const q = ((await (await send("GET", "/v1/usage", key)).json()) as { quotas: Record<keyof Used, { used: number }> })
      .quotas;
    return {
      runs_per_minute: q.runs_per_minute.used,
      concurrent_runs: q.concurrent_runs.used,
      units_per_day: q.units_per_day.used,
    };
  };
  /** An rpl A/B request (two runs) on a second prompt version of the tenant's own. */
  const abRequest = async (key: string, extra: Record<string, unknown>) => {
    const bank = {
      kind: "rpl",
      name: "q",
      version: "v2",
      system: "Estimate.\n",
      user_template: 'Claim: "{CLAIM}"\n',
      paraphrases: ["P1 {CLAIM}", "P2 {CLAIM}", "P3 {CLAIM}"],
    };
    expect((await send("POST", "/v1/prompts", key, bank)).status).toBe(201);
    return send("POST", "/v1/rpl/runs", key, {
      claim: "Claim C.",
      model: "sim:rpl",
      K: 2,
      R: 2,
      B: 100,
      prompt_version: ["rpl-assay-v1", "q@v2"],
      ...extra,
    });
  };

  it.each([
    ["a webhook_url the destination policy refuses", true, "http://10.0.0.1/h"],
    ["a webhook_url without the tenant's signing secret", false, "https://hooks.example.com/h"],
  ])("an A/B with %s counts nothing against any quota", async (_what, withSecret, webhookUrl) => {
    const { tenantId, key } = await newTenant();
    if (withSecret) expect((await send("POST", "/v1/webhooks/secret", key)).status).toBeLessThan(300);
    // One accepted run first, so the counts are not all zero.
    expect((await create(key, simRun(3))).status).toBe(202);
    const before = await used(key);
    expect(before).toEqual({ runs_per_minute: 1, concurrent_runs: expect.any(Number), units_per_day: 3 });
    const p = await problem(await abRequest(key, { webhook_url: webhookUrl }), 400);
    expect(p.errors!.map((e) => e.path)).toContain("webhook_url");
    expect(await used(key)).toEqual({ ...before, concurrent_runs: expect.any(Number) });
    // The accepted run may have ended meanwhile; the refused request added no slot of its own.
    expect((await used(key)).concurrent_runs).toBeLessThanOrEqual(before.concurrent_runs);
    expect(await runCount(tenantId)).toBe(1);
  });
});

describe("concurrent_runs", () => {
  it("refuses a run while the tenant's runs fill the quota, and a canceled run frees its slot", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { concurrent_runs: 1 });
    const held = await heldRun(key);
    const retry = await refused(await create(key), "concurrent_runs", 1);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(await runCount(tenantId)).toBe(1);
    expect((await send("POST", `/v1/runs/${held.id}/cancel`, key)).status).toBe(200);
    await releaseScenario(env.FAKE_OPENAI_URL, held.model);
    expect((await create(key)).status).toBe(202);
  });

  it("frees the slot of a run whose start was lost once the cron ends it failed, with no release call", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { concurrent_runs: 1 });
    // Admitted and written, its start lost with the Worker: queued with no coordinator behind it.
    const lost = await insertRunRow(tenantId, { createdAt: new Date(Date.now() - START_GRACE_MS - 1000) });
    const admitted = await env.QUOTAS.get(env.QUOTAS.idFromName(tenantId)).admitRuns([{ id: lost, units: 4 }]);
    expect(admitted).toEqual({ ok: true });
    await refused(await create(key), "concurrent_runs", 1);
    await runCron();
    expect((await waitForRun(key, lost)).status).toBe("failed");
    expect((await create(key)).status).toBe(202);
  });

  it("frees the slot of a run that succeeded", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { concurrent_runs: 1 });
    const first = (await (await create(key)).json()) as { id: string };
    expect((await waitForRun(key, first.id)).status).toBe("succeeded");
    expect((await create(key)).status).toBe(202);
  });
});

describe("units_per_day", () => {
  it("refuses a run whose units do not fit what is left of the UTC day, with Retry-After until midnight", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { units_per_day: 5 });
    expect((await create(key, simRun(4))).status).toBe(202);
    const before = Date.now();
    const res = await create(key, simRun(2));
    const after = Date.now();
    const retry = await refused(res, "units_per_day", 5);
    // Seconds from the request to the next 00:00 UTC, rounded up.
    const midnight = (Math.floor(before / 86_400_000) + 1) * 86_400_000;
    expect(retry).toBeGreaterThanOrEqual(Math.ceil((midnight - after) / 1000));
    expect(retry).toBeLessThanOrEqual(Math.ceil((midnight - before) / 1000));
    expect((await create(key, simRun(1))).status).toBe(202);
    expect(await runCount(tenantId)).toBe(2);
  });

  it("refuses without Retry-After a run larger than the whole day's quota", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { units_per_day: 3 });
    expect(await refused(await create(key, simRun(4)), "units_per_day", 3)).toBeNull();
    expect(await runCount(tenantId)).toBe(0);
  });
});

describe("follow-up runs", () => {
  it("counts an rpl auto run's follow-up stages against units_per_day without refusing them", async () => {
    const { tenantId, key } = await newTenant();
    // Answers that swing between 0.1 and 0.9: wide CIs fail the width gate at every stage, so S1 escalates twice.
    const answer = (p: number) =>
      JSON.stringify({
        prob_true: p,
        confidence_self: 0.6,
        assumptions: [],
        reasoning_bullets: ["a", "b", "c"],
        contrary_considerations: ["x", "y"],
        ambiguity_flags: [],
      });
    const model = `quota-auto-${crypto.randomUUID()}`;
    const faults = Array.from({ length: 120 }, (_, i) => ({
      on: { nth: i + 1 },
      respond: { content: answer(i % 2 ? 0.9 : 0.1) },
    }));
    await registerScenario(env.FAKE_OPENAI_URL, { id: model, text: answer(0.5), faults });
    const body = {
      claim: "Auto Q.",
      model,
      provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-rpl-test-key-00000000" },
      preset: "auto",
      B: 200,
      concurrency: 8,
    };
    // The day's quota is exactly the first stage (8 templates × 2 replicates): its follow-ups go past it,
    // as the admitted run's continuation.
    const stage1 = 8 * 2;
    await setQuotas(tenantId, { units_per_day: stage1 });
    const created = await send("POST", "/v1/rpl/runs", key, body);
    expect(created.status).toBe(202);
    const s1 = await waitForRun(key, ((await created.json()) as { id: string }).id);
    expect(s1.progress.total).toBe(stage1);
    const s2 = await waitForRun(key, (s1.result as { next_run_id: string }).next_run_id, 30_000);
    const s3 = await waitForRun(key, (s2.result as { next_run_id: string }).next_run_id, 30_000);
    expect([s2.status, s3.status]).toEqual(["succeeded", "succeeded"]);
    const q = (
      (await (await send("GET", "/v1/usage", key)).json()) as {
        quotas: Record<string, { limit: number; used: number }>;
      }
    ).quotas;
    expect(q.units_per_day).toEqual({ limit: stage1, used: s1.progress.total + s2.progress.total + s3.progress.total });
    // Past its quota, the tenant's own next run is refused.
    await refused(await create(key, simRun(1)), "units_per_day", stage1);
  });
});

describe("stored_bytes", () => {
  it("refuses a run once the tenant stores its quota, without Retry-After, saying what to delete; deleting makes room", async () => {
    const { tenantId, key } = await newTenant();
    const stored = await insertRunRow(tenantId);
    await env.DB.prepare("UPDATE runs SET status = 'succeeded', finished_at = ? WHERE id = ?")
      .bind(Date.now(), stored)
      .run();
    const usage = (await (await send("GET", "/v1/usage", key)).json()) as { bytes: { total: number } };
    expect(usage.bytes.total).toBeGreaterThan(0);
    await setQuotas(tenantId, { stored_bytes: usage.bytes.total });
    const res = await create(key);
    const detail = (await res.clone().json()) as { detail: string };
    expect(await refused(res, "stored_bytes", usage.bytes.total)).toBeNull();
    expect(detail.detail).toMatch(/delete runs/);
    expect(await runCount(tenantId)).toBe(1);
    expect((await send("DELETE", `/v1/runs/${stored}`, key)).status).toBeLessThan(300);
    expect((await create(key)).status).toBe(202);
  });
});

describe("heavy_reads_per_minute", () => {
  it("counts a comparison and answers 429 with Retry-After past the limit; ordinary reads are not counted", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { heavy_reads_per_minute: 1 });
    const run = await insertRunRow(tenantId);
    expect((await send("GET", `/v1/compare?base=${run}&head=${run}`, key)).status).not.toBe(429);
    const retry = await refused(
      await send("GET", `/v1/compare?base=${run}&head=${run}`, key),
      "heavy_reads_per_minute",
      1,
    );
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    for (const path of [`/v1/runs/${run}`, "/v1/runs", `/v1/runs/${run}/samples`, "/v1/usage"])
      expect((await send("GET", path, key)).status).toBe(200);
    await age(tenantId, 60_000);
    expect((await send("GET", `/v1/compare?base=${run}&head=${run}`, key)).status).not.toBe(429);
  });

  it.each([
    ["a comparison", (run: string) => `/v1/compare?base=${run}&head=${run}`, {}],
    ["an rpl comparison", (run: string) => `/v1/rpl/compare?runs=${run},${run}`, {}],
    ["an NDJSON export of samples", (run: string) => `/v1/runs/${run}/samples`, { Accept: "application/x-ndjson" }],
    ["a reasoning-quality CSV report", (run: string) => `/v1/runs/${run}/report.csv`, {}],
    ["a reasoning-quality workbook", (run: string) => `/v1/runs/${run}/report.xlsx`, {}],
    ["a reasoning-quality radar", (run: string) => `/v1/runs/${run}/radar.svg`, {}],
  ])("counts %s", async (_what, path, headers: Record<string, string>) => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { heavy_reads_per_minute: 0 });
    const run = await insertRunRow(tenantId);
    await refused(
      await call(path(run), { headers: { Authorization: `Bearer ${key}`, ...headers } }),
      "heavy_reads_per_minute",
      0,
    );
  });
});

describe("GET/PUT /v1/admin/tenants/{tenant_id}/quotas", () => {
  it("shows the defaults, sets a quota, and resets it with null", async () => {
    const { tenantId } = await newTenant();
    const initial = (await (
      await send("GET", `/v1/admin/tenants/${tenantId}/quotas`, ADMIN_TOKEN)
    ).json()) as TenantQuotas;
    expect(initial.overrides).toEqual({});
    expect(initial.quotas).toEqual(initial.defaults);
    const set = await setQuotas(tenantId, { runs_per_minute: 7, heavy_reads_per_minute: 3 });
    expect(set.quotas).toEqual({ ...initial.defaults, runs_per_minute: 7, heavy_reads_per_minute: 3 });
    expect(set.overrides).toEqual({ runs_per_minute: 7, heavy_reads_per_minute: 3 });
    const reset = await setQuotas(tenantId, { runs_per_minute: null });
    expect(reset.overrides).toEqual({ heavy_reads_per_minute: 3 });
    expect(
      ((await (await send("GET", `/v1/admin/tenants/${tenantId}/quotas`, ADMIN_TOKEN)).json()) as TenantQuotas).quotas
        .runs_per_minute,
    ).toBe(initial.defaults.runs_per_minute);
  });

  it.each([
    [{ runs_per_minute: -1 }],
    [{ runs_per_minute: 1.5 }],
    [{ concurrent_runs: "3" }],
    [{ runs_per_minute: 1_000_000 }],
    [{ nope: 1 }],
  ])("refuses %j naming the field", async (body) => {
    const { tenantId } = await newTenant();
    const p = await problem(await send("PUT", `/v1/admin/tenants/${tenantId}/quotas`, ADMIN_TOKEN, body), 400);
    expect(p.errors!.map((e) => e.path)).toEqual([Object.keys(body)[0]]);
  });

  it("answers 404 for an unknown tenant and 401 without the operator token", async () => {
    const { key } = await newTenant();
    await problem(await send("GET", "/v1/admin/tenants/ten_nope/quotas", ADMIN_TOKEN), 404);
    await problem(await send("PUT", "/v1/admin/tenants/ten_nope/quotas", ADMIN_TOKEN, { runs_per_minute: 1 }), 404);
    await problem(await send("GET", "/v1/admin/tenants/ten_nope/quotas", key), 401);
  });
});

describe("GET /v1/usage", () => {
  it("shows each quota with the tenant's limit and what it used", async () => {
    const { tenantId, key } = await newTenant();
    await setQuotas(tenantId, { runs_per_minute: 5 });
    await create(key, simRun(3));
    const u = (await (await send("GET", "/v1/usage", key)).json()) as {
      bytes: { total: number };
      quotas: Record<string, { limit: number; used: number }>;
    };
    const defaults = (
      (await (await send("GET", `/v1/admin/tenants/${tenantId}/quotas`, ADMIN_TOKEN)).json()) as TenantQuotas
    ).defaults;
    expect(u.quotas.runs_per_minute).toEqual({ limit: 5, used: 1 });
    expect(u.quotas.units_per_day).toEqual({ limit: defaults.units_per_day, used: 3 });
    expect(u.quotas.stored_bytes).toEqual({ limit: defaults.stored_bytes, used: u.bytes.total });
    expect(u.quotas.heavy_reads_per_minute).toEqual({ limit: defaults.heavy_reads_per_minute, used: 0 });
    expect(u.quotas.concurrent_runs.limit).toBe(defaults.concurrent_runs);
  });
});

describe("other tenants", () => {
  it("are unaffected by one tenant's quota", async () => {
    const low = await newTenant();
    const other = await newTenant();
    await setQuotas(low.tenantId, { runs_per_minute: 0, heavy_reads_per_minute: 0 });
    await refused(await create(low.key), "runs_per_minute", 0);
    expect((await create(other.key)).status).toBe(202);
    const run = await insertRunRow(other.tenantId);
    expect((await send("GET", `/v1/compare?base=${run}&head=${run}`, other.key)).status).not.toBe(429);
  });
});
