import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../routes/router.ts";
import {
  IdParam,
  jsonBody,
  jsonResponse,
  pageOf,
  PageQuery,
  problems,
  bodyProblems,
  tenantSecurity,
} from "../../../routes/openapi.ts";
import { jsonBody as guardJson } from "../../../middleware/json-body.ts";
import { LIMITS } from "../../../limits.ts";
import { ApiError } from "../../../errors.ts";
import { newId } from "../../../ids.ts";
import { sha256Hex } from "../../../crypto.ts";
import {
  datasetItems,
  datasetToWire,
  deleteDataset,
  getDataset,
  insertDataset,
  listDatasets,
} from "../../../db/datasets.ts";
import {
  isDatasetFieldError,
  loadGsm8k,
  loadMmlu,
  loadStrategyQa,
  parseCsvDataset,
  parseCustomJson,
  type DatasetItem,
} from "../../../engines/reasoning-quality/index.ts";

const FORMATS = ["json", "csv", "gsm8k", "mmlu", "strategyqa"] as const;

const UploadRequest = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(100)
      .openapi({ description: "Also the `dataset` tag of items that carry none (for the per-dataset breakdown)" }),
    format: z.enum(FORMATS).openapi({
      description:
        "`json`: `items` as [{id?, question, answer, type?, dataset?, perturbations?}]. `csv`: `csv` text with a header row and the columns question, answer (and perturbations with `perturbations_column`). `gsm8k`: `rows` as GSM8K's [{question, answer}] (the gold is the number after ####). `strategyqa`: `rows` as [{question, answer: true/false}]. `mmlu`: `rows` as {subject: [{question, choices, answer: index}]}",
    }),
    items: z.array(z.unknown()).optional(),
    csv: z.string().optional(),
    rows: z.union([z.array(z.unknown()), z.record(z.string(), z.array(z.unknown()))]).optional(),
    num_samples: z.number().int().min(1).max(LIMITS.datasetItems).optional().openapi({
      description: "Keep this many items, drawn with the seed (benchmarks: their sampling, reproduced exactly)",
    }),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 53 - 1)
      .default(42),
    perturbations_column: z
      .boolean()
      .default(false)
      .openapi({ description: "csv: read a `perturbations` column (a JSON array, or values separated by |)" }),
  })
  .openapi("DatasetUpload", {
    example: {
      name: "arith",
      format: "json",
      items: [{ question: "What is 2 + 3?", answer: "5", perturbations: ["Add 2 and 3.", "What do 2 and 3 sum to?"] }],
    },
  });

const DatasetSchema = z
  .object({
    id: z.string(),
    object: z.literal("dataset"),
    name: z.string(),
    format: z.string(),
    n_items: z.number().int(),
    datasets: z.array(z.string()).openapi({ description: "The dataset tags of its items" }),
    sha256: z.string(),
    created_at: z.string(),
  })
  .openapi("Dataset");

const DatasetDetail = DatasetSchema.extend({ items: z.array(z.record(z.string(), z.unknown())) }).openapi(
  "DatasetDetail",
);

// The engine names fields as `items[3].answer`; the API's paths are dotted (`items.3.answer`).
const apiPath = (field: string) => field.replace(/\[(\d+)\]/g, ".$1");

function parseUpload(body: z.infer<typeof UploadRequest>): DatasetItem[] {
  const sampling = { numSamples: body.num_samples, seed: body.seed };
  const need = <T>(field: "items" | "csv" | "rows", v: T | undefined): T => {
    if (v === undefined) throw ApiError.validation([{ path: field, message: `required for format ${body.format}` }]);
    return v;
  };
  const list = (): unknown[] => {
    const rows = need("rows", body.rows);
    if (!Array.isArray(rows))
      throw ApiError.validation([{ path: "rows", message: `must be an array for format ${body.format}` }]);
    return rows;
  };
  try {
    switch (body.format) {
      case "json":
        return parseCustomJson(need("items", body.items), { ...sampling, name: body.name });
      case "csv":
        return parseCsvDataset(need("csv", body.csv), {
          ...sampling,
          name: body.name,
          perturbationsColumn: body.perturbations_column,
        });
      case "gsm8k":
        return loadGsm8k(list(), { ...sampling, numSamples: body.num_samples ?? list().length });
      case "strategyqa":
        return loadStrategyQa(list(), { ...sampling, numSamples: body.num_samples ?? list().length });
      case "mmlu": {
        const bySubject = need("rows", body.rows);
        if (Array.isArray(bySubject))
          throw ApiError.validation([{ path: "rows", message: "must map each subject to its rows for format mmlu" }]);
        const subjects = Object.keys(bySubject);
        const total = subjects.reduce((n, s) => n + bySubject[s].length, 0);
        return loadMmlu(bySubject, { ...sampling, subjects, numSamples: body.num_samples ?? total });
      }
    }
  } catch (err: unknown) {
    if (isDatasetFieldError(err)) {
      const field = apiPath(err.field);
      const root = body.format === "json" ? "items" : body.format === "csv" ? "csv" : "rows";
      const path =
        field === root || field.startsWith(`${root}.`) || field.startsWith(`${root} `) ? field : `${root}.${field}`;
      throw ApiError.validation([{ path, message: err.message.slice(err.field.length + 2) }]);
    }
    throw err;
  }
}

