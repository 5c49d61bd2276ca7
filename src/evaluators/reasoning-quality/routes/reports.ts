import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../routes/router.ts";
import { IdParam, problems, tenantSecurity } from "../../../routes/openapi.ts";
import { heavyRead } from "../../../middleware/heavy-read.ts";
import { ApiError } from "../../../errors.ts";
import { getRun, type RunRow } from "../../../db/runs.ts";
import type { Db } from "../../../db/client.ts";
import { radarSvg, reportCsv, reportXlsx, type RqReport } from "../../../reports/reasoning-quality/index.ts";
import { aggregateRq } from "../aggregate.ts";
import { NAME } from "../schemas.ts";
import { resultOf } from "../../../runs/results/result.ts";

// The plug-in (index.ts) mounts these routes, so they name its runs by its name rather than import it.
const reasoningQuality = { name: NAME, aggregate: aggregateRq };

const RunParam = IdParam("run_id", "run_0mhx3k2q1abcdefghij");

/** The report input of an ended reasoning-quality run; 404 for another evaluator's run, 409 before it ends. */
async function reportOf(bucket: R2Bucket, db: Db, tenantId: string, runId: string): Promise<RqReport> {
  const run: RunRow | undefined = await getRun(db, tenantId, runId);
  if (!run || run.evaluator !== reasoningQuality.name) throw ApiError.notFound("The reasoning-quality run");
  const result = await resultOf(bucket, reasoningQuality, run);
  if (!result)
    throw new ApiError({
      status: 409,
      type: "conflict",
      detail: `Run '${runId}' is ${run.status}; its report exists once it has ended.`,
    });
  const duration = run.startedAt && run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : null;
  return { run_id: run.id, created_at: run.createdAt.toISOString(), duration_seconds: duration, models: result.models };
}

// A binary body (the workbook) is declared as such, so a client or a validating proxy never reads it as text.
const body = (binary: boolean) => (binary ? z.string().openapi({ format: "binary" }) : z.string());

const report = (path: string, operationId: string, summary: string, type: string, binary = false) =>
  createRoute({
    method: "get",
    path,
    operationId,
    tags: ["reasoning-quality"],
    summary,
    security: tenantSecurity,
    middleware: heavyRead,
    request: { params: RunParam },
    responses: {
      200: { description: summary, content: { [type]: { schema: body(binary) } } },
      ...problems(401, 404, 409, 429),
    },
  });

/** reasoning-quality's routes at /v1/runs: the reports of one of its runs (`/v1/runs/{run_id}/report.csv` …). */
export const reportRoutes = createRouter()
  .openapi(
    report(
      "/{run_id}/report.csv",
      "getReasoningQualityReportCsv",
      "One row per model × strategy: Q, rank and the six raw metrics",
      "text/csv",
    ),
    async (c) => {
      const r = await reportOf(c.env.RESULTS, c.var.db, c.var.tenantId, c.req.valid("param").run_id);
      return c.body(reportCsv(r), 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${r.run_id}.csv"`,
      });
    },
  )
  .openapi(
    report(
      "/{run_id}/report.xlsx",
      "getReasoningQualityReportXlsx",
      "The original's workbook: raw metrics, aggregated scores, per-dataset breakdown, metadata",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      true,
    ),
    async (c) => {
      const r = await reportOf(c.env.RESULTS, c.var.db, c.var.tenantId, c.req.valid("param").run_id);
      const bytes = await reportXlsx(r);
      return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
        "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "Content-Disposition": `attachment; filename="${r.run_id}.xlsx"`,
      });
    },
  )
  .openapi(
    report(
      "/{run_id}/radar.svg",
      "getReasoningQualityRadar",
      "One polygon per model over the six dimensions",
      "image/svg+xml",
    ),
    async (c) => {
      const r = await reportOf(c.env.RESULTS, c.var.db, c.var.tenantId, c.req.valid("param").run_id);
      return c.body(radarSvg(r), 200, { "Content-Type": "image/svg+xml; charset=utf-8" });
    },
  );
