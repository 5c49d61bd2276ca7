// Issue 15: the document types every result, so it must describe what the evaluators really return.
// Each built-in evaluator runs a small request on the simulator (its module's create, plan, execute and
// aggregate, as the platform calls them), and its wire result and sample outputs are validated with ajv
// against the served document's `<Evaluator>Result` and `<Evaluator>Output` schemas.
// Issue 24: so are the details of comparing two such runs, against `<Evaluator>ComparisonDetails`, with
// every object of the document closed: a field the comparer adds and its schema does not declare fails.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { openApiText } from "../../scripts/generate-sdk.ts";
import { BUILT_IN } from "../../src/evaluators/index.ts";
import { withConcurrencyBound } from "../../src/runs/plugin/run-fields.ts";
import type { Comparer } from "../../src/runs/plugin/compare.ts";
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
  "chain-determinism": {
    model: "sim:agent",
    n_queries: 2,
    n_replays: 3,
    min_success: 2,
    simulator: { divergence: 0.3 },
  },
  rpl: { claim: "Tariffs raise consumer prices.", model: "sim:rpl", K: 4, R: 2, B: 200 },
  judge: {
    items: [
      { id: "a", query: "Is water wet?", expected: "KEEP" },
      { id: "b", query: "Is fire cold?" },
    ],
    critics: [
      { name: "one", model: "sim:critic" },
      { name: "two", model: "sim:critic", simulator: { noise: 0.5 } },
    ],
  },
  "reasoning-quality": {
    models: [{ name: "m", model: "sim:reasoner" }],
    datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 1, num_robustness: 1 } }],
    K: 2,
    P: 1,
  },
};

function memoryCache(): SampleCache {
  const map = new Map<string, string>();
  return {
    get: async (k) => (map.has(k) ? JSON.parse(map.get(k)!) : null),
    put: async (k, v) => void map.set(k, JSON.stringify(v)),
  };
}

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, _d, c: string) => c.toUpperCase());
const DOC_NAMES: Record<string, string> = { "reasoning-quality": "ReasoningQuality" };
const wire = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** A small run of the evaluator on the simulator, as the platform makes and aggregates it. */
async function simRun(module: (typeof BUILT_IN)[number], request: Record<string, unknown>) {
  const body = module.schemas.request.parse(request);
  const creation = await module.create(withConcurrencyBound(body as never), {
    env: {} as Env,
    db: undefined as never,
    tenantId: "t",
    allowLoopback: false,
  });
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
    samples.push(
      storedSample(module as never, {
        unitId: id,
        status: o.status,
        output: JSON.stringify(o.output),
        error: o.error ?? null,
      }),
    );
  }
  const result = await module.aggregate(config, samples, undefined);
  return { run, config, samples, result };
}

describe("each evaluator's result and samples match its schemas in the document", () => {
  it.each(BUILT_IN.map((m) => [m.name, m] as const))(
    "%s",
    async (name, module) => {
      const { run, samples, result } = await simRun(module, REQUESTS[name]);
      const prefix = DOC_NAMES[name] ?? pascal(name);
      const checkResult = schema(`${prefix}Result`);
      const shown = "wireResult" in module && module.wireResult ? module.wireResult(result as never) : result;
      expect(checkResult(wire(shown)) ? [] : checkResult.errors).toEqual([]);
      const checkOutput = schema(`${prefix}Output`);
      for (const s of samples) expect(checkOutput(wire(s.output)) ? [] : checkOutput.errors, s.unitId).toEqual([]);
      const checkConfig = schema(`${prefix}Config`);
      expect(checkConfig(wire(run.publicConfig)) ? [] : checkConfig.errors).toEqual([]);
    },
    60_000,
  );
});

/** The document with every object closed: `additionalProperties: false` wherever it lists properties and says nothing else. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== "object") return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === "example" || k === "examples" ? v : closed(v)]),
  );
  if (out.type === "object" && out.properties && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

const strict = new Ajv2020({ strict: false, allErrors: true });
addFormats(strict);
strict.addFormat("binary", true);
strict.addSchema(closed(doc) as object, "openapi.json");
const strictSchema = (name: string) => strict.getSchema(`openapi.json#/components/schemas/${name}`)!;

/**
 * Pairs of comparable runs whose comparisons take each path of their comparer: `head` is laid over the
 * head's request, `both` over both requests, and `config` over both runs' public configs as the
 * comparison reads them (a reasoning-quality run of an uploaded dataset, deleted since, is compared unpaired).
 */
type Pair = {
  label: string;
  head?: Record<string, unknown>;
  both?: Record<string, unknown>;
  config?: Record<string, unknown>;
  datasetExists?: boolean;
};
const PAIRS: Record<string, Pair[]> = {
  "chain-determinism": [
    { label: "paired by query", head: { simulator: { divergence: 0.9 } } },
    { label: "other queries, unpaired", head: { n_queries: 3 } },
  ],
  rpl: [{ label: "another model", head: { model: "sim:other" } }],
  judge: [
    {
      label: "a biased critic",
      head: {
        critics: [
          { name: "one", model: "sim:critic" },
          { name: "two", model: "sim:critic", simulator: { bias: { label: "REJECT", rate: 1 } } },
        ],
      },
    },
    // No item with a known label: accuracy has nothing to count (null).
    {
      label: "no expected labels",
      both: {
        items: [
          { id: "a", query: "Is water wet?" },
          { id: "b", query: "Is fire cold?" },
        ],
      },
    },
  ],
  "reasoning-quality": [
    {
      label: "paired by item",
      head: {
        models: [
          { name: "m", model: "sim:reasoner", simulator: { accuracy: 0.2 } },
          { name: "n", model: "sim:reasoner" },
        ],
      },
    },
    { label: "a deleted dataset, unpaired", config: { datasets: [{ id: "ds_deleted" }] }, datasetExists: false },
  ],
};

describe("each evaluator's comparison details match its schema in the document, with no undeclared field", () => {
  const cases = BUILT_IN.flatMap((m) => PAIRS[m.name].map((p) => [m.name, p.label, m, p] as const));
  it.each(cases)(
    "%s: %s",
    async (name, _label, module, pair) => {
      const comparer = module.comparer as Comparer<never, never, unknown, unknown>;
      const requests = [
        { ...REQUESTS[name], ...pair.both },
        { ...REQUESTS[name], ...pair.both, ...pair.head },
      ];
      const runs = await Promise.all(requests.map((r) => simRun(module, r)));
      const [base, head] = await Promise.all(
        runs.map(async (r, i) => ({
          id: `run_${i}`,
          config: { ...r.run.publicConfig, ...pair.config } as never,
          basis: await comparer.basis({ config: r.config, result: r.result as never, samples: r.samples }),
        })),
      );
      expect(comparer.incomparable(base, head)).toEqual([]);
      const c = await comparer.compare(base, head, {
        confidence: 0.95,
        minEffect: 0,
        datasetExists: async () => pair.datasetExists ?? true,
      });
      const check = strictSchema(`${DOC_NAMES[name] ?? pascal(name)}ComparisonDetails`);
      expect(check(wire(c.details)) ? [] : check.errors).toEqual([]);
      const metric = strictSchema("MetricComparison");
      for (const m of c.metrics) expect(metric(wire(m)) ? [] : metric.errors, m.name).toEqual([]);
      // The check can fail: one field more than the schema declares.
      expect(check(wire({ ...(c.details as object), undeclared: 1 }))).toBe(false);
    },
    60_000,
  );
});
