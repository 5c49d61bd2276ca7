// Issue 23: a run's config may be far larger than the 2 MB one Durable Object value may hold (a
// reasoning-quality run of 10,000 items is about 3.3 MB). The coordinator keeps it in pieces and lanes
// get only a unit's part, with the stored-size guard in force (src/platform/sql-guard.ts); a config too
// large to carry at all is refused at creation, naming the field, before anything is written.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { createApp } from "../../src/app.ts";
import { evaluators } from "../../src/evaluators/registry.ts";
import { RunFields } from "../../src/runs/plugin/run-fields.ts";
import type { EvaluatorPlugin } from "../../src/runs/plugin/plugin.ts";
import { reasoningQuality, type RqRunConfig } from "../../src/evaluators/reasoning-quality/index.ts";
import { generateSynthetic } from "../../src/engines/reasoning-quality/index.ts";
import { LIMITS } from "../../src/limits.ts";
import { PLATFORM_LIMITS } from "../../src/platform/limits.ts";
import { newTenant, problem, send, startRq, waitForRun } from "./helpers.ts";
import { rqConfig } from "../support/reasoning-quality-config.ts";

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).byteLength;

describe("a reasoning-quality run over 10,000 items", () => {
  // Ten synthetic sets of 1,000 reasoning items each (the generator's most per set), with distinct seeds.
  const datasets = Array.from({ length: 10 }, (_, s) => ({
    synthetic: { seed: s + 1, num_reasoning: 1000, num_adversarial: 0, num_robustness: 0 },
  }));

  it("starts, runs and finishes, although its items are more than one stored value may hold", {
    timeout: 600_000,
  }, async () => {
    // The items alone, as the run's config holds them, are over the 2 MB of one Durable Object value:
    // kept in one value, as before this issue, the start fails.
    const items = datasets.flatMap(({ synthetic: s }) =>
      generateSynthetic({ seed: s.seed, numReasoning: 1000, numAdversarial: 0, numRobustness: 0 }),
    );
    expect(bytes(items)).toBeGreaterThan(PLATFORM_LIMITS.durableObjectValueBytes.value);

    const { key } = await newTenant("rq-10k");
    const created = await startRq(key, {
      models: [{ name: "m", model: "sim:reasoner", simulator: { accuracy: 1, variation: 0, verbosity: 1 } }],
      datasets,
      K: 1,
      P: 0,
      concurrency: 50,
    });
    expect(created.progress.total).toBe(10_000);
    const run = await waitForRun(key, created.id, 580_000);
    expect(run.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 10_000, failed: 0, total: 10_000 });
    const [model] = run.result.models;
    expect(model.metadata.num_samples).toBe(10_000);
    // Accuracy 1: the simulator answers every gold, so each of the 10,000 items is correct.
    expect(model.raw_metrics.correctness).toBe(1);
  });
});

describe("what a lane is handed for a reasoning-quality unit", () => {
  it("is the config with the unit's one item, and the unit's prompt is the same as from the whole config", async () => {
    const items = generateSynthetic({ seed: 3, numReasoning: 5, numAdversarial: 2, numRobustness: 3 }).map((it, n) => ({
      ...it,
      id: `${n}:${it.id}`,
    }));
    const models: RqRunConfig["models"] = [
      {
        name: "m",
        model: "sim:reasoner",
        base_url: null,
        temperature: 0,
        max_tokens: 64,
        timeout_s: 5,
        simulator: { accuracy: 1, variation: 0, verbosity: 1, latency_ms: 0 },
      },
    ];
    const config = rqConfig(models, items, { k: 2, p: 2 }, { own_wording_golds: [] });
    for (const id of reasoningQuality.plan(config)) {
      const part = reasoningQuality.unitConfig(config, id);
      const i = Number(id.split(":")[1]);
      expect(part.items).toEqual([]);
      expect(part.unit_item).toEqual({ index: i, item: items[i] });
      // The unit's output (the simulator's answer to its prompt) is the same from either config.
      const ctx = (c: RqRunConfig) => ({
        config: c,
        chat: () => {
          throw new Error("unused");
        },
        endpoint: () => {
          throw new Error("unused");
        },
        secret: () => undefined,
        cache: undefined as never,
      });
      const signal = new AbortController().signal;
      expect(await reasoningQuality.execute(id, ctx(part), signal)).toEqual(
        await reasoningQuality.execute(id, ctx(config), signal),
      );
    }
  });
});

type PadConfig = { pad: string; n: number };

