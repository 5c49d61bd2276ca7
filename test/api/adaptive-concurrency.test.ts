// Issue 19, "Adaptive concurrency": a run that leaves `concurrency` out adapts to its endpoint through
// a limiter shared per tenant, endpoint and key (src/runs/limiter/endpoint-limiter.ts). Checked against
// the fake server's rate-limit modes, on what the endpoint records (refusals, the most admitted at
// once, arrivals before a Retry-After), never on the clock.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { limiterName } from "../../src/runs/limiter/endpoint-gate.ts";
import { DEFAULT_WINDOW } from "../../src/runs/limiter/index.ts";
import { fakeScenario, newTenant, send, startRun, waitForRun, WAIT, type RunJson } from "./helpers.ts";

const API_KEY = "sk-adaptive-test-0000";
const provider = () => ({ base_url: env.FAKE_OPENAI_URL, api_key: API_KEY });

type EndpointReport = {
  adaptive: boolean;
  bucket_s: number;
  series: [number, number, number][];
  max_limit: number;
  max_in_flight: number;
};
type Run = RunJson & {
  endpoint: EndpointReport | null;
  calls: { requests: number; retries: number; rate_limited: number };
};

async function limiter(tenantId: string) {
  return env.LIMITERS.getByName(await limiterName(tenantId, env.FAKE_OPENAI_URL, API_KEY));
}

async function finished(key: string, id: string): Promise<Run> {
  await waitForRun(key, id);
  return (await (await send("GET", `/v1/runs/${id}`, key)).json()) as Run;
}

