import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems } from "./openapi.ts";

const HealthSchema = z.object({ status: z.literal("ok"), version: z.string() }).openapi("Health");

export const API_VERSION = "0.1.0";

export const health = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/healthz",
    operationId: "getHealth",
    tags: ["meta"],
    summary: "Liveness check (no authentication)",
    responses: { 200: jsonResponse(HealthSchema, "The API is up"), ...problems() },
  }),
  (c) => c.json({ status: "ok" as const, version: API_VERSION }, 200),
);
