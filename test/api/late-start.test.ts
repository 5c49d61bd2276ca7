// Issue "Hardening" (review of item 1): a start that reaches the coordinator late must not revive a
// run that was canceled or settled as lost meanwhile, and a replay that finds its run never started
// starts it.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { openDb } from "../../src/db/client.ts";
import { createRun, type NewRun } from "../../src/runs/creation/create.ts";
import { LOST_START_ERROR, START_GRACE_MS } from "../../src/runs/recovery/recover.ts";
import {
  chainDeterminism,
  DEFAULT_SUITE,
  type ChainDeterminismRunConfig,
} from "../../src/evaluators/chain-determinism/index.ts";
import type { StartRun } from "../../src/runs/coordinator/types.ts";
import { insertRunRow, newTenant, send, waitForRun, type RunJson } from "./helpers.ts";

/** A small simulated chain-determinism run's settings, as the route makes them. */
function simRun(): { config: ChainDeterminismRunConfig; publicConfig: Record<string, unknown>; unitIds: string[] } {
  const publicConfig = {
    model: "sim:agent",
    provider: null,
    timeout_s: 60,
    seed: 1,
    simulator: { divergence: 0, latency_ms: 0 },
    suite: { id: "default", name: "assay default", sha256: "" },
    n_queries: 1,
    n_replays: 2,
    temperature: 0,
    max_turns: 10,
    max_tokens: 1024,
    min_success: 2,
  };
  const config: ChainDeterminismRunConfig = { ...publicConfig, suite_data: DEFAULT_SUITE };
  return { config, publicConfig, unitIds: chainDeterminism.plan(config) };
}

const coordinator = (runId: string) => env.RUNS.get(env.RUNS.idFromName(runId));

async function lateStart(runId: string, tenantId: string): Promise<void> {
  const { config, unitIds } = simRun();
  const start: StartRun = {
    runId,
    tenantId,
    evaluator: "chain-determinism",
    config,
    unitIds,
    concurrency: 1,
    leaseMs: 60_000,
    secretEnc: null,
  };
  await coordinator(runId).start(start);
}

const d1Status = async (id: string) =>
  (await env.DB.prepare("SELECT status, error FROM runs WHERE id = ?").bind(id).first()) as {
    status: string;
    error: string | null;
  };

describe("a start that arrives late", () => {
  it("does not revive a run canceled before its coordinator got it", async () => {
    const { key, tenantId } = await newTenant();
    const id = await insertRunRow(tenantId);
    expect(((await (await send("POST", `/v1/runs/${id}/cancel`, key)).json()) as RunJson).status).toBe("canceled");
    await lateStart(id, tenantId);
    expect((await coordinator(id).state()).meta).toBeUndefined();
    expect((await coordinator(id).units()).length).toBe(0);
    expect((await d1Status(id)).status).toBe("canceled");
  });

  it("does not revive a run settled as a lost start", async () => {
    const { key, tenantId } = await newTenant();
    const id = await insertRunRow(tenantId, { createdAt: new Date(Date.now() - START_GRACE_MS - 1000) });
    expect(((await (await send("GET", `/v1/runs/${id}`, key)).json()) as RunJson).status).toBe("failed");
    await lateStart(id, tenantId);
    expect((await coordinator(id).state()).meta).toBeUndefined();
    expect(await d1Status(id)).toEqual({ status: "failed", error: LOST_START_ERROR });
  });
});

describe("an Idempotency-Key replay of a run whose start did not get through", () => {
  it("starts it, and the run runs once", async () => {
    const { key, tenantId } = await newTenant();
    const { config, publicConfig } = simRun();
    const request: NewRun = {
      evaluator: "chain-determinism",
      config,
      publicConfig,
      concurrency: 1,
      leaseMs: 60_000,
      body: { model: "sim:agent", n_queries: 1, n_replays: 2 },
      idempotencyKey: `late-${Date.now()}`,
    };
    // The first request's coordinator cannot be reached at all (not for the start, nor to ask about it):
    // the run is stored, and left queued for a replay or the sweep.
    const unreachable = () => Promise.reject(new Error("network connection lost"));
    const cutOff = {
      ...env,
      RUNS: {
        idFromName: (n: string) => env.RUNS.idFromName(n),
        get: () => ({ start: unreachable, abandon: unreachable }),
      },
    } as unknown as Env;
    const first = await createRun(cutOff, openDb(env.DB), tenantId, request).catch((e: unknown) => e);
    expect(String(first)).toMatch(/could not be started/);
    const [row] = (
      await env.DB.prepare("SELECT id, status FROM runs WHERE tenant_id = ?")
        .bind(tenantId)
        .all<{ id: string; status: string }>()
    ).results;
    expect(row.status).toBe("queued");

    const replay = await createRun(env, openDb(env.DB), tenantId, request);
    expect(replay).toMatchObject({ created: false, run: { id: row.id } });
    const run = await waitForRun(key, row.id);
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 2, failed: 0, total: 2 });
  });
});
