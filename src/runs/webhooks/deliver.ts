import { openDb } from "../../db/client.ts";
import { getRunById } from "../../db/runs.ts";
import { runJson } from "../results/wire.ts";
import { getWebhookSecret, insertDelivery } from "../../db/webhooks.ts";
import { newId } from "../../ids.ts";
import { loopbackAllowed } from "../../net/destination.ts";
import { decryptSecret } from "../../secrets.ts";
import type { RunEvent } from "../lanes/messages.ts";
import { signWebhook } from "./sign.ts";
import { webhookUrlProblem } from "./url.ts";
import { charge } from "../../platform/invocation.ts";

/** Attempts of one sending of a message (each recorded); a re-send starts another series. */
export const WEBHOOK_MAX_ATTEMPTS = 8;
/** A receiver gets this long to answer an attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Exponential backoff after the n-th failed attempt of a series: base, 2·base, 4·base, … capped at one hour. */
export function webhookRetryDelaySeconds(attempt: number, baseSeconds: number): number {
  return Math.min(3600, baseSeconds * 2 ** (attempt - 1));
}

/** A run's final event as it is sent: `messageId` is the `webhook-id`, the same on every attempt. */
export type RunEventMessage = { runId: string; messageId: string; event: RunEvent };

/**
 * What one attempt came to: `delivered` (2xx), `failed` (worth another attempt: no answer, an error
 * status, no signing secret yet), `refused` (the URL breaks the destination policy: nothing was sent,
 * and nothing ever will be), or `gone` (the run no longer names a webhook_url).
 */
export type DeliveryOutcome = "delivered" | "failed" | "refused" | "gone";

/**
 * Makes attempt number `attempt` of a run's final event and records it in the run's delivery list.
 * The URL is checked against the destination policy again first (it was checked when the run was
 * created, but the setting may differ here, and a redirect is never followed): a refused URL is a
 * failed attempt saying why, made without any request. Throws only when the attempt could not be made
 * or recorded (D1 unavailable); the caller tries again later without counting it.
 */
export async function deliverWebhook(env: Env, msg: RunEventMessage, attempt: number): Promise<DeliveryOutcome> {
  const db = openDb(env.DB);
  const run = await getRunById(db, msg.runId);
  if (!run?.webhookUrl) return "gone";
  const started = Date.now();
  let outcome: DeliveryOutcome = "failed";
  let responseStatus: number | null = null;
  let error: string | null = null;
  const refusal = webhookUrlProblem(run.webhookUrl, loopbackAllowed(env));
  if (refusal) {
    outcome = "refused";
    error = `not sent: webhook_url ${refusal}`;
  } else {
    const secretRow = await getWebhookSecret(db, run.tenantId);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      type: msg.event,
      timestamp: new Date(timestamp * 1000).toISOString(),
      data: runJson(run),
    });
    try {
      if (!secretRow) throw new Error("the tenant has no webhook secret (POST /v1/webhooks/secret)");
      const secret = await decryptSecret(env.SECRETS_KEY, secretRow.secretEnc);
      charge("subrequest");
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
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        // A redirect is an answer, not an instruction: following it would send the event to a URL the
        // destination policy never saw.
        redirect: "manual",
      });
      responseStatus = res.status;
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) outcome = "delivered";
      else error = `receiver answered HTTP ${res.status}`;
    } catch (err) {
      error =
        err instanceof Error && err.name === "TimeoutError"
          ? `no answer within ${WEBHOOK_TIMEOUT_MS} ms`
          : String(err instanceof Error ? err.message : err);
    }
  }
  await insertDelivery(db, {
    id: newId("dlv"),
    messageId: msg.messageId,
    runId: run.id,
    tenantId: run.tenantId,
    event: msg.event,
    url: run.webhookUrl,
    attempt,
    status: outcome === "delivered" ? "succeeded" : "failed",
    responseStatus,
    error,
    durationMs: Date.now() - started,
    createdAt: new Date(),
  });
  return outcome;
}
