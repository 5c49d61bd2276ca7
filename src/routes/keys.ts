import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import {
  IdParam,
  jsonBody,
  jsonResponse,
  pageOf,
  PageQuery,
  problems,
  bodyProblems,
  tenantSecurity,
  adminSecurity,
} from "./openapi.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { requireAdmin } from "../middleware/auth.ts";
import { LIMITS } from "../limits.ts";
import { ApiError } from "../errors.ts";
import {
  apiKeyToWire,
  createApiKey,
  createTenant,
  getTenant,
  listApiKeys,
  listTenants,
  tenantToWire,
} from "../db/tenants.ts";
import { revokeKey } from "../auth/verified-keys.ts";
import { KEY_CACHE_LIMITS } from "../auth/key-cache-limits.ts";

export const ApiKeySchema = z
  .object({
    id: z.string(),
    tenant_id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "First characters of the key, to tell keys apart" }),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");

const ApiKeyPageSchema = pageOf(ApiKeySchema, "ApiKeyPage");

const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The secret. Shown only in this response; store it now." }),
}).openapi("CreatedApiKey");

const TenantSchema = z.object({ id: z.string(), name: z.string(), created_at: z.string() }).openapi("Tenant");

const CreatedTenantSchema = TenantSchema.extend({ api_key: CreatedApiKeySchema }).openapi("CreatedTenant");

const NameBody = z.strictObject({ name: z.string().trim().min(1).max(200) });
const KeyNameBody = z.strictObject({ name: z.string().trim().min(1).max(200).default("default") });
const TenantParam = IdParam("tenant_id", "ten_0mhx3k2q1abcdefghij");
const KeyParam = IdParam("key_id", "key_0mhx3k2q1abcdefghij");

// Verified keys are cached at the edge (auth/key-cache-limits.ts), so a revocation is not instant everywhere.
const REVOCATION_DELAY =
  `Takes effect everywhere within ${KEY_CACHE_LIMITS.revocationBoundSeconds} s: at once for the server that answers this call, ` +
  `and usually within ${KEY_CACHE_LIMITS.isolateTtlMs / 1000 + KEY_CACHE_LIMITS.kvPropagationSeconds} s elsewhere. ` +
  "A dashboard session of the key ends at once.";

function createdKey(k: Awaited<ReturnType<typeof createApiKey>>) {
  return { ...apiKeyToWire(k.key), key: k.secret };
}

/** Tenants manage their own keys: rotate by creating a new one, then revoking the old. */
export const keys = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listKeys",
      tags: ["keys"],
      summary: "List the caller's API keys",
      security: tenantSecurity,
      request: { query: PageQuery },
      responses: { 200: jsonResponse(ApiKeyPageSchema, "Keys, newest first"), ...problems(400, 401) },
    }),
    async (c) => {
      const page = await listApiKeys(c.var.db, c.var.tenantId, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(apiKeyToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createKey",
      tags: ["keys"],
      summary: "Create an API key for the caller's tenant",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(KeyNameBody) },
      responses: {
        201: jsonResponse(CreatedApiKeySchema, "The new key, with its secret"),
        ...problems(...bodyProblems),
      },
    }),
    async (c) => {
      const created = await createApiKey(c.var.db, c.var.tenantId, c.req.valid("json").name);
      return c.json(createdKey(created), 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{key_id}",
      operationId: "revokeKey",
      tags: ["keys"],
      summary: "Revoke one of the caller's API keys",
      description: REVOCATION_DELAY + " Revoking the key used for this call is allowed.",
      security: tenantSecurity,
      request: { params: KeyParam },
      responses: { 200: jsonResponse(ApiKeySchema, "The revoked key"), ...problems(401, 404) },
    }),
    async (c) => {
      const key = await revokeKey({ db: c.var.db, kv: c.env.KEY_CACHE }, c.req.valid("param").key_id, c.var.tenantId);
      if (!key) throw ApiError.notFound("The API key");
      return c.json(apiKeyToWire(key), 200);
    },
  );

/** Operator routes, behind ADMIN_TOKEN: tenants and their keys. */
export const admin = createRouter();
admin.use("*", requireAdmin);
admin
  .openapi(
    createRoute({
      method: "post",
      path: "/tenants",
      operationId: "adminCreateTenant",
      tags: ["admin"],
      summary: "Create a tenant and its first API key",
      security: adminSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(NameBody) },
      responses: {
        201: jsonResponse(CreatedTenantSchema, "The tenant, with its first key's secret"),
        ...problems(...bodyProblems),
      },
    }),
    async (c) => {
      const tenant = await createTenant(c.var.db, c.req.valid("json").name);
      const key = await createApiKey(c.var.db, tenant.id, "default");
      return c.json({ ...tenantToWire(tenant), api_key: createdKey(key) }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/tenants",
      operationId: "adminListTenants",
      tags: ["admin"],
      summary: "List tenants",
      security: adminSecurity,
      request: { query: PageQuery },
      responses: {
        200: jsonResponse(pageOf(TenantSchema, "TenantPage"), "Tenants, newest first"),
        ...problems(400, 401),
      },
    }),
    async (c) => {
      const page = await listTenants(c.var.db, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(tenantToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/tenants/{tenant_id}/keys",
      operationId: "adminCreateKey",
      tags: ["admin"],
      summary: "Create an API key for a tenant",
      security: adminSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { params: TenantParam, body: jsonBody(KeyNameBody) },
      responses: {
        201: jsonResponse(CreatedApiKeySchema, "The new key, with its secret"),
        ...problems(...bodyProblems, 404),
      },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid("param");
      if (!(await getTenant(c.var.db, tenant_id))) throw ApiError.notFound("The tenant");
      const created = await createApiKey(c.var.db, tenant_id, c.req.valid("json").name);
      return c.json(createdKey(created), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/tenants/{tenant_id}/keys",
      operationId: "adminListKeys",
      tags: ["admin"],
      summary: "List a tenant's API keys",
      security: adminSecurity,
      request: { params: TenantParam, query: PageQuery },
      responses: { 200: jsonResponse(ApiKeyPageSchema, "Keys, newest first"), ...problems(400, 401, 404) },
    }),
    async (c) => {
      const { tenant_id } = c.req.valid("param");
      if (!(await getTenant(c.var.db, tenant_id))) throw ApiError.notFound("The tenant");
      const page = await listApiKeys(c.var.db, tenant_id, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(apiKeyToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/keys/{key_id}",
      operationId: "adminRevokeKey",
      tags: ["admin"],
      summary: "Revoke any API key",
      description: REVOCATION_DELAY,
      security: adminSecurity,
      request: { params: KeyParam },
      responses: { 200: jsonResponse(ApiKeySchema, "The revoked key"), ...problems(401, 404) },
    }),
    async (c) => {
      const key = await revokeKey({ db: c.var.db, kv: c.env.KEY_CACHE }, c.req.valid("param").key_id);
      if (!key) throw ApiError.notFound("The API key");
      return c.json(apiKeyToWire(key), 200);
    },
  );
