// GET /v1/admin/platform: how close this isolate has come to the limits production enforces per
// invocation and per stored value (src/platform), for operators and `npm run bench`.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { adminSecurity, jsonResponse, problems } from "./openapi.ts";
import { requireAdmin } from "../middleware/auth.ts";
import { highWater } from "../platform/invocation.ts";
import { limitOf } from "../platform/limits.ts";

const Most = (unit: string) =>
  z.object({
    most: z
      .number()
      .int()
      .openapi({ description: `The most ${unit} any one invocation made` }),
    invocation: z.string().openapi({
      description:
        "Which invocation made them (`fetch GET /v1/runs`, `coordinator.unitDone`, `lane.alarm`); empty before any",
      example: "lane.alarm",
    }),
    limit: z.number().int().openapi({ description: "Production's limit per invocation" }),
  });

const PlatformUsageSchema = z
  .object({
    d1_queries: Most("D1 queries"),
    subrequests: Most("subrequests (fetch calls and D1 queries)"),
    stored_value: z.object({
      largest_bytes: z
        .number()
        .int()
        .openapi({ description: "The largest value or row written to a Durable Object's storage or to D1" }),
      what: z
        .string()
        .openapi({ description: "What it was (`a row of outbox (the run's coordinator)`, `runs.result (D1)`)" }),
      limit_bytes: z.number().int().openapi({
        description: "Production's limit of one stored value or row (2 MB, in Durable Objects and D1 alike)",
      }),
    }),
  })
  .openapi("PlatformUsage", {
    description:
      "The high-water marks of the isolate that answers, since it started: production counts per invocation and refuses past these limits, and the code counts the same way (see docs/production-limits.md). Durable Objects may run in other isolates: locally (wrangler dev) there is one.",
  });

export const adminPlatform = createRouter();
adminPlatform.use("*", requireAdmin);
adminPlatform.openapi(
  createRoute({
    method: "get",
    path: "/platform",
    operationId: "adminPlatformUsage",
    tags: ["admin"],
    summary: "The most D1 queries and subrequests one invocation made, and the largest value stored",
    security: adminSecurity,
    responses: {
      200: jsonResponse(PlatformUsageSchema, "This isolate's high-water marks and production's limits"),
      ...problems(401),
    },
  }),
  (c) => {
    const h = highWater();
    return c.json(
      {
        d1_queries: { most: h.d1Queries.count, invocation: h.d1Queries.kind, limit: limitOf("d1QueriesPerInvocation") },
        subrequests: {
          most: h.subrequests.count,
          invocation: h.subrequests.kind,
          limit: limitOf("subrequestsPerInvocation"),
        },
        stored_value: {
          largest_bytes: h.storedValue.bytes,
          what: h.storedValue.what,
          limit_bytes: limitOf("durableObjectValueBytes"),
        },
      },
      200,
    );
  },
);
