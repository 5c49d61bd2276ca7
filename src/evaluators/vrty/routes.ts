import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../routes/router.ts";
import {
  IdParam,
  jsonBody,
  jsonResponse,
  pageOf,
  PageQuery,
  problems,
  bodyProblems,
  tenantSecurity,
} from "../../routes/openapi.ts";
import { jsonBody as guardJson } from "../../middleware/json-body.ts";
import { fieldErrors } from "../../json/field-errors.ts";
import { LIMITS } from "../../limits.ts";
import { ApiError } from "../../errors.ts";
import type { Db } from "../../db/client.ts";
import {
  countIdfTables,
  deleteIdfTable,
  getIdfTable,
  idfTableToWire,
  insertIdfTable,
  listIdfTables,
  loadIdf,
} from "../../db/idf-tables.ts";
import { buildIdfTable, defaultIdf, defaultIdfInfo, prepareIdf, score, type Idf } from "../../engines/vrty/index.ts";
import { DEFAULT_IDF_TABLE, IdfTableRef, VrtyBatchPair, VrtyScoreRequest } from "./schemas.ts";

const Dimensions = z.object({
  coherence: z.number(),
  completeness: z.number(),
  conciseness: z.number(),
  relevance: z.number(),
});

const VrtyResultSchema = z
  .object({
    composite: z.number().min(0).max(1),
    coherence: z.number().min(0).max(1),
    completeness: z.number().min(0).max(1),
    conciseness: z.number().min(0).max(1),
    explanations: z.object({
      coherence: z.string(),
      completeness: z.string(),
      conciseness: z.string(),
      relevance: z.string(),
    }),
    idf_sha256: z.string().openapi({ description: "SHA-256 of the canonical JSON of the IDF table used" }),
    relevance: z.number().min(0).max(1),
    vrty_version: z.string(),
    weights: Dimensions,
  })
  .openapi("VrtyResult");

const BatchRequest = z
  .strictObject({
    pairs: z
      .array(z.unknown())
      .min(1)
      .max(LIMITS.batchPairs)
      .openapi({
        description: `1–${LIMITS.batchPairs} pairs. Each is validated on its own: a bad pair gets an error entry, the others are scored.`,
        // Truthful to what the route accepts (a validating proxy must not refuse a batch the API would
        // answer): a VrtyBatchPair is scored, and any other value is accepted and answered with its error.
        items: {
          anyOf: [
            { $ref: "#/components/schemas/VrtyBatchPair" },
            { description: "Any other value: its result is an `error` entry" },
          ],
        },
      }),
    idf_table: IdfTableRef,
  })
  .openapi("VrtyBatchRequest");

const ItemErrorSchema = z.object({
  status: z.number().int(),
  title: z.string(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
});

const BatchItemSchema = z
  .object({
    index: z.number().int(),
    id: z.string().optional(),
    result: VrtyResultSchema.optional(),
    error: ItemErrorSchema.optional(),
  })
  .openapi("VrtyBatchItem", { description: "Exactly one of `result` and `error` is present" });

const BatchResponse = z
  .object({ results: z.array(BatchItemSchema), succeeded: z.number().int(), failed: z.number().int() })
  .openapi("VrtyBatchResponse");

const IdfTableSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    sha256: z.string(),
    n_docs: z.number().int().openapi({ description: "Pseudo-documents (200-token windows) the table was built from" }),
    n_terms: z.number().int(),
    min_df: z.number().int(),
    size_bytes: z.number().int(),
    created_at: z.string().nullable().openapi({ description: "null for the built-in table" }),
  })
  .openapi("IdfTable");

const IdfTablePage = pageOf(IdfTableSchema, "IdfTablePage");

const CreateIdfTable = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    documents: z.array(z.string()).min(1).max(LIMITS.idfDocuments).openapi({
      description: "Texts of your domain. Each is cut into 200-token windows, the pseudo-documents that IDF counts.",
    }),
  })
  .openapi("CreateIdfTableRequest");

const TableParam = IdParam("table_id", "idf_0mhx3k2q1abcdefghij");

/** The IDF named by a request: the built-in table, or one of the caller's. An unknown id is a 400 on that field. */
async function resolveIdf(db: Db, tenantId: string, ref: string): Promise<Idf> {
  if (ref === DEFAULT_IDF_TABLE) return defaultIdf();
  const row = await getIdfTable(db, tenantId, ref);
  if (!row) throw ApiError.validation([{ path: "idf_table", message: `No IDF table '${ref}' for this tenant.` }]);
  return loadIdf(db, row);
}

