// Dashboard sign-in (issue 17): an API key is exchanged once for a session held in an HttpOnly,
// SameSite=Strict cookie, so the page never keeps the key. Requests that change something also carry
// the session's CSRF token in `X-CSRF-Token` (checked in middleware/auth.ts), which no other site can set.
import { createRoute, z } from "@hono/zod-openapi";
import { deleteCookie, setCookie } from "hono/cookie";
import type { Context } from "hono";
import { createRouter, type AppEnv } from "./router.ts";
import { bodyProblems, jsonBody, jsonResponse, problems, sessionSecurity } from "./openapi.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import {
  clientAddress,
  sameOriginOrAbsent,
  SESSION_COOKIE,
  SESSION_COOKIE_PATH,
  throttledCheck,
} from "../middleware/auth.ts";
import { subjectsOf } from "../auth/throttle.ts";
import { ApiError } from "../errors.ts";
import { LIMITS } from "../limits.ts";
import { SIGN_IN_LIMITS } from "../auth/sign-in-limits.ts";
import { findActiveKey, getTenant } from "../db/tenants.ts";
import { createSession, deleteSession, SESSION_HOURS } from "../db/sessions.ts";
import { clearSignedInHint, setSignedInHint, SIGNED_IN_HINT } from "./session-hint.ts";

export const DashboardSessionSchema = z
  .object({
    object: z.literal("session"),
    tenant: z.object({ id: z.string(), name: z.string() }),
    csrf_token: z
      .string()
      .openapi({ description: "Send it as `X-CSRF-Token` with every request that changes something" }),
    expires_at: z.string(),
  })
  .openapi("DashboardSession");

const SignIn = z.strictObject({
  api_key: z.string().min(1).max(200).openapi({ description: "An API key of the tenant; used once, never stored" }),
});

function wire(s: { tenantId: string; csrfToken: string; expiresAt: Date }, tenantName: string) {
  return {
    object: "session" as const,
    tenant: { id: s.tenantId, name: tenantName },
    csrf_token: s.csrfToken,
    expires_at: s.expiresAt.toISOString(),
  };
}

function requireSession(c: Context<AppEnv>) {
  const session = c.var.session;
  if (!session)
    throw new ApiError({
      status: 404,
      type: "not-found",
      detail: "This request used an API key, not a dashboard session.",
    });
  return session;
}

export const session = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createSession",
      tags: ["session"],
      summary: "Sign in to the dashboard: exchange an API key for a session cookie",
      description:
        `Answers with the session and sets \`${SESSION_COOKIE}\` (HttpOnly, SameSite=Strict, Secure over HTTPS, path \`${SESSION_COOKIE_PATH}\`, ${SESSION_HOURS} h). ` +
        "The cookie then authenticates every `/v1` route like the key would; requests other than GET and HEAD must also send `X-CSRF-Token`. " +
        "A session ends at sign-out, at its expiry, when its key is revoked, or when its tenant signs in more than " +
        `${SIGN_IN_LIMITS.sessionsPerTenant} times (the oldest ends). A request from another origin is refused. ` +
        `Failed sign-ins are throttled per client address and key prefix: past the bound, 429 with \`Retry-After\` (at most ${SIGN_IN_LIMITS.windowSeconds} s), even for a right key. ` +
        `It also sets \`${SIGNED_IN_HINT}=1\` (not HttpOnly, path \`/\`, same lifetime, no secret): the dashboard asks \`GET /v1/session\` only when it is present; sign-out clears it.`,
      security: [],
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(SignIn) },
      responses: {
        201: jsonResponse(DashboardSessionSchema, "Signed in; the cookie is set"),
        ...problems(...bodyProblems, 429),
      },
    }),
    async (c) => {
      if (!sameOriginOrAbsent(c)) throw ApiError.unauthenticated("Sign in from this server's own pages.");
      const apiKey = c.req.valid("json").api_key;
      const key = await throttledCheck(
        c,
        subjectsOf(clientAddress(c), apiKey),
        { lookUp: () => findActiveKey(c.var.db, apiKey) },
        "The API key is unknown or has been revoked.",
      );
      const tenant = await getTenant(c.var.db, key.tenantId);
      const { session: s, token } = await createSession(c.var.db, key);
      setCookie(c, SESSION_COOKIE, token, {
        path: SESSION_COOKIE_PATH,
        httpOnly: true,
        sameSite: "Strict",
        secure: new URL(c.req.url).protocol === "https:",
        maxAge: SESSION_HOURS * 3600,
      });
      setSignedInHint(c, SESSION_HOURS * 3600);
      return c.json(wire(s, tenant?.name ?? ""), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "getSession",
      tags: ["session"],
      summary: "The dashboard session of this browser",
      description:
        "401 when the browser has no live session (never signed in, signed out, expired, or its key revoked).",
      security: sessionSecurity,
      responses: {
        200: jsonResponse(DashboardSessionSchema, "Who is signed in, and the CSRF token"),
        ...problems(401, 404),
      },
    }),
    (c) => {
      const s = requireSession(c);
      return c.json(wire(s, s.tenantName), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/",
      operationId: "deleteSession",
      tags: ["session"],
      summary: "Sign out: the session ends on the server and the cookie is cleared",
      security: sessionSecurity,
      responses: { 204: { description: "Signed out" }, ...problems(401, 404) },
    }),
    async (c) => {
      const s = requireSession(c);
      await deleteSession(c.var.db, s.id);
      deleteCookie(c, SESSION_COOKIE, { path: SESSION_COOKIE_PATH, secure: new URL(c.req.url).protocol === "https:" });
      clearSignedInHint(c);
      return c.body(null, 204);
    },
  );
