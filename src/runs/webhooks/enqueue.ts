import { newId } from "../../ids.ts";
import type { RunRow } from "../../db/runs.ts";
import type { RunEvent } from "../lanes/messages.ts";

export function runEvent(status: string): RunEvent | null {
  if (status === "succeeded" || status === "failed" || status === "canceled") return `run.${status}`;
  return null;
}

/**
 * Sends the final event of a run that names a webhook_url, through the message's own WebhookSender
 * (sender.ts), which has stored it and set its alarm when this returns. `messageId` is reused to
 * re-send the same message (same `webhook-id`).
 */
export async function enqueueRunEvent(env: Env, run: RunRow, messageId = newId("msg")): Promise<string | null> {
  const event = runEvent(run.status);
  if (!run.webhookUrl || !event) return null;
  await env.WEBHOOKS.getByName(messageId).send({ runId: run.id, messageId, event });
  return messageId;
}
