/**
 * The wire shapes of runs and samples. `Run` and `Sample` are unions discriminated by `evaluator`, one
 * variant per evaluator plug-in with that evaluator's config, result and sample-output schemas (each
 * plug-in's schemas, src/evaluators/<name>/schemas.ts), so a client generated from the document reads a
 * typed result once it has narrowed on `evaluator`. The variants are those of the plug-ins registered
 * when this module loads (the built-in ones, src/evaluators/index.ts); one registered later (a test's)
 * has its routes but no variant of its own.
 */
import { z } from "@hono/zod-openapi";
import { evaluators } from "../evaluators/registry.ts";
import { orNull } from "../runs/plugin/run-fields.ts";
import { sampleToWire, type RunRow, type SampleRow } from "../db/runs.ts";
import { runJson } from "../runs/results/wire.ts";
import { pageOf } from "./openapi.ts";

export const STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;

export const ModelCallsSchema = z
  .object({
    requests: z
      .number()
      .int()
      .openapi({ description: "HTTP requests sent to model endpoints, retries included (the simulator sends none)" }),
    retries: z.number().int().openapi({ description: "How many of those were retries" }),
    rate_limited: z.number().int().openapi({ description: "Answers that were 429 Too Many Requests" }),
  })
  .nullable()
  .openapi("ModelCalls", { description: "null for runs and samples stored before calls were counted" });

export const EndpointReportSchema = z
  .object({
    adaptive: z.boolean().openapi({
      description:
        "true when the request left `concurrency` out and the run adapted to the endpoint (up to the API's limit); false when `concurrency` bounded it",
    }),
    bucket_s: z
      .number()
      .int()
      .openapi({ description: "Seconds per point of `series`: 1, doubled each time the series would pass 240 points" }),
    series: z.array(z.tuple([z.number().int(), z.number().int(), z.number().int()])).openapi({
      description:
        "[seconds since the run's first model call, the shared window's limit, requests in flight on it], each the largest in its bucket; in flight counts every run sharing the endpoint's limiter",
    }),
    max_limit: z.number().int().openapi({ description: "The largest window the run saw" }),
    max_in_flight: z.number().int().openapi({
      description: "The most requests the endpoint's limiter had in flight at once while the run called it",
    }),
  })
  .openapi("EndpointReport", {
    description:
      "The run's model endpoint as the shared limiter saw it (one per tenant, base URL and key): the concurrency window over time. Requests, retries and 429s are in `calls`.",
  });

const RunBase = z.object({
  id: z.string(),
  object: z.literal("run"),
  status: z.enum(STATUSES),
  progress: z.object({ done: z.number().int(), failed: z.number().int(), total: z.number().int() }),
  calls: ModelCallsSchema,
  endpoint: orNull(EndpointReportSchema).openapi({
    description: "null for runs that called no model endpoint (the simulator), and before the first call's report",
  }),
  result_url: z.string().nullable().openapi({
    description:
      "Where the full result is served (`GET /v1/runs/{id}/result`), for every run that has one. A result larger than the row limit (see Limits) lives in object storage: `result` is then null and this is the only way to it",
    example: "/v1/runs/run_0mhx3k2q1abcdefghij/result",
  }),
  result_size_bytes: z.number().int().nullable().openapi({
    description: "UTF-8 bytes of the result's JSON; null without a result (or for runs stored before it was counted)",
  }),
  error: z.string().nullable(),
  webhook_url: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  links: z.record(z.string(), z.string()),
});

const SampleBase = z.object({
  seq: z.number().int(),
  unit_id: z.string(),
  status: z.enum(["succeeded", "failed"]),
  attempts: z
    .number()
    .int()
    .openapi({ description: "Times the unit was executed: 1 unless an execution threw or its lane went silent" }),
  calls: ModelCallsSchema,
  error: z.string().nullable(),
  created_at: z.string(),
});

type Schemas = { name: string; schemas: { config: z.ZodType; result: z.ZodType; output: z.ZodType } };

/** `chain-determinism` → `ChainDeterminism`: the prefix of an evaluator's component names. */
const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, _d, c: string) => c.toUpperCase());

function runVariant<M extends Schemas>(m: M) {
  return RunBase.extend({
    evaluator: z.literal(m.name as M["name"]),
    config: m.schemas.config as M["schemas"]["config"],
    result: orNull(m.schemas.result as M["schemas"]["result"]).openapi({
      description:
        "The evaluator's result once the run has ended; null before, and null when it is too large to inline (then read `result_url`)",
    }),
  }).openapi(`${pascal(m.name)}Run`);
}

function sampleVariant<M extends Schemas>(m: M) {
  return SampleBase.extend({
    evaluator: z.literal(m.name as M["name"]),
    output: orNull(m.schemas.output as M["schemas"]["output"]),
  }).openapi(`${pascal(m.name)}Sample`);
}

// The registry's list is not a tuple type; a union needs at least two members to be declared.
type Variants<V> = [V, V, ...V[]];
const plugins = evaluators.all();

export const RunSchema = z
  .discriminatedUnion("evaluator", plugins.map(runVariant) as Variants<ReturnType<typeof runVariant>>)
  .openapi("Run", { description: "A run of one evaluator: narrow on `evaluator` for its `config` and `result`" });

export const SampleSchema = z
  .discriminatedUnion("evaluator", plugins.map(sampleVariant) as Variants<ReturnType<typeof sampleVariant>>)
  .openapi("Sample", { description: "One unit's sample: narrow on `evaluator` for its `output`" });

export const RunPage = pageOf(RunSchema, "RunPage");
export const SamplePage = pageOf(SampleSchema, "SamplePage");

/** The body of `GET /v1/runs/{id}/result`: the result of the run's evaluator, as `Run.result` shows it. */
export const RunResultSchema = z
  .union(plugins.map((p) => p.schemas.result) as Variants<z.ZodType>)
  .openapi("RunResult", {
    description: "A run's full result: the `result` schema of its evaluator (narrow on the run's `evaluator`)",
  });

export const RunGroupSchema = z
  .object({ object: z.literal("run_group"), group_id: z.string(), runs: z.array(RunSchema) })
  .openapi("RunGroup", {
    description: "One run per part of a request that makes several (rpl: one per prompt version)",
  });

export type RunWire = z.infer<typeof RunSchema>;

/**
 * A run as the API shows it, typed as the document declares it. The one cast: D1 gives the stored
 * config and result back untyped, and they are what the run's own plug-in made (its `create` and its
 * `aggregate`, which returns the plug-in's result type), described by the same plug-in's schemas.
 */
export function runWire(r: RunRow): RunWire {
  return { ...runJson(r), endpoint: r.endpoint ?? null } as unknown as RunWire;
}

export type SampleWire = z.infer<typeof SampleSchema>;

/** A sample as the API shows it, with its run's evaluator (the discriminator); `parse` is that evaluator's output parser. */
export function sampleWire(evaluator: string, s: SampleRow, parse: (text: string) => unknown): SampleWire {
  // As for runWire: the output is what the evaluator's own execute stored, which its output schema describes.
  return { evaluator, ...sampleToWire(s, parse) } as unknown as SampleWire;
}
