import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems } from "./openapi.ts";

const HealthSchema = z.object({ status: z.literal("ok"), version: z.string() }).openapi("Health");

export const API_VERSION = "0.1.0";

const IndexSchema = z
  .object({ name: z.literal("assay"), version: z.string(), docs: z.string(), openapi: z.string(), health: z.string() })
  .openapi("Index");

export const health = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "getIndex",
      tags: ["meta"],
      summary: "Where to start (no authentication): a browser is sent to the docs, other clients get their links",
      // Explicitly public: an empty requirement says no credentials, not "forgot to say".
      security: [],
      responses: {
        200: jsonResponse(IndexSchema, "Links to the reference and the OpenAPI document"),
        302: { description: "To `/docs`, for clients that accept HTML (browsers)" },
        ...problems(),
      },
    }),
    (c) => {
      if ((c.req.header("accept") ?? "").includes("text/html")) return c.redirect("/docs", 302);
      return c.json({ name: "assay" as const, version: API_VERSION, docs: "/docs", openapi: "/openapi.json", health: "/healthz" }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      operationId: "getHealth",
      tags: ["meta"],
      summary: "Liveness check (no authentication)",
      security: [],
      responses: { 200: jsonResponse(HealthSchema, "The API is up"), ...problems() },
    }),
    (c) => c.json({ status: "ok" as const, version: API_VERSION }, 200),
  );
