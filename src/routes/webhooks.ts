import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { getWebhookSecret, putWebhookSecret } from "../db/webhooks.ts";
import { encryptSecret } from "../secrets.ts";
import { newWebhookSecret } from "../runs/webhooks/sign.ts";

const SecretSchema = z
  .object({
    secret: z.string().openapi({
      description: "`whsec_…`: shown only in this response. Verify signatures with any Standard Webhooks library.",
    }),
    created_at: z.string(),
  })
  .openapi("WebhookSecret");

const SecretInfoSchema = z
  .object({ exists: z.boolean(), created_at: z.string().nullable() })
  .openapi("WebhookSecretInfo");

export const webhooks = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/secret",
      operationId: "rotateWebhookSecret",
      tags: ["webhooks"],
      summary: "Create or rotate the tenant's webhook signing secret",
      description: "Every later delivery is signed with the new secret. The secret is shown once and stored encrypted.",
      security: tenantSecurity,
      responses: { 201: jsonResponse(SecretSchema, "The new secret"), ...problems(401) },
    }),
    async (c) => {
      const secret = newWebhookSecret();
      const row = {
        tenantId: c.var.tenantId,
        secretEnc: await encryptSecret(c.env.SECRETS_KEY, secret),
        createdAt: new Date(),
      };
      await putWebhookSecret(c.var.db, row);
      return c.json({ secret, created_at: row.createdAt.toISOString() }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/secret",
      operationId: "getWebhookSecretInfo",
      tags: ["webhooks"],
      summary: "Whether the tenant has a webhook secret (never the secret itself)",
      security: tenantSecurity,
      responses: { 200: jsonResponse(SecretInfoSchema, "Secret metadata"), ...problems(401) },
    }),
    async (c) => {
      const row = await getWebhookSecret(c.var.db, c.var.tenantId);
      return c.json({ exists: !!row, created_at: row?.createdAt.toISOString() ?? null }, 200);
    },
  );
