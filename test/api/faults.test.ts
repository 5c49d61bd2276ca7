// Faults a run must survive (issue 3): in each, the run reaches a final state, no sample is lost or
// duplicated, and the error is visible in the samples.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { registerScenario, recordedRequests, type Scenario } from "../support/fake-openai.ts";
import { newTenant, send, startRun, waitForRun, type RunJson } from "./helpers.ts";

type SampleJson = {
  unit_id: string;
  status: string;
  error: string | null;
  output: { row: { error_category: string | null; n_tool_calls: number }; turns: unknown[] };
};

let n = 0;
async function scenario(s: Omit<Scenario, "id">): Promise<string> {
  const id = `fault-${Date.now()}-${n++}`;
  await registerScenario(env.FAKE_OPENAI_URL, { id, ...s });
  return id;
}

async function samplesOf(key: string, run: RunJson): Promise<SampleJson[]> {
  return ((await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: SampleJson[] })
    .data;
}

/** One query, `replays` replays against the fake endpoint with model = scenario id. */
async function runAgainst(model: string, opts: Record<string, unknown> = {}) {
  const { key } = await newTenant();
  const created = await startRun(key, {
    model,
    provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-fake-key-for-tests-0000" },
    n_queries: 1,
    n_replays: 1,
    min_success: 2,
    ...opts,
  });
  const run = await waitForRun(key, created.id, 30_000);
  return { key, run, samples: await samplesOf(key, run) };
}

