import { newId } from "../ids.ts";
import type { RunRow } from "../db/runs.ts";
import type { RunEvent, WebhookMessage } from "../runs/messages.ts";

export function runEvent(status: string): RunEvent | null {
  if (status === "succeeded" || status === "failed" || status === "canceled") return `run.${status}`;
  return null;
}

/** Queues the final event of a run that names a webhook_url. `messageId` is reused to re-send the same message. */
export async function enqueueRunEvent(env: Env, run: RunRow, messageId = newId("msg")): Promise<string | null> {
  const event = runEvent(run.status);
  if (!run.webhookUrl || !event) return null;
  const body: WebhookMessage = { kind: "webhook", runId: run.id, messageId, event, attempt: 1 };
  await env.WEBHOOK_QUEUE.send(body, { contentType: "json" });
  return messageId;
}
