// Issue 15: adding an evaluator is one folder and one registry line. This test-only evaluator is a
// plug-in folder of a few lines (test/fixtures/toy-sum/server/), registered from here without touching src,
// and runs on the real platform: the generic POST /v1/toy-sum/runs, the coordinator and its lanes, the
// aggregate, GET /v1/runs/{id}. Issue 24: its own routes are mounted too, at /v1/toy-sum and /v1/runs.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app.ts";
import { evaluators } from "../../src/evaluators/registry.ts";
import { toySum } from "../fixtures/toy-sum/server/index.ts";
import { newTenant, WAIT } from "./helpers.ts";

evaluators.register(toySum);
// The app is made after the registration, so it routes the toy's POST /runs (the Worker's own app was
// made at import, before it).
const app = createApp();
const fetchApp = (path: string, init: RequestInit) =>
  app.fetch(new Request(`http://assay.test${path}`, init), env, {
    waitUntil: () => {},
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext);

describe("a sixth evaluator registered from a test", () => {
  it("runs through create, units, aggregate and GET /v1/runs/{id}", async () => {
    const { key } = await newTenant("toy");
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const created = await fetchApp("/v1/toy-sum/runs", {
      method: "POST",
      headers,
      body: JSON.stringify({ numbers: [1, 2, 3.5, 4], concurrency: 2 }),
    });
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
    const samples = (await (await fetchApp(`${run.links.self}/samples`, { headers })).json()) as {
      data: { evaluator: string; output: unknown }[];
    };
    expect(samples.data.map((s) => s.evaluator)).toEqual(["toy-sum", "toy-sum", "toy-sum", "toy-sum"]);
  });

  it("validates its request with its own schema and names the field", async () => {
    const { key } = await newTenant("toy2");
    const res = await fetchApp("/v1/toy-sum/runs", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ numbers: [] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0].path).toBe("numbers");
  });

  it("is documented by the app that routes it", async () => {
    const doc = (await (await fetchApp("/openapi.json", {})).json()) as {
      paths: Record<string, { post?: { operationId: string }; get?: { operationId: string } }>;
    };
    expect(doc.paths["/v1/toy-sum/runs"]?.post?.operationId).toBe("createToySumRun");
    expect(doc.paths["/v1/toy-sum/about"]?.get?.operationId).toBe("getToySumAbout");
    expect(doc.paths["/v1/runs/{run_id}/sum.txt"]?.get?.operationId).toBe("getToySumText");
  });

  it("serves its own routes, at /v1/toy-sum and under /v1/runs, behind the API key", async () => {
    const { key } = await newTenant("toy3");
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const about = await fetchApp("/v1/toy-sum/about", { headers });
    expect(about.status).toBe(200);
    expect(await about.json()).toEqual({ evaluator: "toy-sum", units: "one per number" });
    expect((await fetchApp("/v1/toy-sum/about", {})).status).toBe(401);

    const run = (await (
      await fetchApp("/v1/toy-sum/runs", { method: "POST", headers, body: JSON.stringify({ numbers: [2, 40] }) })
    ).json()) as { id: string; links: { self: string } };
    await vi.waitFor(async () => {
      const body = (await (await fetchApp(run.links.self, { headers })).json()) as { status: string };
      if (body.status !== "succeeded") throw new Error(`still ${body.status}`);
    }, WAIT);
    const sum = await fetchApp(`/v1/runs/${run.id}/sum.txt`, { headers });
    expect(sum.status).toBe(200);
    // 2 + 40, as the toy's aggregate stored it.
    expect(await sum.text()).toBe("42");
    // Its route answers for its own runs only, like every evaluator's reports.
    expect((await fetchApp("/v1/runs/run_nonexistent/sum.txt", { headers })).status).toBe(404);
  });
});