describe("model endpoint faults", () => {
  it("500 then 200: retried, and the turn is counted once", async () => {
    const id = await scenario({
      agent: { calls: 2 },
      faults: [{ on: { turn: 0, attempt: 1 }, respond: { status: 500 } }],
    });
    const { run, samples } = await runAgainst(id);
    expect(run.status).toBe("succeeded");
    expect(samples).toHaveLength(1);
    expect(samples[0].status).toBe("succeeded");
    // Turns 0, 1 (two tool calls) and 2 (final_answer): three answered requests; turn 0 was sent twice.
    expect(samples[0].output.turns).toHaveLength(3);
    const reqs = await recordedRequests(env.FAKE_OPENAI_URL, id);
    expect(reqs.map((r) => r.turn)).toEqual([0, 0, 1, 2]);
    expect(samples[0].output.row.n_tool_calls).toBe(3);
  });

  it("429 with Retry-After: waits at least that long before retrying", async () => {
    const id = await scenario({
      faults: [{ on: { turn: 0, attempt: 1 }, respond: { status: 429, headers: { "retry-after": "1" } } }],
    });
    const { samples } = await runAgainst(id);
    expect(samples[0].status).toBe("succeeded");
    const [first, second] = await recordedRequests(env.FAKE_OPENAI_URL, id);
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000);
  });

  it("a hang past the timeout: APITimeoutError after the retries, recorded in the sample", async () => {
    const id = await scenario({ faults: [{ on: { turn: 0 }, respond: { hang: true } }] });
    const { run, samples } = await runAgainst(id, { timeout_s: 0.3 });
    expect(samples).toHaveLength(1);
    expect(samples[0].status).toBe("failed");
    expect(samples[0].output.row.error_category).toMatch(/^api_error: APITimeoutError: /);
    // The only replay failed, so the run failed, saying why.
    expect(run.status).toBe("failed");
    expect(run.error).toContain("APITimeoutError");
    expect((await recordedRequests(env.FAKE_OPENAI_URL, id)).length).toBe(3);
  });

  it("malformed JSON from the endpoint: a named error in the sample", async () => {
    const id = await scenario({ faults: [{ on: { turn: 1 }, respond: { raw: "{not json" } }] });
    const { samples } = await runAgainst(id, { timeout_s: 2 });
    expect(samples[0].output.row.error_category).toMatch(/^api_error: APIResponseValidationError: /);
    // The tool call of turn 0 stays in the record (spec §2).
    expect(samples[0].output.row.n_tool_calls).toBe(1);
  });

  it("empty choices: error category empty_choices", async () => {
    const id = await scenario({ faults: [{ on: { turn: 0 }, respond: { empty_choices: true } }] });
    const { samples } = await runAgainst(id);
    expect(samples[0].output.row.error_category).toBe("empty_choices");
  });

  it("a tool name outside the registry: replay_exception naming the tool", async () => {
    const id = await scenario({ faults: [{ on: { turn: 0 }, respond: { tool_name: "drop_all_tables" } }] });
    const { samples } = await runAgainst(id);
    expect(samples[0].output.row.error_category).toMatch(/^replay_exception: KeyError: .*drop_all_tables/);
  });

  it("an output too large to store: kept as a failed sample that says so, and the run ends", async () => {
    const huge = JSON.stringify({ query: "x".repeat(2_000_000) });
    const id = await scenario({ faults: [{ on: { turn: 0 }, respond: { arguments: huge } }] });
    const { run, samples } = await runAgainst(id);
    expect(run.status).toBe("failed");
    expect(samples).toHaveLength(1);
    expect(samples[0].status).toBe("failed");
    expect(samples[0].error).toMatch(
      /^the unit's output is \d+ bytes, over the 1900000-byte limit of a stored sample$/,
    );
    expect(samples[0].output.row.error_category).toContain("over the 1900000-byte limit");
  });

  it("connection refused: APIConnectionError, and the key is not in the error", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, {
      model: "any",
      provider: { base_url: "http://127.0.0.1:9/v1", api_key: "sk-secret-never-shown-123456" },
      n_queries: 1,
      n_replays: 2,
      min_success: 2,
      timeout_s: 1,
    });
    const run = await waitForRun(key, created.id, 30_000);
    const samples = await samplesOf(key, run);
    expect(samples).toHaveLength(2);
    // Issue "A suite you can trust": the error names the host and the cause. workerd reports a
    // refused connection as "Network connection lost.", so refused and closed are named together.
    for (const s of samples) {
      expect(s.output.row.error_category).toMatch(
        /^api_error: APIConnectionError: Connection error: could not reach 127\.0\.0\.1:9 \(connection refused or closed by the host/,
      );
    }
    expect(run.status).toBe("failed");
    expect(JSON.stringify({ run, samples })).not.toContain("sk-secret-never-shown");
  });

  it("errored replays never count as divergence; they only make a query insufficient", async () => {
    // Replays are distinct runs of one conversation, so attempt k is the k-th replay's (or retry's) first request.
    const id = await scenario({ faults: [{ on: { turn: 0, attempt: 1 }, respond: { status: 400 } }] });
    const { run, samples } = await runAgainst(id, { n_replays: 5, min_success: 5 });
    expect(samples).toHaveLength(5);
    expect(samples.filter((s) => s.status === "failed")).toHaveLength(1);
    expect(run.status).toBe("succeeded");
    expect(run.result.n_errors).toBe(1);
    expect(run.result.per_query[0].status).toBe("insufficient");
    expect(run.result.divergence_rate).toBeNull();
    // Issue "A suite you can trust": the harness records the OpenAI Python SDK's message, which is
    // `Error code: <status> - ` and Python's str() of the parsed body (the fake's body for a bare 400).
    expect(samples.find((s) => s.status === "failed")!.output.row.error_category).toBe(
      "api_error: BadRequestError: Error code: 400 - {'error': {'message': 'fake error 400', 'type': 'fake_error', 'code': 400}}",
    );
    // Every request sent is counted, the one answered with a 400 included.
    expect(run.result.endpoint.requests).toBe((await recordedRequests(env.FAKE_OPENAI_URL, id)).length);
  });

  it("counts retried requests in endpoint.requests", async () => {
    const id = await scenario({ faults: [{ on: { turn: 0, attempt: 1 }, respond: { status: 500 } }] });
    const { run, samples } = await runAgainst(id, { n_replays: 2 });
    const sent = (await recordedRequests(env.FAKE_OPENAI_URL, id)).length;
    const answered = samples.reduce((n, s) => n + s.output.turns.length, 0);
    // The 500 was retried, so one request more was sent than answered, and it is counted.
    expect(sent).toBe(answered + 1);
    expect(run.result.endpoint.requests).toBe(sent);
  });
});

describe("where the result claims the harness's summary format", () => {
  it("writes its float fields as json.dumps does: 0.0, not 0", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, {
      model: "sim:agent",
      n_queries: 1,
      n_replays: 2,
      min_success: 2,
      simulator: { divergence: 0 },
    });
    await waitForRun(key, created.id, 30_000);
    const text = await (await send("GET", `/v1/runs/${created.id}`, key)).text();
    // Two identical replays: measurable, not diverged, so rate 0/1 = 0.0 and Wilson (0, 1) gives
    // lo = max(0, center − half) = 0.0 exactly; temperature is the default 0.0.
    expect(text).toContain('"divergence_rate":0.0,');
    expect(text).toMatch(/"wilson_ci_95":\[0\.0,0\.\d+\]/);
    expect(text).toMatch(/"temperature":0\.0,/);
    // Still numbers to any JSON reader.
    expect(JSON.parse(text).result.divergence_rate).toBe(0);
  });
});