describe("adaptive concurrency", () => {
  it("against an endpoint that refuses above 3 in flight: no unit fails, and the window settles near 3", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario(
      { agent: { calls: 2 }, delay_ms: 20, record: false, rate_limit: { max_in_flight: 3 } },
      "steady",
    );
    // 30 replays, no `concurrency`: the window starts at 10, so the endpoint refuses at first.
    const run = await finished(
      key,
      (await startRun(key, { model, provider: provider(), n_queries: 1, n_replays: 30, min_success: 2 })).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 30, failed: 0, total: 30 });
    const stats = await scenarioStats(env.FAKE_OPENAI_URL, model);
    expect(stats.max_admitted).toBeLessThanOrEqual(3);
    expect(stats.rate_limited).toBeGreaterThan(0);
    // Every refusal is counted where the run reports its calls: 90 answered calls plus the refused ones.
    expect(run.calls).toEqual({
      requests: 90 + stats.rate_limited!,
      retries: stats.rate_limited,
      rate_limited: stats.rate_limited,
    });
    // After a refusal at n in flight the window is ⌊0.7 n⌋ and climbs back to n − 1, probing n slowly.
    const view = await (await limiter(tenantId)).inspect();
    expect(view.limit).toBeGreaterThanOrEqual(2);
    expect(view.limit).toBeLessThanOrEqual(5);
    expect(view.inFlight).toBe(0);
    expect(run.endpoint).toMatchObject({ adaptive: true, bucket_s: 1 });
    expect(run.endpoint!.max_limit).toBeGreaterThanOrEqual(10);
    expect(run.endpoint!.series.length).toBeGreaterThan(0);
  });

  it("follows a limit that drops mid-run", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario(
      {
        agent: { calls: 2 },
        delay_ms: 20,
        record: false,
        rate_limit: { max_in_flight: 8, drop_after: 40, then_max_in_flight: 2 },
      },
      "drop",
    );
    const run = await finished(
      key,
      (await startRun(key, { model, provider: provider(), n_queries: 1, n_replays: 40, min_success: 2 })).id,
    );
    expect(run.progress).toEqual({ done: 40, failed: 0, total: 40 });
    const stats = await scenarioStats(env.FAKE_OPENAI_URL, model);
    expect(stats.received).toBeGreaterThan(40);
    // The last refusal set the ceiling at the level it was sent at, over the endpoint's 2.
    const view = await (await limiter(tenantId)).inspect();
    expect(view.limit).toBeLessThanOrEqual(3);
    expect(view.window.ceiling === null || view.window.ceiling <= 4).toBe(true);
  });

  it("sends no refused request again before the Retry-After it was told", async () => {
    const { key } = await newTenant();
    // Ten queries of one replay: every conversation is its own, so the endpoint can tell a retry.
    const model = await fakeScenario(
      { agent: { calls: 2 }, delay_ms: 20, record: false, rate_limit: { max_in_flight: 2, retry_after_ms: 300 } },
      "retry-after",
    );
    const run = await finished(
      key,
      (await startRun(key, { model, provider: provider(), n_queries: 10, n_replays: 1, min_success: 2 })).id,
    );
    expect(run.progress).toEqual({ done: 10, failed: 0, total: 10 });
    const stats = await scenarioStats(env.FAKE_OPENAI_URL, model);
    expect(stats.rate_limited).toBeGreaterThan(0);
    expect(stats.early).toBe(0);
    expect(stats.max_admitted).toBeLessThanOrEqual(2);
  });

  it("two runs against one endpoint and key share one window", async () => {
    const { key, tenantId } = await newTenant();
    // Every request is held until released: the limiter's first window (W) is all that is in flight.
    const W = DEFAULT_WINDOW.initial;
    const model = await fakeScenario({ agent: { calls: 1 }, record: false, hold_after: 0 }, "shared");
    const a = await startRun(key, { model, provider: provider(), n_queries: 1, n_replays: W + 6, min_success: 2 });
    const shared = await limiter(tenantId);
    await vi.waitFor(async () => expect(await shared.inspect()).toMatchObject({ inFlight: W, waiting: 6 }), WAIT);
    const b = await startRun(key, { model, provider: provider(), n_queries: 1, n_replays: 4, min_success: 2 });
    // Run B's four lanes queue behind run A's: the endpoint still has exactly the window in flight.
    await vi.waitFor(async () => expect(await shared.inspect()).toMatchObject({ inFlight: W, waiting: 10 }), WAIT);
    expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(W);
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    const [ra, rb] = [await finished(key, a.id), await finished(key, b.id)];
    expect([ra.progress.failed, rb.progress.failed]).toEqual([0, 0]);
    // Whatever the window grew to afterwards, the endpoint never had more in flight than it granted.
    const view = await shared.inspect();
    expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).max_in_flight).toBeLessThanOrEqual(view.maxInFlight);
    expect(rb.endpoint!.max_in_flight).toBeGreaterThanOrEqual(W);
  });

  it("never exceeds a fixed concurrency, which still goes through the shared window", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario(
      { agent: { calls: 1 }, delay_ms: 20, record: false, rate_limit: { max_in_flight: 2 } },
      "fixed",
    );
    const run = await finished(
      key,
      (
        await startRun(key, {
          model,
          provider: provider(),
          n_queries: 1,
          n_replays: 12,
          min_success: 2,
          concurrency: 3,
        })
      ).id,
    );
    expect(run.progress).toEqual({ done: 12, failed: 0, total: 12 });
    const stats = await scenarioStats(env.FAKE_OPENAI_URL, model);
    expect(stats.max_in_flight).toBeLessThanOrEqual(3);
    expect(stats.max_admitted).toBeLessThanOrEqual(2);
    expect(run.config.concurrency).toBe(3);
    expect(run.endpoint).toMatchObject({ adaptive: false });
    expect((await (await limiter(tenantId)).inspect()).maxInFlight).toBeLessThanOrEqual(3);
  });

  it("a fixed concurrency above the first window opens a fresh window to it: no lane waits for the doubling", async () => {
    const { key, tenantId } = await newTenant();
    // Every request is held until released: what is in flight is what the limiter granted at once.
    const C = DEFAULT_WINDOW.initial + 8;
    const model = await fakeScenario({ agent: { calls: 1 }, record: false, hold_after: 0 }, "opening");
    const run = await startRun(key, {
      model,
      provider: provider(),
      n_queries: 1,
      n_replays: C,
      min_success: 2,
      concurrency: C,
    });
    const shared = await limiter(tenantId);
    await vi.waitFor(async () => expect(await shared.inspect()).toMatchObject({ inFlight: C, waiting: 0 }), WAIT);
    expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(C);
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    expect((await finished(key, run.id)).progress).toEqual({ done: C, failed: 0, total: C });
  });

  it("a simulator run calls no endpoint and reports none", async () => {
    const { key } = await newTenant();
    const run = await finished(
      key,
      (await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 3, min_success: 2 })).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.endpoint).toBe(null);
    expect(run.config.concurrency).toBe(100);
  });
});
