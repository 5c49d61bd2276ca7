import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { tenantUsage } from "../db/lifetime.ts";
import { QUOTA_DESCRIPTIONS, QUOTA_NAMES, quotaStanding, type QuotaName } from "../quotas/index.ts";

const Standing = (name: QuotaName) =>
  z
    .object({
      limit: z
        .number()
        .int()
        .openapi({ description: "The tenant's quota (docs/quotas.md; an operator may change it)" }),
      used: z.number().int().openapi({ description: "What the tenant has used of it now" }),
    })
    .openapi({ description: QUOTA_DESCRIPTIONS[name] });

const QuotaStandingSchema = z
  .object({
    runs_per_minute: Standing("runs_per_minute"),
    concurrent_runs: Standing("concurrent_runs"),
    units_per_day: Standing("units_per_day"),
    stored_bytes: Standing("stored_bytes"),
    heavy_reads_per_minute: Standing("heavy_reads_per_minute"),
  })
  .openapi("QuotaStanding", {
    description:
      "Each quota and where the tenant stands against it; past a limit, the request it limits is answered 429",
  });

const UsageSchema = z
  .object({
    runs: z.number().int().openapi({ description: "Runs stored (a run being deleted is not counted)" }),
    samples: z.number().int().openapi({ description: "Samples stored: one per ended unit of those runs" }),
    bytes: z
      .object({
        d1: z.number().int().openapi({
          description:
            "UTF-8 bytes of text in the database: samples' outputs and errors, runs' configs and results kept inline",
        }),
        r2: z
          .number()
          .int()
          .openapi({ description: "Bytes of results stored in object storage (those too large to inline)" }),
        total: z.number().int(),
      })
      .openapi({
        description:
          "What the tenant's data takes. The text itself, not indexes or storage overhead; samples of runs made before it was counted are not included.",
      }),
    quotas: QuotaStandingSchema,
  })
  .openapi("Usage");

export const usage = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "getUsage",
    tags: ["settings"],
    summary: "What the tenant stores (runs, samples, bytes) and where it stands against its quotas",
    description:
      "Counted from the runs' own rows, kept up to date as samples are written, so this is cheap at any size. See `GET /v1/settings` for how long runs are kept, and docs/quotas.md for the quotas.",
    security: tenantSecurity,
    responses: { 200: jsonResponse(UsageSchema, "Usage"), ...problems(401) },
  }),
  async (c) => {
    const [u, q] = await Promise.all([tenantUsage(c.var.db, c.var.tenantId), quotaStanding(c.env, c.var.tenantId)]);
    const total = u.d1Bytes + u.r2Bytes;
    const used: Record<QuotaName, number> = { ...q.used, stored_bytes: total };
    const quotas = Object.fromEntries(QUOTA_NAMES.map((n) => [n, { limit: q.quotas[n], used: used[n] }])) as Record<
      QuotaName,
      { limit: number; used: number }
    >;
    return c.json({ runs: u.runs, samples: u.samples, bytes: { d1: u.d1Bytes, r2: u.r2Bytes, total }, quotas }, 200);
  },
);
