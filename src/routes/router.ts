import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { ApiError, type FieldError } from "../errors.ts";
import type { Db } from "../db/client.ts";

export type AppEnv = {
  Bindings: Env;
  Variables: { requestId: string; db: Db; tenantId: string };
};

/** Turns zod issues into `errors[{path, message}]`; the path is dotted (`pairs.3.prompt`), `body` for the root. */
export function fieldErrors(error: ZodError, root = "body"): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join(".") : root,
    message: issue.message,
  }));
}

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
