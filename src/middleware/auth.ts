import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.ts";
import { secretsEqual } from "../crypto.ts";
import { findActiveKey } from "../db/tenants.ts";
import type { AppEnv } from "../routes/router.ts";

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return m?.[1];
}

/** Requires `Authorization: Bearer <api key>` of an active key and sets the caller's tenant. */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!token) throw ApiError.unauthenticated("Send an API key as `Authorization: Bearer <key>`.");
  const key = await findActiveKey(c.var.db, token);
  if (!key) throw ApiError.unauthenticated("The API key is unknown or has been revoked.");
  c.set("tenantId", key.tenantId);
  await next();
};

/** Requires the operator secret `ADMIN_TOKEN`; with no secret configured, the admin routes are closed. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  const expected = c.env.ADMIN_TOKEN;
  if (!token) throw ApiError.unauthenticated("Send the operator token as `Authorization: Bearer <ADMIN_TOKEN>`.");
  if (!expected || !(await secretsEqual(token, expected))) {
    throw ApiError.unauthenticated("The operator token is wrong, or ADMIN_TOKEN is not configured.");
  }
  await next();
};
