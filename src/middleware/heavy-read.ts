import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../routes/router.ts";
import { admitHeavyRead } from "../quotas/index.ts";

/**
 * A read of a whole run (a comparison, an export, a report) counts against the tenant's
 * `heavy_reads_per_minute` before it starts; over it, a 429 with `Retry-After`. Ordinary reads (a run,
 * a list, a page of samples) never reach the tenant's quota object. docs/quotas.md lists the routes.
 */
export const heavyRead: MiddlewareHandler<AppEnv> = async (c, next) => {
  await admitHeavyRead(c.env, c.var.tenantId);
  await next();
};
