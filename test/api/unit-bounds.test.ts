// Issue 23, item 5: no unit outlives what one invocation may do. Every step a unit takes (a model call
// with its retries, a round of reasoning-quality's checker calls) must fit in a fresh lane invocation:
// a request that could not is refused at creation, naming the field; a lane starts a unit only while
// its invocation has room for what that unit may need (its evaluator's unitCost, not one fixed
// figure); and a checker of many rounds hands over between rounds and continues, never from the start.
// Budgets are lowered here (never raised) and the clock is injected, so nothing waits for minutes.
import { afterEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { scenarioStats } from "../support/fake-openai.ts";
import { setInvocationLimitsForTest } from "../../src/platform/invocation-budget.ts";
import { requireStepsFit } from "../../src/runs/plugin/step-limits.ts";
import { ApiError } from "../../src/errors.ts";
import { fakeScenario, newTenant, problem, send, startRq, waitForRun, type RunJson } from "./helpers.ts";

let undo: (() => void) | null = null;
afterEach(() => {
  undo?.();
  undo = null;
});

// Production's figures: an alarm's 15 minutes less the lane's one-minute margin is 840 s, and a call
// is tried 3 times with up to 60 s (a Retry-After) between tries: 3 t + 120 ≤ 840, so t ≤ 240.
const MAX_TIMEOUT_S = 240;

describe("creating a run whose one step could not fit in an invocation", () => {
  const rq = (models: object[], ls: object | string = "lexical") => ({
    models,
    ls,
    datasets: [{ synthetic: { num_reasoning: 1, num_adversarial: 0, num_robustness: 0 } }],
    K: 1,
    P: 0,
  });
  const checker = (timeout_s: number) => ({ method: "model", model: "sim:checker", timeout_s });
  const cases: [string, string, (t: number) => object, string][] = [
    [
      "rpl",
      "/v1/rpl/runs",
      (t) => ({ claim: "Water boils at 100 C at sea level.", model: "sim:rpl", timeout_s: t }),
      "timeout_s",
    ],
    [
      "judge",
      "/v1/judge/runs",
      (t) => ({
        items: [{ id: "a", query: "q" }],
        critics: [
          { name: "x", model: "sim:critic" },
          { name: "y", model: "sim:critic", timeout_s: t },
        ],
      }),
      "critics.1.timeout_s",
    ],
    [
      "reasoning-quality's model",
      "/v1/reasoning-quality/runs",
      (t) => rq([{ model: "sim:reasoner", timeout_s: t }]),
      "models.0.timeout_s",
    ],
    [
      "reasoning-quality's checker",
      "/v1/reasoning-quality/runs",
      (t) => rq([{ model: "sim:reasoner" }], checker(t)),
      "ls.timeout_s",
    ],
    ["chain-determinism", "/v1/chain-determinism/runs", (t) => ({ model: "sim:agent", timeout_s: t }), "timeout_s"],
  ];

  it.each(cases)(
    "refuses %s past the largest timeout_s, naming the field, and accepts the largest",
    async (_, path, body, field) => {
      const { key } = await newTenant();
      const refused = await problem(await send("POST", path, key, body(MAX_TIMEOUT_S + 1)), 400);
      expect(refused.errors?.map((e) => e.path)).toEqual([field]);
      expect(refused.errors?.[0].message).toMatch(new RegExp(`at most ${MAX_TIMEOUT_S}\\b`));
      const accepted = await send("POST", path, key, body(MAX_TIMEOUT_S));
      expect(accepted.status).toBe(202);
      // Ended before the next test: its lanes would read the clock a later test injects.
      const run = (await accepted.json()) as RunJson;
      await send("POST", `/v1/runs/${run.id}/cancel`, key);
      await waitForRun(key, run.id);
    },
  );

  it("documents the largest timeout_s in the OpenAPI schema of every model call", async () => {
    const doc = (await (await send("GET", "/openapi.json", undefined)).json()) as {
      components: {
        schemas: Record<
          string,
          { properties: Record<string, { maximum?: number; description?: string; items?: { $ref?: string } }> }
        >;
      };
    };
    const s = doc.components.schemas;
    const fields = [
      s.RplRunRequest.properties.timeout_s,
      s.ChainDeterminismRunRequest.properties.timeout_s,
      s.LsModelBackend.properties.timeout_s,
    ];
    for (const f of fields) {
      expect(f.maximum).toBe(MAX_TIMEOUT_S);
      expect(f.description).toContain(`at most ${MAX_TIMEOUT_S}`);
    }
  });

  it("the one check refuses a step over an invocation's subrequests too, naming its field", () => {
    // 9,900 subrequests per invocation (10,000 less the lane's margin of 100).
    const check = () =>
      requireStepsFit([
        { path: "a.timeout_s", what: "A step", cost: { ms: 1_000, subrequests: 9_901 } },
        { path: "b.timeout_s", what: "Another", cost: { ms: 840_000, subrequests: 9_900 } },
      ]);
    expect(check).toThrow(ApiError);
    try {
      check();
    } catch (e) {
      expect((e as ApiError).errors?.map((x) => x.path)).toEqual(["a.timeout_s"]);
    }
  });
});

describe("a lane budgets each unit by what it may need", () => {
  const items = Array.from({ length: 20 }, (_, i) => ({ id: `i${i}`, query: `Is item ${i} fine?` }));
  /** A judge run of 20 items × 2 simulated critics (40 units) on one lane; its lane's hand-overs. */
  async function judgeRun(key: string, timeout_s: number) {
    const critics = [
      { name: "x", model: "sim:critic", timeout_s },
      { name: "y", model: "sim:critic", timeout_s },
    ];
    const res = await send("POST", "/v1/judge/runs", key, { items, critics, concurrency: 1 });
    expect(res.status).toBe(202);
    const run = (await res.json()) as RunJson;
    const ended = await waitForRun(key, run.id);
    return { ended, lane: await env.UNITS.getByName(`${run.id}:0`).invocations() };
  }

  it("runs short calls back to back where a fixed nine minutes per unit would hand over, and hands over before each long one", async () => {
    const { key } = await newTenant();
    // A 10-minute invocation, and every reading of the lane's clock 5 s later (one per unit).
    let t = 0;
    undo = setInvocationLimitsForTest({ wallMs: 600_000, now: () => (t += 5_000) });

    // timeout_s 1: a unit may need 3 × 1 s + 2 × 60 s = 123 s, so a unit starts while at most 477 s
    // have gone, some 95 readings: all 40 units in one invocation. (Nine minutes per unit would have
    // let units start only in the first 60 s, 12 readings, and handed over at least 3 times.)
    const short = await judgeRun(key, 1);
    expect(short.ended.status).toBe("succeeded");
    expect(short.lane.handovers).toBe(0);

    // timeout_s 200: a unit may need 3 × 200 s + 120 s = 720 s, more than the 600 s an invocation has
    // once it began: every unit but the first of an invocation waits for a fresh one, 39 hand-overs.
    const long = await judgeRun(key, 200);
    expect(long.ended.status).toBe("succeeded");
    expect(long.lane.handovers).toBe(39);
    expect(long.ended.progress).toMatchObject({ done: 40, failed: 0 });
  });
});

describe("reasoning-quality's contradiction checker in steps", () => {
  // 21 sentences under the default splitter: 20 step pairs; the checker calls "Step 3 holds" → "Step 4
  // holds" a contradiction and every other pair neutral.
  const ANSWER = `${Array.from({ length: 20 }, (_, i) => `Step ${i + 1} holds.`).join(" ")} So the answer is 4.`;

  async function checkedRun(key: string) {
    const gen = await fakeScenario({ text: ANSWER }, "ubg");
    const checker = await fakeScenario(
      {
        text: '{"labels": ["neutral"]}',
        answers: [{ contains: "FIRST: Step 3 holds\n", content: '{"labels": ["contradiction"]}' }],
      },
      "ubc",
    );
    const run = await startRq(key, {
      models: [{ name: "m", model: gen, provider: { base_url: env.FAKE_OPENAI_URL }, timeout_s: 1 }],
      datasets: [{ synthetic: { num_reasoning: 1, num_adversarial: 0, num_robustness: 0 } }],
      K: 1,
      P: 0,
      concurrency: 1,
      // One pair per call: 20 calls, in rounds of 4.
      ls: {
        method: "model",
        model: checker,
        provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-checker-key-1234" },
        batch_size: 1,
        timeout_s: 1,
      },
    });
    const ended = await waitForRun(key, run.id);
    const samples = (await (await send("GET", `/v1/runs/${run.id}/samples`, key)).json()) as {
      data: { unit_id: string; output: { nli?: { labels: unknown[]; calls: number } } }[];
    };
    return {
      ended,
      samples: samples.data,
      lane: await env.UNITS.getByName(`${run.id}:0`).invocations(),
      generated: (await scenarioStats(env.FAKE_OPENAI_URL, gen)).received,
      checked: (await scenarioStats(env.FAKE_OPENAI_URL, checker)).received,
    };
  }

  it("hands over between rounds before the invocation's subrequests run out and writes the sample an unbroken run writes", async () => {
    const { key } = await newTenant();
    const whole = await checkedRun(key);
    expect(whole.ended.status).toBe("succeeded");
    expect(whole.lane.handovers).toBe(0);
    expect(whole.samples[0].output.nli).toMatchObject({ calls: 20, failed_calls: 0 });
    expect(whole.samples[0].output.nli!.labels.filter((l) => l === "contradiction")).toHaveLength(1);

    // A round of 4 calls may need 4 × 23 attempts with a limiter request each: 184 subrequests. With
    // 189 per invocation, a round starts only while the invocation has made at most 5. The first
    // invocation made more before its first round could start (the unit's context, the generation
    // and its permit, …) or runs one round; a fresh one runs its first round (it always does) and at
    // most one more (each round sends at least its 4 calls): at most 2 of the 5 rounds each, so at
    // least 2 hand-overs.
    const SUBREQUESTS = 189;
    undo = setInvocationLimitsForTest({ subrequests: SUBREQUESTS });
    const split = await checkedRun(key);
    expect(split.ended.status).toBe("succeeded");
    expect(split.lane.handovers).toBeGreaterThanOrEqual(2);
    expect(split.lane.maxSubrequests).toBeLessThanOrEqual(SUBREQUESTS);
    // Continued, never restarted: one generation, each pair checked once.
    expect(split.generated).toBe(1);
    expect(split.checked).toBe(20);
    expect(split.samples.map((s) => s.output)).toEqual(whole.samples.map((s) => s.output));
  });
});