/** A test evaluator whose config is `pad_bytes` of padding and `n` units that each read it. */
const padded = {
  name: "toy-padded" as const,
  schemas: {
    request: z
      .strictObject({ pad_bytes: z.number().int().min(0), n: z.number().int().min(1).max(10), ...RunFields })
      .openapi("ToyPaddedRunRequest"),
    config: z.object({ n: z.number().int() }),
    result: z.object({ pad_bytes: z.number().int(), units: z.number().int() }),
    output: z.object({ pad_bytes: z.number().int() }),
  },
  route: { operationId: "createToyPaddedRun", summary: "Padding", description: "A test evaluator." },
  async create(body) {
    return { config: { pad: "x".repeat(body.pad_bytes), n: body.n }, publicConfig: { n: body.n }, leaseMs: 60_000 };
  },
  plan: (config) => Array.from({ length: config.n }, (_, i) => `u${i}`),
  async execute(_id, ctx) {
    return { status: "succeeded", output: { pad_bytes: ctx.config.pad.length } };
  },
  aggregate: (config, samples) => ({ pad_bytes: config.pad.length, units: [...samples].length }),
  parseOutput: (text) => JSON.parse(text),
  failureOutput: () => ({ pad_bytes: 0 }),
  exportLine: (sample) => sample.output,
} satisfies EvaluatorPlugin<
  { pad_bytes: number; n: number; concurrency?: number; webhook_url?: string },
  PadConfig,
  { pad_bytes: number; units: number }
>;

evaluators.register(padded);
// Made after the registration, so it routes the toy's POST /runs.
const app = createApp();
const fetchApp = (path: string, init: RequestInit) =>
  app.fetch(new Request(`http://assay.test${path}`, init), env, {
    waitUntil: () => {},
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext);

describe("any evaluator's config", () => {
  it("of 5 MB runs: every unit and the aggregate read it whole", { timeout: 120_000 }, async () => {
    const { key } = await newTenant("padded");
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const padBytes = 5_000_000;
    const res = await fetchApp("/v1/toy-padded/runs", {
      method: "POST",
      headers,
      body: JSON.stringify({ pad_bytes: padBytes, n: 3, concurrency: 3 }),
    });
    expect(res.status).toBe(202);
    const run = await waitForRun(key, ((await res.json()) as { id: string }).id, 100_000);
    expect(run.status).toBe("succeeded");
    expect(run.result).toEqual({ pad_bytes: padBytes, units: 3 });
    const samples = (await (await send("GET", `/v1/runs/${run.id}/samples`, key)).json()) as {
      data: { output: { pad_bytes: number } }[];
    };
    expect(samples.data.map((s) => s.output.pad_bytes)).toEqual([padBytes, padBytes, padBytes]);
  });

  it("over the limit of a run's config is a 422 before anything is written", async () => {
    const { key } = await newTenant("padded-over");
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const res = await fetchApp("/v1/toy-padded/runs", {
      method: "POST",
      headers,
      body: JSON.stringify({ pad_bytes: LIMITS.runConfigBytes, n: 1 }),
    });
    const body = await problem(res, 422);
    expect(body.type).toMatch(/limit-exceeded$/);
    // The config is the padding and its JSON: '{"pad":"' (8) + the padding + '","n":1}' (8).
    expect(body.detail).toContain(
      `are ${LIMITS.runConfigBytes + 16} bytes of JSON; a run may carry at most ${LIMITS.runConfigBytes}`,
    );
    const runs = (await (await send("GET", "/v1/runs", key)).json()) as { data: unknown[] };
    expect(runs.data).toEqual([]);
  });

  it("of reasoning-quality, over the limit, names the dataset that passed it", { timeout: 120_000 }, async () => {
    const { key } = await newTenant("rq-over");
    // Two uploads of 10,000 items of about 900 bytes each: 9 MB apiece, 18 MB together, over the 16 MiB.
    const rows = (tag: string) =>
      Array.from({ length: 10_000 }, (_, i) => ({
        question: `${tag} ${i}: ${"long question ".repeat(60)}`,
        answer: `${i}`,
      }));
    const ids: string[] = [];
    for (const tag of ["a", "b"]) {
      const up = await send("POST", "/v1/reasoning-quality/datasets", key, {
        name: tag,
        format: "json",
        items: rows(tag),
      });
      expect(up.status).toBe(201);
      ids.push(((await up.json()) as { id: string }).id);
    }
    expect(bytes(rows("a"))).toBeLessThan(LIMITS.runConfigBytes);
    expect(bytes([...rows("a"), ...rows("b")])).toBeGreaterThan(LIMITS.runConfigBytes);
    const body = await problem(
      await send("POST", "/v1/reasoning-quality/runs", key, {
        models: [{ model: "sim:r" }],
        datasets: ids.map((id) => ({ id })),
        K: 1,
        P: 0,
      }),
      400,
    );
    expect(body.errors?.map((e) => e.path)).toEqual(["datasets.1"]);
    expect(body.errors?.[0].message).toContain(`a run may carry at most ${LIMITS.runConfigBytes}`);
    const runs = (await (await send("GET", "/v1/runs", key)).json()) as { data: unknown[] };
    expect(runs.data).toEqual([]);
  });
});
