import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems } from "./openapi.ts";

/**
 * The dashboard's page (built into public/app/ by `npm run build`, served from the Worker's own assets).
 * Its policy and the other security headers are added by middleware/security-headers.ts, as for every page.
 */
async function dashboardPageOrNull(assets: Fetcher, url: string): Promise<Response | null> {
  const page = await assets.fetch(new URL("/app/", url));
  if (!page.ok) return null;
  const headers = new Headers(page.headers);
  headers.set("Cache-Control", "no-cache");
  return new Response(page.body, { status: 200, headers });
}

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
      summary: "Where to start (no authentication): a browser gets the dashboard, other clients get their links",
      // Explicitly public: an empty requirement says no credentials, not "forgot to say".
      security: [],
      responses: {
        200: {
          description:
            "Browsers (Accept: text/html) get the dashboard's page; other clients the links to the reference and the OpenAPI document",
          content: { "application/json": { schema: IndexSchema }, "text/html": { schema: z.string() } },
        },
        302: { description: "To `/docs`, for a browser when the dashboard has not been built (`npm run build`)" },
        ...problems(),
      },
    }),
    async (c) => {
      if ((c.req.header("accept") ?? "").includes("text/html"))
        return (await dashboardPageOrNull(c.env.ASSETS, c.req.url)) ?? c.redirect("/docs", 302);
      return c.json(
        { name: "assay" as const, version: API_VERSION, docs: "/docs", openapi: "/openapi.json", health: "/healthz" },
        200,
      );
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
