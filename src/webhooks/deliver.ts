import { openDb } from "../db/client.ts";
import { getRunById } from "../db/runs.ts";
import { runJson } from "../runs/wire.ts";
import { getWebhookSecret, insertDelivery } from "../db/webhooks.ts";
import { newId } from "../ids.ts";
import { decryptSecret } from "../secrets.ts";
import type { WebhookMessage } from "../runs/messages.ts";
import { signWebhook } from "./sign.ts";

/** Attempts per message before it is given up (each recorded); the queue's own max_retries is higher. */
export const WEBHOOK_MAX_ATTEMPTS = 8;
const TIMEOUT_MS = 10_000;

/** Exponential backoff between attempts: base, 2·base, 4·base, … capped at one hour. */
export function webhookRetryDelaySeconds(attempt: number, baseSeconds: number): number {
  return Math.min(3600, baseSeconds * 2 ** (attempt - 1));
}

/**
 * Delivers one attempt of a run's final event and records it. Returns the delay before the next
 * attempt, or null when the message is done (delivered, given up, or no longer deliverable).
 */
export async function deliverWebhook(env: Env, msg: WebhookMessage, attempt: number): Promise<number | null> {
  const db = openDb(env.DB);
  const run = await getRunById(db, msg.runId);
  if (!run?.webhookUrl) return null;
  const secretRow = await getWebhookSecret(db, run.tenantId);
  const timestamp = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: msg.event, timestamp: new Date(timestamp * 1000).toISOString(), data: runJson(run) });
  const started = Date.now();
  let responseStatus: number | null = null;
  let error: string | null = null;
  try {
    if (!secretRow) throw new Error("the tenant has no webhook secret (POST /v1/webhooks/secret)");
    const secret = await decryptSecret(env.SECRETS_KEY, secretRow.secretEnc);
    const res = await fetch(run.webhookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "assay-webhooks/1",
        "webhook-id": msg.messageId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signWebhook(secret, msg.messageId, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: "manual",
    });
    responseStatus = res.status;
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) error = `receiver answered HTTP ${res.status}`;
  } catch (err) {
    error = err instanceof Error && err.name === "TimeoutError" ? `no answer within ${TIMEOUT_MS} ms` : String(err instanceof Error ? err.message : err);
  }
  await insertDelivery(db, {
    id: newId("dlv"),
    messageId: msg.messageId,
    runId: run.id,
    tenantId: run.tenantId,
    event: msg.event,
    url: run.webhookUrl,
    attempt,
    status: error ? "failed" : "succeeded",
    responseStatus,
    error,
    durationMs: Date.now() - started,
    createdAt: new Date(),
  });
  if (!error || attempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  return webhookRetryDelaySeconds(attempt, Number(env.WEBHOOK_BACKOFF_SECONDS ?? "5"));
}
