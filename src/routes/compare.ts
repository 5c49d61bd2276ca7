// GET /v1/compare: did this change make things better or worse? Two succeeded runs of one evaluator,
// compared metric by metric with intervals and a verdict by the evaluator's comparer
// (src/evaluators/<name>/compare.ts, the contract in src/evaluators/compare.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { ApiError, type FieldError } from "../errors.ts";
import { getRun, listSamples, type RunRow } from "../db/runs.ts";
import { datasetItems as datasetItemsOf, getDataset } from "../db/datasets.ts";
import { loadResult } from "../runs/result-store.ts";
import type { Db } from "../db/client.ts";
import { evaluatorFor, moduleFor } from "../evaluators/registry.ts";
import { overallVerdict, type ComparedRun } from "../evaluators/compare.ts";
import { storedSample, type StoredSample } from "../evaluators/types.ts";

const CompareQuery = z.object({
  base: z.string().min(1).openapi({ param: { name: "base", in: "query" }, description: "The run compared against (before the change)", example: "run_a" }),
  head: z.string().min(1).openapi({ param: { name: "head", in: "query" }, description: "The run with the change", example: "run_b" }),
  confidence: z.coerce.number().gt(0.5).lt(1).default(0.95).openapi({ param: { name: "confidence", in: "query" }, description: "Confidence of every interval (default 0.95)" }),
  min_effect: z.coerce.number().min(0).default(0).openapi({
    param: { name: "min_effect", in: "query" },
    description: "A noise floor: a change smaller than this (in the metric's own units) is no_change whatever its interval (default 0)",
  }),
});

const VerdictSchema = z.enum(["improved", "regressed", "no_change"]);

const MetricComparisonSchema = z
  .object({
    name: z.string(),
    base: z.number().nullable(),
    head: z.number().nullable(),
    delta: z.number().nullable().openapi({ description: "head − base" }),
    ci95: z.tuple([z.number(), z.number()]).nullable().openapi({ description: "The interval of delta at the requested confidence; null where the metric has none" }),
    p_value: z.number().nullable(),
    higher_is_better: z.boolean().nullable().openapi({ description: "null: the change has no better direction (reported, never judged)" }),
    method: z.string(),
    verdict: VerdictSchema,
  })
  .openapi("MetricComparison");

export const ComparisonSchema = z
  .object({
    object: z.literal("comparison"),
    evaluator: z.string(),
    base: z.object({ id: z.string() }),
    head: z.object({ id: z.string() }),
    confidence: z.number(),
    min_effect: z.number(),
    paired: z.boolean(),
    verdict: VerdictSchema,
    metrics: z.array(MetricComparisonSchema),
    flipped: z.array(z.object({ id: z.string(), base: z.string(), head: z.string() })),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi("Comparison");

async function allSamples(db: Db, run: RunRow): Promise<StoredSample[]> {
  const evaluator = evaluatorFor(run.evaluator);
  const out: StoredSample[] = [];
  for (let after: number | undefined; ; ) {
    const page = await listSamples(db, run.id, { limit: 500, afterSeq: after });
    out.push(...page.map((row) => storedSample(evaluator, row)));
    if (page.length < 500) return out;
    after = page[page.length - 1].seq;
  }
}

export const compare = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "compareRuns",
    tags: ["compare"],
    summary: "Compare two runs: each metric's change with its interval and a verdict, the overall verdict, the items that flipped",
    description:
      "Both runs must be succeeded runs of this tenant, of one evaluator, with comparable settings; otherwise 422 naming what differs. " +
      "Items are paired where both runs measured the same ones. A metric is `improved` or `regressed` when its interval excludes 0 and " +
      "the change is at least `min_effect`; the overall verdict is `regressed` if any metric regressed, else `improved` if any improved.",
    security: tenantSecurity,
    request: { query: CompareQuery },
    responses: { 200: jsonResponse(ComparisonSchema, "The comparison"), ...problems(400, 401, 404, 422) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const [base, head] = await Promise.all([getRun(c.var.db, c.var.tenantId, q.base), getRun(c.var.db, c.var.tenantId, q.head)]);
    if (!base) throw new ApiError({ status: 404, type: "not-found", detail: `No run '${q.base}' (base) for this tenant.` });
    if (!head) throw new ApiError({ status: 404, type: "not-found", detail: `No run '${q.head}' (head) for this tenant.` });
    const errors: FieldError[] = [];
    for (const [side, run] of [["base", base], ["head", head]] as const) {
      if (run.status !== "succeeded") errors.push({ path: `${side}.status`, message: `'${run.id}' has not succeeded (${run.status})` });
    }
    if (base.evaluator !== head.evaluator) errors.push({ path: "evaluator", message: `base is a ${base.evaluator} run, head a ${head.evaluator} run` });
    const module = moduleFor(base.evaluator);
    if (!errors.length && !module.comparer) errors.push({ path: "evaluator", message: `${base.evaluator} runs cannot be compared` });
    // A result in R2 is read only for runs that can be compared at all.
    const results = errors.length ? [null, null] : await Promise.all([base, head].map((run) => loadResult(c.env.RESULTS, run)));
    const runs = new Map<RunRow, ComparedRun>(
      [base, head].map((run, i) => [run, { id: run.id, config: run.config, result: results[i], samples: () => allSamples(c.var.db, run) }]),
    );
    const compared = (run: RunRow): ComparedRun => runs.get(run)!;
    if (!errors.length) errors.push(...module.comparer!.incomparable(compared(base), compared(head)));
    if (errors.length) {
      throw new ApiError({ status: 422, type: "validation", detail: `The runs cannot be compared: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}.`, errors });
    }
    const datasetItems = async (id: string) => {
      const row = await getDataset(c.var.db, c.var.tenantId, id);
      return row ? datasetItemsOf<unknown>(c.var.db, row.id) : null;
    };
    const result = await module.comparer!.compare(compared(base), compared(head), { confidence: q.confidence, minEffect: q.min_effect, datasetItems });
    return c.json(
      {
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
      },
      200,
    );
  },
);
