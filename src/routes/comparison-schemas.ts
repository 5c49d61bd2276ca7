/**
 * The wire shape of a comparison (GET /v1/compare). `Comparison` is a union discriminated by `evaluator`,
 * one variant per built-in evaluator with a comparer, whose `details` is that comparer's own schema
 * (`Comparer.details`, declared in src/evaluators/<name>/schemas.ts), as `Run` and `Sample` are built in
 * run-schemas.ts: a client generated from the document reads typed details once it has narrowed.
 */
import { z } from "@hono/zod-openapi";
import { BUILT_IN } from "../evaluators/registry.ts";
import { FlippedItemSchema, MetricComparisonSchema, VerdictSchema } from "../runs/plugin/compare.ts";

const ComparisonBase = z.object({
  object: z.literal("comparison"),
  base: z.object({ id: z.string() }),
  head: z.object({ id: z.string() }),
  confidence: z.number(),
  min_effect: z.number(),
  paired: z.boolean(),
  verdict: VerdictSchema,
  metrics: z.array(MetricComparisonSchema),
  flipped: z.array(FlippedItemSchema),
});

type WithComparer = { name: string; comparer: { details: z.ZodType } };

/** `chain-determinism` → `ChainDeterminism`: the prefix of an evaluator's component names. */
const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, _d, c: string) => c.toUpperCase());

// `<Name>RunsComparison`, not `<Name>Comparison`: `RplComparison` already names GET /v1/rpl/compare's answer.
function comparisonVariant<M extends WithComparer>(m: M) {
  // The key order of the answer (src/routes/compare.ts): evaluator second, details last.
  const { object, ...rest } = ComparisonBase.shape;
  return z
    .object({ object, evaluator: z.literal(m.name as M["name"]), ...rest, details: m.comparer.details as M["comparer"]["details"] })
    .openapi(`${pascal(m.name)}RunsComparison`);
}

// One variant per built-in module with a comparer, typed per module: filter() and map() cannot say what a tuple becomes.
type Variants<T extends readonly unknown[]> = T extends readonly [infer M, ...infer Rest]
  ? M extends WithComparer
    ? [ReturnType<typeof comparisonVariant<M>>, ...Variants<Rest>]
    : Variants<Rest>
  : [];

const comparable = BUILT_IN.filter((m): m is Extract<(typeof BUILT_IN)[number], WithComparer> => "comparer" in m && m.comparer !== undefined);

export const ComparisonSchema = z
  .discriminatedUnion("evaluator", comparable.map(comparisonVariant) as unknown as Variants<typeof BUILT_IN>)
  .openapi("Comparison", { description: "Two runs of one evaluator compared: narrow on `evaluator` for its `details`" });

export type ComparisonWire = z.infer<typeof ComparisonSchema>;
