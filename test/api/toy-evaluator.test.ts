// Issue 15: adding an evaluator is one folder and one registry line. This test-only evaluator is a
// module of a few lines, registered from here without touching src, and runs on the real platform:
// the generic POST /v1/toy-sum/runs, the coordinator and its lanes, the aggregate, GET /v1/runs/{id}.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app.ts";
import { evaluators } from "../../src/evaluators/registry.ts";
import { toySum } from "../fixtures/toy-sum/server.ts";
import { newTenant, WAIT } from "./helpers.ts";

evaluators.register(toySum);
// The app is made after the registration, so it routes the toy's POST /runs (the Worker's own app was
// made at import, before it).
const app = createApp();
const fetchApp = (path: string, init: RequestInit) => app.fetch(new Request(`http://assay.test${path}`, init), env, { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext);

describe("a sixth evaluator registered from a test", () => {
  it("runs through create, units, aggregate and GET /v1/runs/{id}", async () => {
    const { key } = await newTenant("toy");
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const created = await fetchApp("/v1/toy-sum/runs", { method: "POST", headers, body: JSON.stringify({ numbers: [1, 2, 3.5, 4], concurrency: 2 }) });
    expect(created.status).toBe(202);
    const run = (await created.json()) as { id: string; evaluator: string; config: unknown; links: { self: string } };
    expect(run.evaluator).toBe("toy-sum");
    expect(run.config).toEqual({ n: 4 });
    const done = await vi.waitFor(async () => {
      const res = await fetchApp(run.links.self, { headers });
      const body = (await res.json()) as { status: string; result: unknown; progress: unknown };
      if (body.status !== "succeeded") throw new Error(`still ${body.status}`);
      return body;
    }, WAIT);
    expect(done.result).toEqual({ sum: 10.5, units: 4 });
    expect(done.progress).toEqual({ done: 4, failed: 0, total: 4 });
    const samples = (await (await fetchApp(`${run.links.self}/samples`, { headers })).json()) as { data: { evaluator: string; output: unknown }[] };
    expect(samples.data.map((s) => s.evaluator)).toEqual(["toy-sum", "toy-sum", "toy-sum", "toy-sum"]);
  });

  it("validates its request with its own schema and names the field", async () => {
    const { key } = await newTenant("toy2");
    const res = await fetchApp("/v1/toy-sum/runs", { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: JSON.stringify({ numbers: [] }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0].path).toBe("numbers");
  });

  it("is documented by the app that routes it", async () => {
    const doc = (await (await fetchApp("/openapi.json", {})).json()) as { paths: Record<string, { post?: { operationId: string } }> };
    expect(doc.paths["/v1/toy-sum/runs"]?.post?.operationId).toBe("createToySumRun");
  });
});
