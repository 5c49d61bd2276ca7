import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { registerScenario, releaseScenario, scenarioStats } from "../support/fake-openai.ts";
import { call, newTenant, problem, send, startRun, waitForRun, type RunJson } from "./helpers.ts";

describe("POST /v1/chain-determinism/runs with the simulator", () => {
  it("runs every replay and aggregates like the original harness", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, {
      model: "sim:agent",
      n_queries: 3,
      n_replays: 6,
      concurrency: 4,
      simulator: { divergence: 0.5 },
    });
    expect(created.progress.total).toBe(18);
    expect(created.links.events).toBe(`/v1/runs/${created.id}/events`);
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 18, failed: 0, total: 18 });
    const r = run.result;
    expect(r.n_total).toBe(18);
    expect(r.n_queries).toBe(3);
    expect(r.per_query).toHaveLength(3);
    // Every query has 6 successful replays ≥ min_success 5, so all are measurable.
    expect(r.n_measurable).toBe(3);
    expect(r.divergence_rate).toBe(r.n_diverged / 3);
    for (const q of r.per_query) {
      expect(q.status).toBe("measurable");
      expect(q.modal_share).toBeGreaterThan(0);
      expect(q.diverged).toBe(q.n_unique_sequences > 1);
    }
    expect(r.endpoint.providers).toEqual({ "assay-sim": r.endpoint.requests });
    expect(r.endpoint.usage.total_tokens).toBeGreaterThan(0);
    expect(r.summary_text).toContain("sim:agent");
  });

  // Issue "A suite you can trust": this polled every 50 ms hoping to catch the run mid-way. Now the
  // endpoint holds the second replay's first request, so the run is mid-way until the test releases it.
  it("shows progress while the run is still going", async () => {
    const { key } = await newTenant();
    const model = `progress-${Date.now()}`;
    // agent.calls 2: a replay is three requests (two tool calls, then final_answer); with concurrency 1
    // replay 0 takes requests 1–3, and replay 1's first request is held.
    await registerScenario(env.FAKE_OPENAI_URL, { id: model, agent: { calls: 2 }, hold_after: 3 });
    const created = await startRun(key, {
      model,
      provider: { base_url: env.FAKE_OPENAI_URL },
      n_queries: 1,
      n_replays: 3,
      concurrency: 1,
      min_success: 2,
    });
    const midway = await vi.waitFor(
      async () => {
        const run = (await (await send("GET", `/v1/runs/${created.id}`, key)).json()) as RunJson;
        if (run.progress.done !== 1) throw new Error(`progress ${JSON.stringify(run.progress)}`);
        return run;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(midway.status).toBe("running");
    expect(midway.progress).toEqual({ done: 1, failed: 0, total: 3 });
    expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1);
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    expect((await waitForRun(key, created.id)).status).toBe("succeeded");
  }, 60_000);

  it("is deterministic: the same request gives the same result", async () => {
    const { key } = await newTenant();
    const body = { model: "sim:agent", n_queries: 2, n_replays: 5, simulator: { divergence: 0.4 }, seed: 7 };
    const a = await waitForRun(key, (await startRun(key, body)).id);
    const b = await waitForRun(key, (await startRun(key, body)).id);
    expect(b.result.per_query).toEqual(a.result.per_query);
  });

  it("returns samples as pages and as NDJSON rows in the harness's format", async () => {
    const { key } = await newTenant();
    const run = await waitForRun(key, (await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 5 })).id);
    const first = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=3`, key)).json()) as {
      data: { unit_id: string; output: any }[];
      next_cursor: string;
      has_more: boolean;
    };
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    const second = (await (
      await send("GET", `/v1/runs/${run.id}/samples?limit=3&after=${first.next_cursor}`, key)
    ).json()) as { data: unknown[]; has_more: boolean };
    expect(second.data).toHaveLength(2);
    expect(second.has_more).toBe(false);
    expect(first.data[0].output.turns.length).toBeGreaterThan(0);

    const res = await call(`/v1/runs/${run.id}/samples`, {
      headers: { Authorization: `Bearer ${key}`, Accept: "application/x-ndjson" },
    });
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5);
    expect(Object.keys(lines[0])).toEqual([
      "tool_call_sequence",
      "final_answer",
      "rationale",
      "n_tool_calls",
      "error_category",
      "query_id",
      "query_type",
      "run_idx",
    ]);
    expect(lines.map((l) => l.run_idx).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("streams progress, each unit and the final state as Server-Sent Events", async () => {
    const { key } = await newTenant();
    const created = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 5 });
    const res = await call(`/v1/runs/${created.id}/events`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events.filter((e) => e === "unit")).toHaveLength(5);
    expect(events.at(-1)).toBe("final");
    expect(events).toContain("progress");
    const final = JSON.parse(/^event: final\ndata: (.*)$/m.exec(text)![1]);
    expect(final.status).toBe("succeeded");
  });

  it("lists runs with filters and a cursor, scoped to the tenant", async () => {
    const a = await newTenant("a");
    const b = await newTenant("b");
    const r1 = await startRun(a.key, { model: "sim:agent", n_queries: 1, n_replays: 2, min_success: 2 });
    const r2 = await startRun(a.key, { model: "sim:agent", n_queries: 1, n_replays: 2, min_success: 2 });
    await waitForRun(a.key, r1.id);
    await waitForRun(a.key, r2.id);
    const page = (await (
      await send("GET", "/v1/runs?limit=1&evaluator=chain-determinism&status=succeeded", a.key)
    ).json()) as { data: { id: string }[]; next_cursor: string };
    expect(page.data.map((r) => r.id)).toEqual([r2.id]);
    const next = (await (await send("GET", `/v1/runs?limit=1&after=${page.next_cursor}`, a.key)).json()) as {
      data: { id: string }[];
    };
    expect(next.data.map((r) => r.id)).toEqual([r1.id]);
    expect(((await (await send("GET", "/v1/runs", b.key)).json()) as { data: unknown[] }).data).toEqual([]);
    await problem(await send("GET", `/v1/runs/${r1.id}`, b.key), 404);
  });

  it("returns the same run for the same Idempotency-Key and body, 422 for another body", async () => {
    const { key } = await newTenant();
    const body = { model: "sim:agent", n_queries: 1, n_replays: 2, min_success: 2 };
    const a = await startRun(key, body, { "Idempotency-Key": "k-1" });
    const b = await startRun(key, body, { "Idempotency-Key": "k-1" });
    expect(b.id).toBe(a.id);
    const other = await call("/v1/chain-determinism/runs", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": "k-1" },
      body: JSON.stringify({ ...body, n_replays: 3 }),
    });
    expect((await problem(other, 422)).type).toBe("/problems/idempotency-mismatch");
    await waitForRun(key, a.id);
  });

  it("validates the request, naming the field", async () => {
    const { key } = await newTenant();
    const cases: [Record<string, unknown>, string][] = [
      [{ model: "gpt-4.1" }, "provider"],
      [{ model: "sim:agent", provider: { base_url: "https://x.test/v1" } }, "provider"],
      [{ model: "sim:agent", n_queries: 11 }, "n_queries"],
      [{ model: "sim:agent", concurrency: 0 }, "concurrency"],
      [{ model: "sim:agent", suite: "ste_missing" }, "suite"],
      [{ model: "sim:agent", webhook_url: "http://example.com/hook" }, "webhook_url"],
      [{ model: "sim:agent", min_success: 1 }, "min_success"],
    ];
    for (const [body, path] of cases) {
      const p = await problem(await send("POST", "/v1/chain-determinism/runs", key, body), 400);
      expect(
        p.errors!.map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("never stores or returns the provider API key", async () => {
    const { key } = await newTenant();
    const secret = "sk-test-secret-value-1234567890";
    const created = await startRun(key, {
      model: "fake-model",
      provider: { base_url: `${env.FAKE_OPENAI_URL}`, api_key: secret },
      n_queries: 1,
      n_replays: 2,
      min_success: 2,
    });
    const run = await waitForRun(key, created.id);
    expect(run.status).toBe("succeeded");
    expect(JSON.stringify(run)).not.toContain(secret);
    const rows = await env.DB.prepare("SELECT * FROM runs").all();
    expect(JSON.stringify(rows.results)).not.toContain(secret);
    const samples = await env.DB.prepare("SELECT * FROM samples").all();
    expect(JSON.stringify(samples.results)).not.toContain(secret);
  });
});
