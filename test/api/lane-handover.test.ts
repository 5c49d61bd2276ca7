// Issue 23, item 5: no unit outlives what one invocation may do. A lane hands over to a fresh
// invocation before its wall time (an alarm's 15 minutes) or its subrequests (10,000) run out, and a
// chain-determinism replay of many turns does so between turns, continuing from a checkpoint the
// coordinator keeps, never from the start. Budgets are lowered here (never raised) and the clock is
// injected, so hand-overs happen within seconds and without sleeps.
import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { recordedRequests, releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { limiterName } from "../../src/runs/limiter/endpoint-gate.ts";
import { setInvocationLimitsForTest } from "../../src/platform/invocation-budget.ts";
import { fakeScenario, newTenant, problem, send, startRun, waitForRun, WAIT, type RunJson } from "./helpers.ts";

const API_KEY = "sk-lane-handover-0000";
const provider = () => ({ base_url: env.FAKE_OPENAI_URL, api_key: API_KEY });
const TURNS = 25;

type Row = {
  tool_call_sequence: unknown[];
  final_answer: unknown;
  n_tool_calls: number;
  error_category: string | null;
  run_idx: number;
};
type Sample = { unit_id: string; status: string; output: { row: Row; turns: unknown[]; requests: number } };

const request = (model: string, replays: number) => ({
  model,
  provider: provider(),
  n_queries: 1,
  n_replays: replays,
  max_turns: TURNS + 5,
  timeout_s: 1,
  concurrency: replays,
  min_success: 2,
});

/** A run of `replays` replays of TURNS turns each (24 tool calls, then the final answer) against its own scenario. */
async function replayRun(key: string, replays: number) {
  const model = await fakeScenario({ agent: { calls: TURNS - 1 }, record: false }, "long");
  const run = await startRun(key, request(model, replays));
  const ended = (await waitForRun(key, run.id)) as RunJson & { calls: { requests: number; retries: number } };
  const samples = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: Sample[] };
  const lanes = await Promise.all(
    Array.from({ length: replays }, (_, i) => env.UNITS.getByName(`${run.id}:${i}`).invocations()),
  );
  return {
    ended,
    model,
    samples: samples.data.sort((a, b) => a.unit_id.localeCompare(b.unit_id)),
    lanes,
    stats: await scenarioStats(env.FAKE_OPENAI_URL, model),
  };
}

let undo: (() => void) | null = null;
afterEach(() => {
  undo?.();
  undo = null;
});

