import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { ApiError } from "../errors.ts";
import { fieldErrors } from "../json/field-errors.ts";
import type { Db } from "../db/client.ts";
import type { DashboardSession as DashboardSessionRow } from "../db/sessions.ts";

export type AppEnv = {
  Bindings: Env;
  /** `session`: set when the caller is the dashboard (a session cookie), not an API key. */
  Variables: { requestId: string; db: Db; tenantId: string; session?: DashboardSessionRow & { tenantName: string } };
};

/**
 * Every route group is built here, because zod-openapi takes the validation hook from the instance
 * a route is declared on: this one makes any invalid request a 400 problem naming each bad field.
 */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const root = result.target === "json" ? "body" : result.target;
        throw ApiError.validation(fieldErrors(result.error as ZodError, root));
      }
    },
  });
}
