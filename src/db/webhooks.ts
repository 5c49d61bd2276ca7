import { asc, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { webhookDeliveries, webhookSecrets } from "./schema.ts";
import { listPage } from "./page.ts";

export type WebhookSecretRow = typeof webhookSecrets.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

export async function getWebhookSecret(db: Db, tenantId: string): Promise<WebhookSecretRow | undefined> {
  return db.select().from(webhookSecrets).where(eq(webhookSecrets.tenantId, tenantId)).get();
}

/** Creates the tenant's secret or replaces it (rotation). */
export async function putWebhookSecret(db: Db, row: WebhookSecretRow): Promise<void> {
  await db
    .insert(webhookSecrets)
    .values(row)
    .onConflictDoUpdate({
      target: webhookSecrets.tenantId,
      set: { secretEnc: row.secretEnc, createdAt: row.createdAt },
    });
}

export async function insertDelivery(db: Db, row: WebhookDeliveryRow): Promise<void> {
  await db.insert(webhookDeliveries).values(row);
}

/** A run's delivery attempts, newest first. */
export async function listDeliveries(db: Db, runId: string, opts: { limit: number; after?: string }) {
  return listPage(db, webhookDeliveries, eq(webhookDeliveries.runId, runId), opts);
}

/** The message id of a run's first delivery, so a re-send is the same message. */
export async function firstDeliveryMessageId(db: Db, runId: string): Promise<string | undefined> {
  const row = await db
    .select({ messageId: webhookDeliveries.messageId })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.runId, runId))
    .orderBy(asc(webhookDeliveries.id))
    .get();
  return row?.messageId;
}

export function deliveryToWire(d: WebhookDeliveryRow) {
  return {
    id: d.id,
    message_id: d.messageId,
    event: d.event,
    url: d.url,
    attempt: d.attempt,
    status: d.status,
    response_status: d.responseStatus,
    error: d.error,
    duration_ms: d.durationMs,
    created_at: d.createdAt.toISOString(),
  };
}