describe("a lane's invocation budget", () => {
  it("hands a long replay over between turns before its subrequests run out, with the same sequences as an unbroken run and no turn sent twice", async () => {
    const { key } = await newTenant();
    const whole = await replayRun(key, 2);
    expect(whole.lanes.map((l) => l.handovers)).toEqual([0, 0]);

    // 52 subrequests per invocation, and a turn may need 46 (its call's 23 attempts and their limiter
    // requests): a turn starts only while the invocation has made at most 6, and each turn makes at
    // least one (its request), so an invocation runs at most 8 turns (the first always runs) and a
    // replay of 25 turns hands over at least ⌈25 / 8⌉ − 1 = 3 times.
    const SUBREQUESTS = 52;
    undo = setInvocationLimitsForTest({ subrequests: SUBREQUESTS });
    const split = await replayRun(key, 2);
    expect(split.ended.status).toBe("succeeded");
    for (const lane of split.lanes) {
      expect(lane.handovers).toBeGreaterThanOrEqual(3);
      expect(lane.maxSubrequests).toBeLessThanOrEqual(SUBREQUESTS);
    }
    // Each replay's row (its tool-call sequence, answer, count) is the unbroken run's.
    expect(split.samples.map((s) => s.output.row)).toEqual(whole.samples.map((s) => s.output.row));
    expect(split.samples.map((s) => s.output.turns.length)).toEqual([TURNS, TURNS]);
    // Continued, never restarted: the endpoint saw each of the 2 × 25 turns once.
    expect(split.stats.received).toBe(2 * TURNS);
    expect(split.samples.map((s) => s.output.requests)).toEqual([TURNS, TURNS]);
    expect(split.ended.calls).toMatchObject({ requests: 2 * TURNS, retries: 0 });
  });

  it("hands a long replay over between turns before its wall time runs out (injected clock)", async () => {
    const { key } = await newTenant();
    // Every reading of the lane's clock is one second later; a turn may take 3 × 1 s + 2 × 60 s = 123 s
    // (its tries and the waits between them), so with 130 s per invocation a lane starts a turn only
    // while at most 7 s have gone: about six turns per invocation.
    let t = 0;
    undo = setInvocationLimitsForTest({ wallMs: 130_000, now: () => (t += 1000) });
    const split = await replayRun(key, 1);
    expect(split.ended.status).toBe("succeeded");
    expect(split.lanes[0].handovers).toBeGreaterThanOrEqual(3);
    expect(split.samples[0].output.row).toMatchObject({
      n_tool_calls: TURNS,
      final_answer: "done",
      error_category: null,
    });
    expect(split.stats.received).toBe(TURNS);
  });

  it("a lane that crashes mid-replay is resumed from the replay's last checkpoint, not from its first turn", async () => {
    const { key } = await newTenant();
    const whole = await replayRun(key, 1);
    // As in the first test, at most 8 turns per invocation; the endpoint holds every request after the
    // 12th, so by then the replay has handed over at least once and saved where it was.
    undo = setInvocationLimitsForTest({ subrequests: 52 });
    const model = await fakeScenario({ agent: { calls: TURNS - 1 }, hold_after: 12 }, "crash");
    const run = await startRun(key, request(model, 1));
    await vi.waitFor(async () => expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1), WAIT);
    const lane = env.UNITS.getByName(`${run.id}:0`);
    await runInDurableObject(lane, (_, state) => state.abort("crashed by the test")).catch((e: Error) =>
      expect(e.message).toMatch(/crashed by the test/),
    );
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    const ended = await waitForRun(key, run.id);
    expect(ended.status).toBe("succeeded");
    const samples = (await (await send("GET", `/v1/runs/${run.id}/samples`, key)).json()) as { data: Sample[] };
    expect(samples.data.map((s) => s.output.row)).toEqual(whole.samples.map((s) => s.output.row));
    // Turn 0 went to the endpoint once: the resumed lane continued from a checkpoint (turns 1–8 are
    // the earliest one can be at), so it re-sent at most the turns after it, up to the held 13th.
    const requests = await recordedRequests(env.FAKE_OPENAI_URL, model);
    const perTurn = (t: number) => requests.filter((r) => r.turn === t).length;
    expect(perTurn(0)).toBe(1);
    expect(perTurn(TURNS - 1)).toBe(1);
    expect(requests.length).toBeGreaterThan(TURNS);
    expect(requests.length).toBeLessThanOrEqual(TURNS + 12);
  });

  it("refuses a chain-determinism run whose one turn could not fit in an invocation, naming timeout_s", async () => {
    const { key } = await newTenant();
    // 14 min per invocation: (840 s − 2 × 60 s of waits) / 3 attempts = 240 s at most per attempt.
    const res = await send("POST", "/v1/chain-determinism/runs", key, { model: "sim:agent", timeout_s: 241 });
    const body = await problem(res, 400);
    expect(body.errors?.[0]).toMatchObject({ path: "timeout_s" });
    expect(body.errors?.[0].message).toMatch(/at most 240/);
    expect((await send("POST", "/v1/chain-determinism/runs", key, { model: "sim:agent", timeout_s: 240 })).status).toBe(
      202,
    );
  });
});

describe("the endpoint limiter off the hot path", () => {
  it("is asked at most 0.2 times per model call", async () => {
    const { key, tenantId } = await newTenant();
    // Two lanes, each two replays of 30 turns: 60 calls per lane.
    const model = await fakeScenario({ agent: { calls: 29 }, record: false }, "lease");
    const run = await startRun(key, {
      model,
      provider: provider(),
      n_queries: 1,
      n_replays: 4,
      max_turns: 30,
      concurrency: 2,
      min_success: 2,
    });
    await waitForRun(key, run.id);
    const calls = (await scenarioStats(env.FAKE_OPENAI_URL, model)).received;
    expect(calls).toBe(120);
    const limiter = env.LIMITERS.getByName(await limiterName(tenantId, env.FAKE_OPENAI_URL, API_KEY));
    // Per lane, with 2 of 16 places in use (uncontested): an acquire, renewals before calls 2, 4, 8,
    // 16, 26, 36, 46 and 56, and a release when it goes idle: 10, so 20 for 120 calls (2 per call before).
    const { requests } = await limiter.inspect();
    expect(requests).toBeGreaterThan(0);
    expect(requests / calls).toBeLessThanOrEqual(0.2);
  });
});
