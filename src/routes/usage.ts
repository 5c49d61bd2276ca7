import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { tenantUsage } from "../db/lifetime.ts";

const UsageSchema = z
  .object({
    runs: z.number().int().openapi({ description: "Runs stored (a run being deleted is not counted)" }),
    samples: z.number().int().openapi({ description: "Samples stored: one per ended unit of those runs" }),
    bytes: z
      .object({
        d1: z.number().int().openapi({ description: "UTF-8 bytes of text in the database: samples' outputs and errors, runs' configs and results kept inline" }),
        r2: z.number().int().openapi({ description: "Bytes of results stored in object storage (those too large to inline)" }),
        total: z.number().int(),
      })
      .openapi({ description: "What the tenant's data takes. The text itself, not indexes or storage overhead; samples of runs made before it was counted are not included." }),
  })
  .openapi("Usage");

export const usage = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "getUsage",
    tags: ["settings"],
    summary: "What the tenant stores: runs, samples and bytes",
    description: "Counted from the runs' own rows, kept up to date as samples are written, so this is cheap at any size. See `GET /v1/settings` for how long runs are kept.",
    security: tenantSecurity,
    responses: { 200: jsonResponse(UsageSchema, "Usage"), ...problems(401) },
  }),
  async (c) => {
    const u = await tenantUsage(c.var.db, c.var.tenantId);
    return c.json({ runs: u.runs, samples: u.samples, bytes: { d1: u.d1Bytes, r2: u.r2Bytes, total: u.d1Bytes + u.r2Bytes } }, 200);
  },
);
