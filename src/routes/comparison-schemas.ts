/**
 * The wire shape of a comparison (GET /v1/compare). `Comparison` is a union discriminated by `evaluator`,
 * one variant per evaluator plug-in with a comparer, whose `details` is that comparer's own schema
 * (`Comparer.details`, declared in src/evaluators/<name>/schemas.ts), read from the registry as `Run` and
 * `Sample` are in run-schemas.ts: a client generated from the document reads typed details once it has narrowed.
 */
import { z } from "@hono/zod-openapi";
import { evaluators } from "../evaluators/registry.ts";
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
    .object({
      object,
      evaluator: z.literal(m.name as M["name"]),
      ...rest,
      details: m.comparer.details as M["comparer"]["details"],
    })
    .openapi(`${pascal(m.name)}RunsComparison`);
}

// The registry's list is not a tuple type; a union needs at least two members to be declared.
type Variants<V> = [V, V, ...V[]];
const comparable = evaluators.all().filter((p): p is typeof p & WithComparer => p.comparer !== undefined);

export const ComparisonSchema = z
  .discriminatedUnion("evaluator", comparable.map(comparisonVariant) as Variants<ReturnType<typeof comparisonVariant>>)
  .openapi("Comparison", {
    description: "Two runs of one evaluator compared: narrow on `evaluator` for its `details`",
  });

export type ComparisonWire = z.infer<typeof ComparisonSchema>;
