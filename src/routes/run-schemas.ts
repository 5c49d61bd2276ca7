/**
 * The wire shapes of runs and samples. `Run` and `Sample` are unions discriminated by `evaluator`, one
 * variant per built-in evaluator with that evaluator's config, result and sample-output schemas (each
 * module's schemas, src/evaluators/<name>/schemas.ts), so a client generated from the document reads a
 * typed result once it has narrowed on `evaluator`.
 */
import { z } from "@hono/zod-openapi";
import { BUILT_IN } from "../evaluators/registry.ts";
import { orNull } from "../evaluators/run-fields.ts";
import { sampleToWire, type RunRow, type SampleRow } from "../db/runs.ts";
import { runJson } from "../runs/wire.ts";
import { pageOf } from "./openapi.ts";

export const STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;

export const ModelCallsSchema = z
  .object({
    requests: z.number().int().openapi({ description: "HTTP requests sent to model endpoints, retries included (the simulator sends none)" }),
    retries: z.number().int().openapi({ description: "How many of those were retries" }),
    rate_limited: z.number().int().openapi({ description: "Answers that were 429 Too Many Requests" }),
  })
  .nullable()
  .openapi("ModelCalls", { description: "null for runs and samples stored before calls were counted" });

const RunBase = z.object({
  id: z.string(),
  object: z.literal("run"),
  status: z.enum(STATUSES),
  progress: z.object({ done: z.number().int(), failed: z.number().int(), total: z.number().int() }),
  calls: ModelCallsSchema,
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
  attempts: z.number().int().openapi({ description: "Times the unit was executed: 1 unless an execution threw or its lane went silent" }),
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
    result: orNull(m.schemas.result as M["schemas"]["result"]).openapi({ description: "The evaluator's result once the run has ended; null before" }),
  }).openapi(`${pascal(m.name)}Run`);
}

function sampleVariant<M extends Schemas>(m: M) {
  return SampleBase.extend({
    evaluator: z.literal(m.name as M["name"]),
    output: orNull(m.schemas.output as M["schemas"]["output"]),
  }).openapi(`${pascal(m.name)}Sample`);
}

// One variant per built-in module, typed per module: map() cannot say that a tuple maps to a tuple.
type RunVariants<T extends readonly Schemas[]> = { -readonly [K in keyof T]: T[K] extends Schemas ? ReturnType<typeof runVariant<T[K]>> : never };
type SampleVariants<T extends readonly Schemas[]> = { -readonly [K in keyof T]: T[K] extends Schemas ? ReturnType<typeof sampleVariant<T[K]>> : never };

export const RunSchema = z
  .discriminatedUnion("evaluator", BUILT_IN.map(runVariant) as unknown as RunVariants<typeof BUILT_IN>)
  .openapi("Run", { description: "A run of one evaluator: narrow on `evaluator` for its `config` and `result`" });

export const SampleSchema = z
  .discriminatedUnion("evaluator", BUILT_IN.map(sampleVariant) as unknown as SampleVariants<typeof BUILT_IN>)
  .openapi("Sample", { description: "One unit's sample: narrow on `evaluator` for its `output`" });

export const RunPage = pageOf(RunSchema, "RunPage");
export const SamplePage = pageOf(SampleSchema, "SamplePage");

export const RunGroupSchema = z
  .object({ object: z.literal("run_group"), group_id: z.string(), runs: z.array(RunSchema) })
  .openapi("RunGroup", { description: "One run per part of a request that makes several (rpl: one per prompt version)" });

export type RunWire = z.infer<typeof RunSchema>;

/**
 * A run as the API shows it, typed as the document declares it. The one cast: D1 gives the stored
 * config and result back untyped, and they are what the run's own module made (its `create` and its
 * `aggregate`, which returns the module's result type), described by the same module's schemas.
 */
export function runWire(r: RunRow): RunWire {
  return runJson(r) as unknown as RunWire;
}

export type SampleWire = z.infer<typeof SampleSchema>;

/** A sample as the API shows it, with its run's evaluator (the discriminator); `parse` is that evaluator's output parser. */
export function sampleWire(evaluator: string, s: SampleRow, parse: (text: string) => unknown): SampleWire {
  // As for runWire: the output is what the evaluator's own execute stored, which its output schema describes.
  return { evaluator, ...sampleToWire(s, parse) } as unknown as SampleWire;
}
