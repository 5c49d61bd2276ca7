/**
 * Saved provider connections: a tenant stores an OpenAI-compatible endpoint and its key once, under a
 * name, and runs name it (`provider: {connection: "<name>"}`) instead of sending the key each time
 * (runs/plugin/connections.ts resolves it when a run is created). The key is encrypted under SECRETS_KEY
 * and never returned: a connection shows its URL, whether it has a key, and the key's last four
 * characters (only for keys of 16 characters or more, of which four say little).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonBody, jsonResponse, pageOf, PageQuery, problems, bodyProblems, tenantSecurity } from "./openapi.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { LIMITS } from "../limits.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import { encryptSecret } from "../secrets.ts";
import {
  connectionToWire,
  countConnections,
  deleteConnection,
  getConnection,
  insertConnection,
  listConnections,
  putConnection,
  type ProviderConnectionRow,
} from "../db/provider-connections.ts";
import { BaseUrl, checkEndpointUrls, ConnectionName, ProviderKey } from "../runs/plugin/model-fields.ts";

/** Keys shorter than this show no last four characters: four of a short key are too much of it. */
const LAST4_MIN_CHARS = 16;

const ProviderConnectionSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: "What runs write in `provider.connection`" }),
    base_url: z.string(),
    has_api_key: z.boolean(),
    api_key_last4: z.string().nullable().openapi({
      description:
        "The key's last four characters, to tell keys apart; null without a key or for a key shorter than 16 characters. The key itself is never returned",
    }),
    created_at: z.string(),
    updated_at: z.string().openapi({ description: "When the endpoint or key was last replaced (PUT)" }),
  })
  .openapi("ProviderConnection");

const Endpoint = {
  base_url: BaseUrl.openapi({
    description: "An OpenAI-compatible endpoint, checked as a run's `provider.base_url` is",
    example: "https://openrouter.ai/api/v1",
  }),
  api_key: ProviderKey.optional().openapi({
    description:
      "Secret: stored encrypted, never returned, logged or shown; sent only as `Authorization: Bearer` to `base_url` by runs that name this connection. Leave it out for an endpoint that needs none",
  }),
};

const CreateBody = z
  .strictObject({ name: ConnectionName.openapi({ description: "Unique among the tenant's connections" }), ...Endpoint })
  .openapi("CreateProviderConnectionRequest");

const ReplaceBody = z.strictObject(Endpoint).openapi("ReplaceProviderConnectionRequest");

const NameParam = z.object({
  name: ConnectionName.openapi({ param: { name: "name", in: "path" }, example: "openrouter" }),
});

/** The row a request stores: the key encrypted, its last four characters if it is long enough. */
async function rowOf(
  env: Env,
  tenantId: string,
  name: string,
  body: { base_url: string; api_key?: string },
): Promise<ProviderConnectionRow> {
  checkEndpointUrls([["base_url", body.base_url]], loopbackAllowed(env));
  const key = body.api_key;
  const now = new Date();
  return {
    id: newId("prv"),
    tenantId,
    name,
    baseUrl: body.base_url,
    apiKeyEnc: key === undefined ? null : await encryptSecret(env.SECRETS_KEY, key),
    apiKeyLast4: key !== undefined && key.length >= LAST4_MIN_CHARS ? key.slice(-4) : null,
    createdAt: now,
    updatedAt: now,
  };
}

const tooMany = () =>
  new ApiError({
    status: 422,
    type: "limit-exceeded",
    detail: `A tenant may keep at most ${LIMITS.providerConnectionsPerTenant} provider connections; delete one first.`,
  });

const taken = (name: string) =>
  new ApiError({
    status: 409,
    type: "conflict",
    detail: `A provider connection named '${name}' exists; replace it with PUT /v1/providers/${name}, or delete it first.`,
  });

export const providers = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createProviderConnection",
      tags: ["providers"],
      summary: "Save a provider connection: a name for an endpoint and its key",
      description:
        'Runs then name it as `provider: {"connection": "<name>"}` instead of `base_url` and `api_key`. The key is encrypted and never returned. A name already used by the tenant is a 409.',
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(CreateBody) },
      responses: {
        201: jsonResponse(ProviderConnectionSchema, "The saved connection (without its key)"),
        ...problems(...bodyProblems, 409, 422),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const row = await rowOf(c.env, c.var.tenantId, body.name, body);
      if ((await countConnections(c.var.db, c.var.tenantId)) >= LIMITS.providerConnectionsPerTenant) throw tooMany();
      if (!(await insertConnection(c.var.db, row))) throw taken(body.name);
      return c.json(connectionToWire(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listProviderConnections",
      tags: ["providers"],
      summary: "List the tenant's provider connections (never their keys)",
      security: tenantSecurity,
      request: { query: PageQuery },
      responses: {
        200: jsonResponse(pageOf(ProviderConnectionSchema, "ProviderConnectionPage"), "Connections, newest first"),
        ...problems(400, 401),
      },
    }),
    async (c) => {
      const page = await listConnections(c.var.db, c.var.tenantId, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(connectionToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{name}",
      operationId: "getProviderConnection",
      tags: ["providers"],
      summary: "Get a provider connection by name (never its key)",
      security: tenantSecurity,
      request: { params: NameParam },
      responses: { 200: jsonResponse(ProviderConnectionSchema, "The connection"), ...problems(400, 401, 404) },
    }),
    async (c) => {
      const row = await getConnection(c.var.db, c.var.tenantId, c.req.valid("param").name);
      if (!row) throw ApiError.notFound("The provider connection");
      return c.json(connectionToWire(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/{name}",
      operationId: "replaceProviderConnection",
      tags: ["providers"],
      summary: "Replace a provider connection's endpoint and key (or create it)",
      description:
        "Replaces the whole connection: `base_url`, and `api_key` (left out, the connection keeps no key). Rotate a key this way. Runs created before keep the endpoint and key they were created with; later runs use the new ones. A name not saved yet is created (201).",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { params: NameParam, body: jsonBody(ReplaceBody) },
      responses: {
        200: jsonResponse(ProviderConnectionSchema, "The connection, replaced"),
        201: jsonResponse(ProviderConnectionSchema, "The connection, created"),
        ...problems(...bodyProblems, 404, 422),
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const row = await rowOf(c.env, c.var.tenantId, name, c.req.valid("json"));
      // The limit counts only new names: a replacement adds nothing.
      if (
        !(await getConnection(c.var.db, c.var.tenantId, name)) &&
        (await countConnections(c.var.db, c.var.tenantId)) >= LIMITS.providerConnectionsPerTenant
      )
        throw tooMany();
      const { row: stored, created } = await putConnection(c.var.db, row);
      return c.json(connectionToWire(stored), created ? 201 : 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{name}",
      operationId: "deleteProviderConnection",
      tags: ["providers"],
      summary: "Delete a provider connection and its key",
      description:
        "Runs already created keep their own copy of the endpoint and key, and finish; later runs naming it are a 400.",
      security: tenantSecurity,
      request: { params: NameParam },
      responses: { 204: { description: "Deleted" }, ...problems(400, 401, 404) },
    }),
    async (c) => {
      if (!(await deleteConnection(c.var.db, c.var.tenantId, c.req.valid("param").name)))
        throw ApiError.notFound("The provider connection");
      return c.body(null, 204);
    },
  );
