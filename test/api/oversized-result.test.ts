// Issue 23: a value too large for production's storage is refused by our own guard during a run too,
// and a run whose finish meets one ends `failed` at once, saying what was too large: retrying would
// meet it again, and the run must not wait through every retry of its finish to end.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { createApp } from "../../src/app.ts";
import { evaluators } from "../../src/evaluators/registry.ts";
import { RunFields } from "../../src/runs/plugin/run-fields.ts";
import type { EvaluatorPlugin } from "../../src/runs/plugin/plugin.ts";
import { newTenant, waitForRun } from "./helpers.ts";

/**
 * A test evaluator whose stored result is `bytes` of padding while the result it shows is a count:
 * where the result is kept is decided on what is shown (small, so inline), and the row then holds the
 * stored form, over what a D1 row may hold.
 */
const wide = {
  name: "toy-wide-result" as const,
  schemas: {
    request: z.strictObject({ bytes: z.number().int().min(0), ...RunFields }).openapi("ToyWideResultRunRequest"),
    config: z.object({ bytes: z.number().int() }),
    result: z.object({ pad_bytes: z.number().int() }),
    output: z.object({ ok: z.boolean() }),
  },
  route: { operationId: "createToyWideResultRun", summary: "Wide result", description: "A test evaluator." },
  async create(body) {
    return { config: { bytes: body.bytes }, publicConfig: { bytes: body.bytes }, leaseMs: 60_000 };
  },
  plan: () => ["u0"],
  async execute() {
    return { status: "succeeded", output: { ok: true } };
  },
  aggregate: (config) => ({ pad: "x".repeat(config.bytes) }),
  wireResult: (result) => ({ pad_bytes: result.pad.length }),
  parseOutput: (text) => JSON.parse(text),
  failureOutput: () => ({ ok: false }),
  exportLine: (sample) => sample.output,
} satisfies EvaluatorPlugin<
  { bytes: number; concurrency?: number; webhook_url?: string },
  { bytes: number },
  { pad: string }
>;

evaluators.register(wide);
const app = createApp();
const fetchApp = (path: string, init: RequestInit) =>
  app.fetch(new Request(`http://assay.test${path}`, init), env, {
    waitUntil: () => {},
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext);

describe("a finish that meets a value too large to store", () => {
  it("ends the run failed at once, naming what was too large", async () => {
    const { key } = await newTenant("wide");
    const res = await fetchApp("/v1/toy-wide-result/runs", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ bytes: 3_000_000, concurrency: 1 }),
    });
    expect(res.status).toBe(202);
    const run = await waitForRun(key, ((await res.json()) as { id: string }).id, 50_000);
    expect(run.status).toBe("failed");
    expect(run.progress).toEqual({ done: 1, failed: 0, total: 1 });
    // The stored result's JSON: '{"pad":"' (8), 3,000,000 x's, '"}' (2).
    expect(run.error).toContain("runs.result (D1) is 3,000,010 bytes, over what a D1 row may hold");
    expect(run.error).toContain("the run's finish failed 1 times");
  });
});