/** reasoning-quality's routes besides `POST /runs` (src/routes/evaluator-runs.ts), at /v1/reasoning-quality: its datasets. */
export const datasetRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/datasets",
      operationId: "uploadReasoningQualityDataset",
      tags: ["reasoning-quality"],
      summary: "Upload a dataset (JSON, CSV, or GSM8K / MMLU / StrategyQA rows)",
      description: `Validated whole before anything is stored: a bad row is a 400 naming the row and field, and nothing is kept. At most ${LIMITS.datasetItems.toLocaleString("en")} items.`,
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bulkBodyBytes),
      request: { body: jsonBody(UploadRequest) },
      responses: { 201: jsonResponse(DatasetSchema, "The stored dataset"), ...problems(...bodyProblems, 422) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const items = parseUpload(body);
      if (items.length > LIMITS.datasetItems) {
        throw new ApiError({
          status: 422,
          type: "limit-exceeded",
          detail: `The dataset has ${items.length} items; a dataset may have at most ${LIMITS.datasetItems}.`,
        });
      }
      const tagged = items.map((it) => ({ ...it, dataset: it.dataset ?? body.name }));
      const json = JSON.stringify(tagged);
      const row = {
        id: newId("ds"),
        tenantId: c.var.tenantId,
        name: body.name,
        format: body.format,
        nItems: tagged.length,
        tags: [...new Set(tagged.map((it) => it.dataset))].sort(),
        sha256: await sha256Hex(json),
        createdAt: new Date(),
      };
      await insertDataset(c.var.db, row, tagged);
      return c.json(datasetToWire(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/datasets",
      operationId: "listReasoningQualityDatasets",
      tags: ["reasoning-quality"],
      summary: "List uploaded datasets",
      security: tenantSecurity,
      request: { query: PageQuery },
      responses: { 200: jsonResponse(pageOf(DatasetSchema, "DatasetPage"), "Datasets"), ...problems(400, 401) },
    }),
    async (c) => {
      const page = await listDatasets(c.var.db, c.var.tenantId, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(datasetToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/datasets/{dataset_id}",
      operationId: "getReasoningQualityDataset",
      tags: ["reasoning-quality"],
      summary: "Get a dataset with its items",
      security: tenantSecurity,
      request: { params: IdParam("dataset_id", "ds_0mhx3k2q1abcdefghij") },
      responses: { 200: jsonResponse(DatasetDetail, "The dataset"), ...problems(401, 404) },
    }),
    async (c) => {
      const row = await getDataset(c.var.db, c.var.tenantId, c.req.valid("param").dataset_id);
      if (!row) throw ApiError.notFound("The dataset");
      return c.json(
        { ...datasetToWire(row), items: await datasetItems<Record<string, unknown>>(c.var.db, row.id) },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/datasets/{dataset_id}",
      operationId: "deleteReasoningQualityDataset",
      tags: ["reasoning-quality"],
      summary: "Delete a dataset (runs keep their own copy of the items they use)",
      security: tenantSecurity,
      request: { params: IdParam("dataset_id", "ds_0mhx3k2q1abcdefghij") },
      responses: { 204: { description: "Deleted" }, ...problems(401, 404) },
    }),
    async (c) => {
      if (!(await deleteDataset(c.var.db, c.var.tenantId, c.req.valid("param").dataset_id)))
        throw ApiError.notFound("The dataset");
      return c.body(null, 204);
    },
  );
