import { z } from "@hono/zod-openapi";
import { LIMITS } from "../limits.ts";

/** Wire shapes shared by every route group, declared once and named in the OpenAPI components. */
export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "/problems/validation" }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.number().int().openapi({ example: 400 }),
    detail: z.string(),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    quota: z.string().optional().openapi({
      description: "With `quota-exceeded`: the quota that refused the request",
      example: "runs_per_minute",
    }),
    limit: z
      .number()
      .int()
      .optional()
      .openapi({ description: "With `quota-exceeded`: the tenant's value of that quota", example: 120 }),
  })
  .openapi("Problem", { description: "RFC 9457 problem details" });

const problemDescriptions: Record<number, string> = {
  400: "Invalid request: malformed JSON or fields that fail validation (`errors` names each one)",
  401: "Missing, unknown or revoked credentials",
  404: "No such resource for this tenant",
  405: "Method not allowed on this path",
  409: "Conflict with the current state",
  413: "Request body larger than the route's limit",
  415: "Body is not `application/json`",
  422: "Well-formed request that cannot be processed",
  429: "Too many requests: over one of the tenant's quotas (`quota` names it, `limit` gives its value), or too many failed key checks; `Retry-After` says when to try again, unless waiting cannot help",
  500: "Unexpected error; quote `request_id` when reporting it",
};

/** The error responses of a route, each a problem+json body. 500 is always included. */
export function problems(...statuses: number[]) {
  const out: Record<
    number,
    { description: string; content: { "application/problem+json": { schema: typeof ProblemSchema } } }
  > = {};
  for (const s of [...statuses, 500]) {
    out[s] = {
      description: problemDescriptions[s],
      content: { "application/problem+json": { schema: ProblemSchema } },
    };
  }
  return out;
}

/** The responses any JSON-body route can give besides its own. */
export const bodyProblems = [400, 401, 413, 415] as const;

// The dashboard's session cookie also authenticates every /v1 route (middleware/auth.ts), but it is declared
// only on /v1/session itself: a generated client sends whatever its `auth` returns for each listed scheme,
// which would put an API key into a Cookie header as well.
export const tenantSecurity = [{ apiKey: [] }];
export const sessionSecurity = [{ session: [] }];
export const adminSecurity = [{ adminToken: [] }];

export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIMITS.pageSize.max)
    .default(LIMITS.pageSize.default)
    .openapi({ description: `Page size, 1–${LIMITS.pageSize.max}` }),
  after: z.string().min(1).optional().openapi({ description: "`next_cursor` of the previous page" }),
});

/** `{data, has_more, next_cursor}` around an item schema. */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() }).openapi(name);
}

export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, description, content: { "application/json": { schema } } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export const IdParam = (name: string, example: string) =>
  z.object({
    [name]: z
      .string()
      .min(1)
      .openapi({ param: { name, in: "path" }, example }),
  });
