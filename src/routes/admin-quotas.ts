import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { IdParam, jsonBody, jsonResponse, problems, bodyProblems, adminSecurity } from "./openapi.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { requireAdmin } from "../middleware/auth.ts";
import { LIMITS } from "../limits.ts";
import { ApiError } from "../errors.ts";
import { getTenant } from "../db/tenants.ts";
import {
  QUOTA_DEFAULTS,
  QUOTA_DESCRIPTIONS,
  QUOTA_MAX,
  quotaStanding,
  setQuotaOverrides,
  type QuotaName,
  type Quotas,
} from "../quotas/index.ts";

const quotaField = (name: QuotaName) =>
  z
    .number()
    .int()
    .openapi({ description: `${QUOTA_DESCRIPTIONS[name]} (default ${QUOTA_DEFAULTS[name]})` });

/** Each quota's value, one field per quota; shared with the Usage schema (routes/usage.ts). */
export const QuotasSchema = z
  .object({
    runs_per_minute: quotaField("runs_per_minute"),
    concurrent_runs: quotaField("concurrent_runs"),
    units_per_day: quotaField("units_per_day"),
    stored_bytes: quotaField("stored_bytes"),
    heavy_reads_per_minute: quotaField("heavy_reads_per_minute"),
  })
  .openapi("Quotas");

const TenantQuotasSchema = z
  .object({
    tenant_id: z.string(),
    quotas: QuotasSchema.openapi({ description: "What applies to the tenant now" }),
    overrides: QuotasSchema.partial().openapi({
      description: "The quotas the operator set for this tenant; the others are the defaults",
    }),
    defaults: QuotasSchema.openapi({ description: "The service's defaults (docs/quotas.md)" }),
  })
  .openapi("TenantQuotas");

const patchField = (name: QuotaName) =>
  z
    .number()
    .int()
    .min(0)
    .max(QUOTA_MAX[name])
    .nullable()
    .optional()
    .openapi({
      description: `${QUOTA_DESCRIPTIONS[name]}: a value up to ${QUOTA_MAX[name]}, or null for the default (${QUOTA_DEFAULTS[name]}); absent leaves it as it is`,
    });

const QuotaPatchBody = z
  .strictObject({
    runs_per_minute: patchField("runs_per_minute"),
    concurrent_runs: patchField("concurrent_runs"),
    units_per_day: patchField("units_per_day"),
    stored_bytes: patchField("stored_bytes"),
    heavy_reads_per_minute: patchField("heavy_reads_per_minute"),
  })
  .openapi("TenantQuotasUpdate");

const TenantParam = IdParam("tenant_id", "ten_0mhx3k2q1abcdefghij");

const wire = (tenantId: string, quotas: Quotas, overrides: Partial<Quotas>) => ({
  tenant_id: tenantId,
  quotas,
  overrides,
  defaults: QUOTA_DEFAULTS,
});

/** Operator routes, behind ADMIN_TOKEN: a tenant's quotas (src/quotas), kept in the tenant's quota object. */
export const adminQuotas = createRouter();
adminQuotas.use("*", requireAdmin);
adminQuotas
  .openapi(
    createRoute({
      method: "get",
      path: "/tenants/{tenant_id}/quotas",
      operationId: "adminGetTenantQuotas",
      tags: ["admin"],
      summary: "A tenant's quotas: what applies, what the operator set, the defaults",
      security: adminSecurity,
      request: { params: TenantParam },
      responses: { 200: jsonResponse(TenantQuotasSchema, "The tenant's quotas"), ...problems(401, 404) },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid("param");
      if (!(await getTenant(c.var.db, tenant_id))) throw ApiError.notFound("The tenant");
      const s = await quotaStanding(c.env, tenant_id);
      return c.json(wire(tenant_id, s.quotas, s.overrides), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/tenants/{tenant_id}/quotas",
      operationId: "adminSetTenantQuotas",
      tags: ["admin"],
      summary: "Change a tenant's quotas: a number sets one, null returns it to the default",
      description:
        "Takes effect at the tenant's next creation or heavy read. Lowering a quota below what the tenant uses now refuses its next request; nothing running is stopped.",
      security: adminSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { params: TenantParam, body: jsonBody(QuotaPatchBody) },
      responses: {
        200: jsonResponse(TenantQuotasSchema, "The tenant's quotas after the change"),
        ...problems(...bodyProblems, 404),
      },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid("param");
      if (!(await getTenant(c.var.db, tenant_id))) throw ApiError.notFound("The tenant");
      const overrides = await setQuotaOverrides(c.env, tenant_id, c.req.valid("json"));
      return c.json(wire(tenant_id, { ...QUOTA_DEFAULTS, ...overrides }, overrides), 200);
    },
  );