export const vrty = createRouter();
// Batch pairs are validated one by one in the handler, so the schema is registered for the document here.
vrty.openAPIRegistry.register("VrtyBatchPair", VrtyBatchPair);
vrty
  .openapi(
    createRoute({
      method: "post",
      path: "/score",
      operationId: "scoreVrty",
      tags: ["vrty"],
      summary: "Score one (prompt, response) pair",
      description: "Deterministic: the same input and table give byte-identical JSON. No model call.",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(VrtyScoreRequest) },
      responses: { 200: jsonResponse(VrtyResultSchema, "The 9-key vrty result"), ...problems(...bodyProblems) },
    }),
    async (c) => {
      const { prompt, response, idf_table } = c.req.valid("json");
      const idf = await resolveIdf(c.var.db, c.var.tenantId, idf_table);
      return c.json(score(prompt, response, idf), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/score/batch",
      operationId: "scoreVrtyBatch",
      tags: ["vrty"],
      summary: `Score up to ${LIMITS.batchPairs} pairs`,
      description:
        "Results keep the order of `pairs`. An invalid pair yields an `error` entry; the batch still succeeds.",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bulkBodyBytes),
      request: { body: jsonBody(BatchRequest) },
      responses: { 200: jsonResponse(BatchResponse, "One entry per pair"), ...problems(...bodyProblems) },
    }),
    async (c) => {
      const { pairs, idf_table } = c.req.valid("json");
      const idf = await resolveIdf(c.var.db, c.var.tenantId, idf_table);
      let failed = 0;
      const results = pairs.map((raw, index) => {
        const parsed = VrtyBatchPair.safeParse(raw);
        const id = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : undefined;
        if (!parsed.success) {
          failed++;
          const errors = fieldErrors(parsed.error, "pair");
          return {
            index,
            ...(id === undefined ? {} : { id }),
            error: { status: 400, title: "Validation failed", detail: `Pair ${index} has invalid fields.`, errors },
          };
        }
        return {
          index,
          ...(id === undefined ? {} : { id }),
          result: score(parsed.data.prompt, parsed.data.response, idf),
        };
      });
      return c.json({ results, succeeded: pairs.length - failed, failed }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/idf-tables",
      operationId: "createIdfTable",
      tags: ["vrty"],
      summary: "Build a custom IDF table from your documents",
      description:
        "Uses the scorer's own tokeniser and stopwords. Every term seen is kept (min_df 1), so the table's IDF is the exact smoothed IDF of your corpus.",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bulkBodyBytes),
      request: { body: jsonBody(CreateIdfTable) },
      responses: {
        201: jsonResponse(IdfTableSchema, "The stored table's metadata"),
        ...problems(...bodyProblems, 422),
      },
    }),
    async (c) => {
      const { name, documents } = c.req.valid("json");
      const { db, tenantId } = c.var;
      if ((await countIdfTables(db, tenantId)) >= LIMITS.idfTablesPerTenant) {
        throw new ApiError({
          status: 422,
          type: "limit-exceeded",
          detail: `A tenant may keep at most ${LIMITS.idfTablesPerTenant} IDF tables; delete one first.`,
        });
      }
      let data;
      // The table's content (and so its sha256) depends on the documents only, never on the name.
      try {
        data = buildIdfTable(documents, { source: "upload" });
      } catch (err) {
        if (err instanceof RangeError) {
          throw ApiError.validation([{ path: "documents", message: "No document contains a scorable token." }]);
        }
        throw err;
      }
      const nTerms = Object.keys(data.idf).length;
      if (nTerms > LIMITS.idfTerms) {
        throw new ApiError({
          status: 422,
          type: "limit-exceeded",
          detail: `The documents yield ${nTerms} distinct terms; a table may hold at most ${LIMITS.idfTerms}.`,
        });
      }
      const { sha256 } = await prepareIdf(data);
      const row = await insertIdfTable(db, tenantId, name, data, sha256);
      return c.json(idfTableToWire(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/idf-tables",
      operationId: "listIdfTables",
      tags: ["vrty"],
      summary: "List your custom IDF tables",
      security: tenantSecurity,
      request: { query: PageQuery },
      responses: {
        200: jsonResponse(IdfTablePage, "Tables, newest first (the built-in `default` is not listed)"),
        ...problems(400, 401),
      },
    }),
    async (c) => {
      const page = await listIdfTables(c.var.db, c.var.tenantId, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(idfTableToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/idf-tables/{table_id}",
      operationId: "getIdfTable",
      tags: ["vrty"],
      summary: "Get an IDF table's metadata (`default` for the built-in table)",
      security: tenantSecurity,
      request: { params: TableParam },
      responses: { 200: jsonResponse(IdfTableSchema, "The table's metadata"), ...problems(401, 404) },
    }),
    async (c) => {
      const { table_id } = c.req.valid("param");
      if (table_id === DEFAULT_IDF_TABLE)
        return c.json({ id: DEFAULT_IDF_TABLE, ...(await defaultIdfInfo()), created_at: null }, 200);
      const row = await getIdfTable(c.var.db, c.var.tenantId, table_id);
      if (!row) throw ApiError.notFound("The IDF table");
      return c.json(idfTableToWire(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/idf-tables/{table_id}",
      operationId: "deleteIdfTable",
      tags: ["vrty"],
      summary: "Delete a custom IDF table",
      security: tenantSecurity,
      request: { params: TableParam },
      responses: { 204: { description: "Deleted" }, ...problems(401, 404, 409) },
    }),
    async (c) => {
      const { table_id } = c.req.valid("param");
      if (table_id === DEFAULT_IDF_TABLE) {
        throw new ApiError({ status: 409, type: "conflict", detail: "The built-in IDF table cannot be deleted." });
      }
      if (!(await deleteIdfTable(c.var.db, c.var.tenantId, table_id))) throw ApiError.notFound("The IDF table");
      return c.body(null, 204);
    },
  );
