import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { methodNotAllowed } from "hono/method-not-allowed";
import { ApiError, renderProblem } from "./errors.ts";
import { openDb } from "./db/client.ts";
import { requireApiKey, SESSION_COOKIE } from "./middleware/auth.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import type { AppEnv } from "./routes/router.ts";
import { API_VERSION, health } from "./routes/health.ts";
import { docs } from "./routes/docs.ts";
import { admin, keys } from "./routes/keys.ts";
import { adminPlatform } from "./routes/admin-platform.ts";
import { adminQuotas } from "./routes/admin-quotas.ts";
import { vrty } from "./evaluators/vrty/routes.ts";
import { runs } from "./routes/runs.ts";
import { webhooks } from "./routes/webhooks.ts";
import { providers } from "./routes/providers.ts";
import { session } from "./routes/session.ts";
import { compare } from "./routes/compare.ts";
import { prompts } from "./routes/prompts.ts";
import { evaluatorRuns } from "./routes/evaluator-runs.ts";
import { settings } from "./routes/settings.ts";
import { usage } from "./routes/usage.ts";
import { evaluators } from "./evaluators/registry.ts";

/**
 * The OpenAPI document's header; `/openapi.json` and the SDK generator both use it. The one server is
 * the relative `/`: it resolves against wherever the document was fetched from, so the docs page calls
 * the origin that served it, and a deployment needs no edit; SDK users pass their own base URL.
 */
export const OPENAPI_CONFIG = {
  openapi: "3.1.0",
  servers: [{ url: "/", description: "The API that serves this document (locally http://127.0.0.1:8787)" }],
  info: {
    title: "assay",
    version: API_VERSION,
    license: { name: "MIT", identifier: "MIT" },
    description:
      "LLM-evaluation API. Errors are RFC 9457 problem+json. Authenticate with `Authorization: Bearer <api key>`. A method a path does not list is answered 405 with an `Allow` header.",
  },
};

/** Maps what Hono itself throws (malformed JSON from the validator, above all) to our problem types. */
function fromHttpException(err: HTTPException): ApiError {
  if (err.status === 400) {
    return new ApiError({ status: 400, type: "malformed-json", detail: "The request body is not valid JSON." });
  }
  return new ApiError({ status: err.status, type: "internal", detail: err.message || "Request failed." });
}

export function createApp() {
  const app = new OpenAPIHono<AppEnv>();

  // First, so that every answer (a 405, a 404, a problem from any layer below) gets the headers.
  app.use(securityHeaders);
  app.use(requestId());
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        renderProblem(
          c,
          new ApiError({
            status: 405,
            type: "method-not-allowed",
            detail: `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(", ")}.`,
            headers: { Allow: methods.join(", ") },
          }),
        ),
    }),
  );
  app.use(async (c, next) => {
    c.set("db", openDb(c.env.DB));
    await next();
  });
  // Every /v1 route needs an API key, except the operator routes, which check ADMIN_TOKEN themselves.
  // Signing in (POST /v1/session) is how a browser gets its session, so it takes the key in its body.
  app.use("/v1/*", (c, next) =>
    c.req.path.startsWith("/v1/admin/") || (c.req.path === "/v1/session" && c.req.method === "POST")
      ? next()
      : requireApiKey(c, next),
  );

  app.route("/", health);
  app.route("/", docs);
  app.route("/v1/admin", admin);
  app.route("/v1/admin", adminPlatform);
  app.route("/v1/admin", adminQuotas);
  app.route("/v1/keys", keys);
  app.route("/v1/vrty", vrty);
  app.route("/v1/runs", runs);
  app.route("/v1/webhooks", webhooks);
  app.route("/v1/providers", providers);
  app.route("/v1/session", session);
  app.route("/v1/compare", compare);
  app.route("/v1/prompts", prompts);
  app.route("/v1/settings", settings);
  app.route("/v1/usage", usage);
  // Every evaluator plug-in registered by now: its `POST /v1/<name>/runs`, then its own routes (under
  // /v1/<name>, and under /v1/runs for what it serves of one of its runs).
  for (const plugin of evaluators.all()) {
    app.route(`/v1/${plugin.name}`, evaluatorRuns(plugin));
    if (plugin.routes?.evaluator) app.route(`/v1/${plugin.name}`, plugin.routes.evaluator);
    if (plugin.routes?.runs) app.route("/v1/runs", plugin.routes.runs);
  }

  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "A tenant's API key (`assay_sk_…`).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description:
      "The dashboard's session (POST /v1/session); requests other than GET and HEAD also send `X-CSRF-Token`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator secret `ADMIN_TOKEN`.",
  });
  app.doc31("/openapi.json", OPENAPI_CONFIG);

  app.notFound((c) =>
    renderProblem(
      c,
      new ApiError({ status: 404, type: "not-found", detail: `No route matches ${c.req.method} ${c.req.path}.` }),
    ),
  );
  app.onError((err, c) => {
    if (err instanceof ApiError) return renderProblem(c, err);
    if (err instanceof HTTPException) return renderProblem(c, fromHttpException(err));
    // Unknown failures are logged with their cause and answered with nothing but the request id.
    console.error(
      JSON.stringify({
        level: "error",
        request_id: c.get("requestId"),
        error: String(err),
        stack: (err as Error)?.stack,
      }),
    );
    return renderProblem(
      c,
      new ApiError({
        status: 500,
        type: "internal",
        detail: "An unexpected error occurred. Quote the request id when reporting it.",
      }),
    );
  });
  return app;
}
