import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { bodyProblems, jsonBody, jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { getRetentionDays, setRetentionDays } from "../db/lifetime.ts";
import { LIMITS } from "../limits.ts";
import { ApiError } from "../errors.ts";

const RetentionDays = z
  .number()
  .int()
  .min(1)
  .max(LIMITS.retentionDays.max)
  .nullable()
  .openapi({
    description: `Days an ended run is kept after it finished; then the server deletes it as \`DELETE /v1/runs/{id}\` does. null keeps runs for ever. Default ${LIMITS.retentionDays.default}.`,
    example: LIMITS.retentionDays.default,
  });

const SettingsSchema = z.object({ retention_days: RetentionDays }).openapi("Settings");

/** The caller's tenant-wide settings. */
export const settings = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "getSettings",
      tags: ["settings"],
      summary: "The tenant's settings: how long ended runs are kept",
      security: tenantSecurity,
      responses: { 200: jsonResponse(SettingsSchema, "Settings"), ...problems(401) },
    }),
    async (c) => {
      const days = await getRetentionDays(c.var.db, c.var.tenantId);
      if (days === undefined) throw ApiError.notFound("The tenant");
      return c.json({ retention_days: days }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/",
      operationId: "putSettings",
      tags: ["settings"],
      summary: "Set the tenant's settings",
      description:
        "A shorter retention applies at once: runs that finished before the new cutoff are deleted by the server within minutes (a few dozen a minute), and no read finds them from the moment each is taken.",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(z.strictObject({ retention_days: RetentionDays })) },
      responses: { 200: jsonResponse(SettingsSchema, "The settings as stored"), ...problems(...bodyProblems) },
    }),
    async (c) => {
      const { retention_days } = c.req.valid("json");
      await setRetentionDays(c.var.db, c.var.tenantId, retention_days);
      return c.json({ retention_days }, 200);
    },
  );
