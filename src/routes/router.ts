import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { ApiError, type FieldError } from "../errors.ts";
import type { Db } from "../db/client.ts";
import type { DashboardSession as DashboardSessionRow } from "../db/sessions.ts";

export type AppEnv = {
  Bindings: Env;
  /** `session`: set when the caller is the dashboard (a session cookie), not an API key. */
  Variables: { requestId: string; db: Db; tenantId: string; session?: DashboardSessionRow & { tenantName: string } };
};

type Issue = { code: string; path: PropertyKey[]; message: string; errors?: Issue[][]; keys?: string[] };

/**
 * Turns zod issues into `errors[{path, message}]`; the path is dotted (`pairs.3.prompt`), `body` for the root.
 * A union that no branch accepted names the field inside the branch that got furthest (every issue below
 * the union, fewest issues), e.g. `ss.fallback` rather than `ss`; if none got past the value's shape, it
 * names the union with each branch's complaint. An unknown key is named itself (`simulator.divergence`),
 * not the object that holds it.
 */
export function fieldErrors(error: ZodError, root = "body"): FieldError[] {
  const flatten = (issue: Issue, prefix: PropertyKey[]): FieldError[] => {
    const at = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys" && issue.keys?.length) {
      return issue.keys.map((k) => ({ path: [...at, k].map(String).join("."), message: "unknown field" }));
    }
    if (issue.code === "invalid_union" && issue.errors?.length) {
      const deeper = issue.errors.filter((b) => b.length > 0 && b.every((i) => i.path.length > 0)).sort((a, b) => a.length - b.length)[0];
      if (deeper) return deeper.flatMap((i) => flatten(i, at));
      const messages = [...new Set(issue.errors.flatMap((b) => b.map((i) => i.message)))];
      if (messages.length) return [{ path: at.length ? at.map(String).join(".") : root, message: messages.join("; or ") }];
    }
    return [{ path: at.length ? at.map(String).join(".") : root, message: issue.message }];
  };
  return (error.issues as unknown as Issue[]).flatMap((issue) => flatten(issue, []));
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
