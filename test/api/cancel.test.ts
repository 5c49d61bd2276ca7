// Issue 14, item 1: "cancel answers 200 and changes nothing" for a run whose coordinator never
// started it. Cancel must end any run that has not ended, whatever its coordinator knows of it.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { releaseScenario, scenarioStats } from "../support/fake-openai.ts";
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

type Run = RunJson & { finished_at: string | null };

describe("POST /v1/runs/{run_id}/cancel", () => {
  it("ends canceled a queued run whose coordinator never started, keeping its progress, with its run.canceled event", async () => {
    const { tenantId, key, url, hook } = await tenantWithHook("cancel-unstarted");
    // Within the grace period of its start, so it is not (yet) taken for a lost start.
    const id = await insertRunRow(tenantId, { webhookUrl: url });
    const res = await send("POST", `/v1/runs/${id}/cancel`, key);
    expect(res.status).toBe(200);
    const canceled = (await res.json()) as Run;
    expect(canceled.status).toBe("canceled");
    expect(canceled.progress).toEqual({ done: 0, failed: 0, total: 4 });
    expect(canceled.finished_at).not.toBeNull();
    expect(((await (await send("GET", `/v1/runs/${id}`, key)).json()) as Run).status).toBe("canceled");
    await problem(await send("POST", `/v1/runs/${id}/cancel`, key), 409);
    expect(await hookEvents(hook)).toEqual(["run.canceled"]);
  });

  it("ends canceled a running run whose coordinator answers without changing it", async () => {
    const { tenantId, key } = await newTenant();
    // D1 says running, with progress; the coordinator has no record of the run, so its cancel() answers
    // and writes nothing.
    const id = await insertRunRow(tenantId, { status: "running", done: 2, total: 4 });
    const canceled = (await (await send("POST", `/v1/runs/${id}/cancel`, key)).json()) as Run;
    expect(canceled.status).toBe("canceled");
    expect(canceled.progress).toEqual({ done: 2, failed: 0, total: 4 });
  });

  it("lets the coordinator end a run it is running: canceled, with its run.canceled event", async () => {
    const { key, url, hook } = await tenantWithHook("cancel-running");
    const model = await fakeScenario({ agent: { calls: 1 }, hold_after: 0 });
    const created = await startRun(key, {
      model,
      provider: { base_url: env.FAKE_OPENAI_URL },
      n_queries: 1,
      n_replays: 2,
      concurrency: 1,
      min_success: 2,
      webhook_url: url,
    });
    await vi.waitFor(async () => expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1), WAIT);
    const canceled = (await (await send("POST", `/v1/runs/${created.id}/cancel`, key)).json()) as Run;
    expect(canceled.status).toBe("canceled");
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    expect((await waitForRun(key, created.id)).status).toBe("canceled");
    expect(await hookEvents(hook)).toEqual(["run.canceled"]);
  });
});
