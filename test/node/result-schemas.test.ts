// Issue 15: the document types every result, so it must describe what the evaluators really return.
// Each built-in evaluator runs a small request on the simulator (its module's create, plan, execute and
// aggregate, as the platform calls them), and its wire result and sample outputs are validated with ajv
// against the served document's `<Evaluator>Result` and `<Evaluator>Output` schemas.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { openApiText } from "../../scripts/generate-sdk.ts";
import { BUILT_IN } from "../../src/evaluators/index.ts";
import { withConcurrencyBound } from "../../src/runs/plugin/run-fields.ts";
import { storedSample, type SampleCache, type StoredSample, type UnitContext } from "../../src/runs/plugin/types.ts";
import { modelClient } from "../../src/providers/index.ts";

const doc = JSON.parse(openApiText()) as object;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat("binary", true);
ajv.addSchema(doc, "openapi.json");
const schema = (name: string) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;

/** Small requests, simulator only (no key, no network). */
const REQUESTS: Record<string, Record<string, unknown>> = {
  "chain-determinism": { model: "sim:agent", n_queries: 2, n_replays: 3, min_success: 2, simulator: { divergence: 0.3 } },
  rpl: { claim: "Tariffs raise consumer prices.", model: "sim:rpl", K: 4, R: 2, B: 200 },
  judge: {
    items: [{ id: "a", query: "Is water wet?", expected: "KEEP" }, { id: "b", query: "Is fire cold?" }],
    critics: [{ name: "one", model: "sim:critic" }, { name: "two", model: "sim:critic", simulator: { noise: 0.5 } }],
  },
  "reasoning-quality": { models: [{ name: "m", model: "sim:reasoner" }], datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 1, num_robustness: 1 } }], K: 2, P: 1 },
};

function memoryCache(): SampleCache {
  const map = new Map<string, string>();
  return { get: async (k) => (map.has(k) ? JSON.parse(map.get(k)!) : null), put: async (k, v) => void map.set(k, JSON.stringify(v)) };
}

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, _d, c: string) => c.toUpperCase());
const DOC_NAMES: Record<string, string> = { "reasoning-quality": "ReasoningQuality" };
const wire = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

describe("each evaluator's result and samples match its schemas in the document", () => {
  it.each(BUILT_IN.map((m) => [m.name, m] as const))("%s", async (name, module) => {
    const body = module.schemas.request.parse(REQUESTS[name]);
    const creation = await module.create(withConcurrencyBound(body as never), { env: {} as Env, db: undefined as never, tenantId: "t", allowLoopback: false });
    const run = "group" in creation ? creation.group[0].run("grp_x") : creation;
    const config = run.config as never;
    const ctx: UnitContext<never> = {
      config,
      cache: memoryCache(),
      // As the lanes make the run's own model's client for a simulator.
      chat: (salt) => modelClient(config, undefined, salt, false),
      endpoint: () => {
        throw new Error("simulator only");
      },
      secret: () => undefined,
    };
    const samples: StoredSample[] = [];
    for (const id of module.plan(config)) {
      const o = await module.execute(id, ctx, new AbortController().signal);
      samples.push(storedSample(module as never, { unitId: id, status: o.status, output: JSON.stringify(o.output), error: o.error ?? null }));
    }
    const result = await module.aggregate(config, samples, undefined);
    const prefix = DOC_NAMES[name] ?? pascal(name);
    const checkResult = schema(`${prefix}Result`);
    const shown = "wireResult" in module && module.wireResult ? module.wireResult(result as never) : result;
    expect(checkResult(wire(shown)) ? [] : checkResult.errors).toEqual([]);
    const checkOutput = schema(`${prefix}Output`);
    for (const s of samples) expect(checkOutput(wire(s.output)) ? [] : checkOutput.errors, s.unitId).toEqual([]);
    const checkConfig = schema(`${prefix}Config`);
    expect(checkConfig(wire(run.publicConfig)) ? [] : checkConfig.errors).toEqual([]);
  }, 60_000);
});
