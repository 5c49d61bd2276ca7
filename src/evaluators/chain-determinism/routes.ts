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
import { LIMITS } from "../../limits.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { sha256Hex } from "../../crypto.ts";
import { canonicalJson } from "../../engines/vrty/index.ts";
import { validateSuite, type Suite } from "../../engines/chain-determinism/index.ts";
import { deleteSuite, insertSuite, listSuites } from "../../db/suites.ts";
import { loadSuite } from "./suites.ts";

const EVALUATOR = "chain-determinism";

// A suite read with GET can be POSTed back as it is: `version` is kept, and the fields a GET adds
// (id, sha256, counts, created_at) are accepted and ignored, since the server computes them.
const SuiteBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    id: z.string().optional().openapi({ description: "Read-only: ignored (a new id is assigned)" }),
    sha256: z.string().optional().openapi({ description: "Read-only: ignored (computed from the suite)" }),
    n_queries: z.number().optional().openapi({ description: "Read-only: ignored" }),
    n_tools: z.number().optional().openapi({ description: "Read-only: ignored" }),
    created_at: z.string().nullable().optional().openapi({ description: "Read-only: ignored" }),
    suite: z.strictObject({
      version: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .openapi({ description: "Your label for this version of the suite (default `upload`); part of its sha256" }),
      system_prompt: z.string().min(1),
      tools: z.array(z.record(z.string(), z.unknown())).min(2).max(128),
      stubs: z.record(z.string(), z.string()),
      queries: z
        .array(
          z.strictObject({ query_id: z.string().min(1), query_type: z.string().optional(), user: z.string().min(1) }),
        )
        .min(1)
        .max(1000),
    }),
  })
  .openapi("CreateSuiteRequest");

const SuiteSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    sha256: z.string(),
    n_queries: z.number().int(),
    n_tools: z.number().int(),
    created_at: z.string().nullable(),
  })
  .openapi("Suite");
const SuiteDetail = SuiteSchema.extend({ suite: z.record(z.string(), z.unknown()) }).openapi("SuiteDetail");

function suiteWire(id: string, name: string, sha256: string, s: Suite, createdAt: Date | null) {
  return {
    id,
    name,
    sha256,
    n_queries: s.queries.length,
    n_tools: s.tools.length,
    created_at: createdAt?.toISOString() ?? null,
  };
}

/** chain-determinism's routes besides `POST /runs` (src/routes/evaluator-runs.ts), at /v1/chain-determinism: its suites. */
export const chainDeterminismRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/suites",
      operationId: "createChainDeterminismSuite",
      tags: ["chain-determinism"],
      summary: "Upload a suite: queries, tools, stub responses and a system prompt",
      description:
        "Each query carries its fully rendered user message. To reproduce the public chain-determinism-bench, render its queries with the harness's user-message layout and upload them with its tools and stubs.",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(SuiteBody) },
      responses: { 201: jsonResponse(SuiteSchema, "The stored suite"), ...problems(...bodyProblems) },
    }),
    async (c) => {
      const { name, suite: raw } = c.req.valid("json");
      let suite: Suite;
      try {
        suite = validateSuite({ ...raw, version: raw.version ?? "upload" });
      } catch (err) {
        if (err instanceof TypeError || err instanceof RangeError) {
          const m = err.message.match(/^(?:validateSuite: )?([\w.[\]]+)(?::| )\s*(.*)$/);
          throw ApiError.validation([{ path: m ? `suite.${m[1]}` : "suite", message: m ? m[2] : err.message }]);
        }
        throw err;
      }
      const row = {
        id: newId("ste"),
        tenantId: c.var.tenantId,
        evaluator: EVALUATOR,
        name,
        sha256: await sha256Hex(canonicalJson(suite)),
        data: suite,
        createdAt: new Date(),
      };
      await insertSuite(c.var.db, row);
      return c.json(suiteWire(row.id, name, row.sha256, suite, row.createdAt), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/suites",
      operationId: "listChainDeterminismSuites",
      tags: ["chain-determinism"],
      summary: "List uploaded suites (the built-in `default` is not listed)",
      security: tenantSecurity,
      request: { query: PageQuery },
      responses: { 200: jsonResponse(pageOf(SuiteSchema, "SuitePage"), "Suites"), ...problems(400, 401) },
    }),
    async (c) => {
      const { limit, after } = c.req.valid("query");
      const page = await listSuites(c.var.db, c.var.tenantId, EVALUATOR, { limit, after });
      return c.json(
        { ...page, data: page.data.map((r) => suiteWire(r.id, r.name, r.sha256, r.data as Suite, r.createdAt)) },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/suites/{suite_id}",
      operationId: "getChainDeterminismSuite",
      tags: ["chain-determinism"],
      summary: "Get a suite with its content (`default` for ours)",
      security: tenantSecurity,
      request: { params: IdParam("suite_id", "default") },
      responses: { 200: jsonResponse(SuiteDetail, "The suite"), ...problems(401, 404) },
    }),
    async (c) => {
      const s = await loadSuite(c.var.db, c.var.tenantId, c.req.valid("param").suite_id);
      if (!s) throw ApiError.notFound("The suite");
      return c.json(
        {
          ...suiteWire(s.id, s.name, s.sha256, s.suite, s.createdAt),
          suite: s.suite as unknown as Record<string, unknown>,
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/suites/{suite_id}",
      operationId: "deleteChainDeterminismSuite",
      tags: ["chain-determinism"],
      summary: "Delete an uploaded suite (runs keep their own copy)",
      security: tenantSecurity,
      request: { params: IdParam("suite_id", "ste_0mhx3k2q1abcdefghij") },
      responses: { 204: { description: "Deleted" }, ...problems(401, 404, 409) },
    }),
    async (c) => {
      const id = c.req.valid("param").suite_id;
      if (id === "default")
        throw new ApiError({ status: 409, type: "conflict", detail: "The built-in suite cannot be deleted." });
      if (!(await deleteSuite(c.var.db, c.var.tenantId, EVALUATOR, id))) throw ApiError.notFound("The suite");
      return c.body(null, 204);
    },
  );
