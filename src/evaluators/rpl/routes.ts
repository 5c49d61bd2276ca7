import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../routes/router.ts";
import { jsonResponse, problems, tenantSecurity } from "../../routes/openapi.ts";
import { heavyRead } from "../../middleware/heavy-read.ts";
import { ApiError } from "../../errors.ts";
import { compareRuns, ParityError, type ComparedRun } from "../../engines/rpl/index.ts";
import { getRun } from "../../db/runs.ts";
import { aggregate } from "./aggregate.ts";
import { NAME } from "./schemas.ts";
import { resultOf } from "../../runs/results/result.ts";

// The plug-in (index.ts) mounts these routes, so they name its runs by its name rather than import it.
const rpl = { name: NAME, aggregate };
const EVALUATOR = rpl.name;

const CompareQuery = z.object({
  runs: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string()).min(2).max(10))
    .openapi({
      param: { name: "runs", in: "query" },
      description: "2–10 run ids, comma-separated",
      example: "run_a,run_b",
    }),
});

const ComparisonSchema = z
  .object({
    dimension: z.enum(["model", "prompt_version"]).nullable(),
    parity: z.record(z.string(), z.unknown()),
    runs: z.array(z.record(z.string(), z.unknown())),
    winner: z.object({ run_id: z.string().nullable(), rule: z.enum(["ci_width", "pqs", "stability", "tie"]) }),
  })
  .openapi("RplComparison");

/** rpl's routes besides `POST /runs` (src/routes/evaluator-runs.ts), at /v1/rpl: the comparison of runs. */
export const rplRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/compare",
    operationId: "compareRplRuns",
    tags: ["rpl"],
    summary: "Compare p, CI width, stability and PQS across runs that differ in one dimension",
    description:
      "The runs must be succeeded rpl runs of this tenant that agree on claim, K, R, T, B and max_output_tokens, and differ in at most one of model or prompt_version; otherwise 422 naming the settings that differ. The winner: the narrowest CI if narrower by ≥ 0.003, else the highest PQS, then the highest stability, else a tie.",
    security: tenantSecurity,
    middleware: heavyRead,
    request: { query: CompareQuery },
    responses: { 200: jsonResponse(ComparisonSchema, "The comparison"), ...problems(400, 401, 422, 429) },
  }),
  async (c) => {
    const ids = c.req.valid("query").runs;
    const found = await Promise.all(ids.map((id) => getRun(c.var.db, c.var.tenantId, id)));
    const problemsFound = found.flatMap((r, i) =>
      !r
        ? [{ path: `runs.${i}`, message: `no run '${ids[i]}' for this tenant` }]
        : r.evaluator !== EVALUATOR
          ? [{ path: `runs.${i}`, message: `'${ids[i]}' is a ${r.evaluator} run` }]
          : r.status !== "succeeded"
            ? [{ path: `runs.${i}`, message: `'${ids[i]}' has not succeeded (${r.status})` }]
            : [],
    );
    if (problemsFound.length) throw ApiError.validation(problemsFound);
    const compared: ComparedRun[] = await Promise.all(
      found.map(async (r) => {
        // Checked above: a succeeded rpl run, so it has rpl's result.
        const result = (await resultOf(c.env.RESULTS, rpl, r!))!;
        return {
          run_id: r!.id,
          config: r!.config as ComparedRun["config"],
          prob_true_rpl: result.aggregates.prob_true_rpl,
          ci95: result.aggregates.ci95,
          ci_width: result.aggregates.ci_width,
          stability_score: result.aggregates.stability_score,
          pqs: result.quality.pqs,
        };
      }),
    );
    try {
      return c.json(compareRuns(compared), 200);
    } catch (err) {
      if (err instanceof ParityError) {
        throw new ApiError({
          status: 422,
          type: "validation",
          detail: err.message,
          errors: err.fields.map((f) => ({ path: f, message: "differs between the runs" })),
        });
      }
      throw err;
    }
  },
);
