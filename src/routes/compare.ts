// GET /v1/compare: did this change make things better or worse? Two succeeded runs of one evaluator,
// compared metric by metric with intervals and a verdict by the evaluator's comparer
// (src/evaluators/<name>/compare.ts, the contract in src/runs/plugin/compare.ts). The comparer reads each
// run's basis, kept when it was aggregated, never its samples; an answer is computed once per (base,
// head, confidence, min_effect) and kept (src/runs/results/comparison-store.ts). docs/compare.md has the figures.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { heavyRead } from "../middleware/heavy-read.ts";
import { ApiError, type FieldError } from "../errors.ts";
import { getRun, type RunRow } from "../db/runs.ts";
import { getDataset } from "../db/datasets.ts";
import { loadResult } from "../runs/results/result-store.ts";
import { dropKeptFor, loadAnswer, loadBasis, storeAnswer, storeBasis } from "../runs/results/comparison-store.ts";
import { evaluators } from "../evaluators/registry.ts";
import { overallVerdict, type Comparer, type ComparedRun, type CompareOptions } from "../runs/plugin/compare.ts";
import { ComparisonSchema, type ComparisonWire } from "./comparison-schemas.ts";

const CompareQuery = z.object({
  base: z
    .string()
    .min(1)
    .openapi({
      param: { name: "base", in: "query" },
      description: "The run compared against (before the change)",
      example: "run_a",
    }),
  head: z
    .string()
    .min(1)
    .openapi({ param: { name: "head", in: "query" }, description: "The run with the change", example: "run_b" }),
  confidence: z.coerce
    .number()
    .gt(0.5)
    .lt(1)
    .default(0.95)
    .openapi({
      param: { name: "confidence", in: "query" },
      description: "Confidence of every interval (default 0.95)",
    }),
  min_effect: z.coerce
    .number()
    .min(0)
    .default(0)
    .openapi({
      param: { name: "min_effect", in: "query" },
      description:
        "A noise floor: a change smaller than this (in the metric's own units) is no_change whatever its interval (default 0)",
    }),
});

/**
 * A run's basis: the one kept when it was aggregated, or, for a run aggregated before bases were kept,
 * one built now from its result where the comparer can (and kept, so this happens once). A comparer
 * that needs the samples for it (reasoning-quality) cannot: that run is a 409 saying so.
 */
async function basisOf(bucket: R2Bucket, comparer: Comparer, run: RunRow): Promise<unknown> {
  const kept = await loadBasis(bucket, run.id);
  if (kept !== null) return kept;
  const basis = await comparer.basis({ config: run.config, result: await loadResult(bucket, run) });
  if (basis === null) {
    throw new ApiError({
      status: 409,
      type: "conflict",
      detail: `Run '${run.id}' was aggregated before per-item scores were kept for comparisons, and a ${run.evaluator} run's cannot be rebuilt without reading all its samples; run it again to compare it.`,
    });
  }
  await storeBasis(bucket, run.id, basis);
  return basis;
}

function incomparable(errors: FieldError[]): ApiError {
  return new ApiError({
    status: 422,
    type: "validation",
    detail: `The runs cannot be compared: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}.`,
    errors,
  });
}

export const compare = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "compareRuns",
    tags: ["compare"],
    summary:
      "Compare two runs: each metric's change with its interval and a verdict, the overall verdict, the items that flipped",
    description:
      "Both runs must be succeeded runs of this tenant, of one evaluator, with comparable settings; otherwise 422 naming what differs. " +
      "Items are paired where both runs measured the same ones. A metric is `improved` or `regressed` when its interval excludes 0 and " +
      "the change is at least `min_effect`; the overall verdict is `regressed` if any metric regressed, else `improved` if any improved. " +
      "A comparison reads the per-item scores each run kept when it finished, never its samples, and its answer for the same " +
      "(base, head, confidence, min_effect) is computed once and kept. A reasoning-quality run that finished before per-item scores were kept is a 409.",
    security: tenantSecurity,
    middleware: heavyRead,
    request: { query: CompareQuery },
    responses: { 200: jsonResponse(ComparisonSchema, "The comparison"), ...problems(400, 401, 404, 409, 422, 429) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const [base, head] = await Promise.all([
      getRun(c.var.db, c.var.tenantId, q.base),
      getRun(c.var.db, c.var.tenantId, q.head),
    ]);
    if (!base)
      throw new ApiError({ status: 404, type: "not-found", detail: `No run '${q.base}' (base) for this tenant.` });
    if (!head)
      throw new ApiError({ status: 404, type: "not-found", detail: `No run '${q.head}' (head) for this tenant.` });
    const errors: FieldError[] = [];
    for (const [side, run] of [
      ["base", base],
      ["head", head],
    ] as const) {
      if (run.status !== "succeeded")
        errors.push({ path: `${side}.status`, message: `'${run.id}' has not succeeded (${run.status})` });
    }
    if (base.evaluator !== head.evaluator)
      errors.push({ path: "evaluator", message: `base is a ${base.evaluator} run, head a ${head.evaluator} run` });
    const comparer = errors.length ? undefined : evaluators.get(base.evaluator).comparer;
    if (!errors.length && !comparer)
      errors.push({ path: "evaluator", message: `${base.evaluator} runs cannot be compared` });
    if (!comparer || errors.length) throw incomparable(errors);
    const bucket = c.env.RESULTS;
    const key = { base: base.id, head: head.id, confidence: q.confidence, minEffect: q.min_effect };
    const options: CompareOptions = {
      confidence: q.confidence,
      minEffect: q.min_effect,
      datasetExists: async (id) => (await getDataset(c.var.db, c.var.tenantId, id)) !== undefined,
    };
    const cacheable = (await comparer.cacheable?.(base, head, options)) ?? true;
    // Both runs are final: an answer kept once is the answer (the runs were found for this tenant above).
    const kept = cacheable ? await loadAnswer(bucket, key) : null;
    // The kept text is the JSON this route answered (`never`: the typed responses describe the parsed shape).
    if (kept !== null) return c.body(kept, 200, { "Content-Type": "application/json" }) as never;

    const [b, h] = await Promise.all(
      [base, head].map(
        async (run): Promise<ComparedRun> => ({
          id: run.id,
          config: run.config,
          basis: await basisOf(bucket, comparer, run),
        }),
      ),
    );
    errors.push(...comparer.incomparable(b, h));
    if (errors.length) throw incomparable(errors);
    const result = await comparer.compare(b, h, options);
    // The one cast: `details` is what the comparer of the runs' evaluator made, which its details schema describes.
    const answer = {
      object: "comparison" as const,
      evaluator: base.evaluator,
      base: { id: base.id },
      head: { id: head.id },
      confidence: q.confidence,
      min_effect: q.min_effect,
      paired: result.paired,
      verdict: overallVerdict(result.metrics),
      metrics: result.metrics,
      flipped: result.flipped,
      details: result.details,
    } as ComparisonWire;
    if (cacheable) await storeAnswer(bucket, key, JSON.stringify(answer));
    // A run deleted meanwhile: what this request kept under its prefix would outlive it.
    const now = await Promise.all([base, head].map((run) => getRun(c.var.db, c.var.tenantId, run.id)));
    await dropKeptFor(
      bucket,
      key,
      [base, head].filter((_, i) => !now[i]).map((run) => run.id),
    );
    return c.json(answer, 200);
  },
);
