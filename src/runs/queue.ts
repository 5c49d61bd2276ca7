import { laneName, type QueueMessage } from "./messages.ts";
import { deliverWebhook } from "../webhooks/deliver.ts";

/**
 * The Queue consumer for both queues. A unit message is handed to its lane's UnitRunner (which
 * returns at once); a webhook message is one delivery attempt, retried through the queue with backoff.
 */
export async function handleQueue(batch: MessageBatch<QueueMessage>, env: Env, _ctx?: ExecutionContext): Promise<void> {
  await Promise.all(
    batch.messages.map(async (m) => {
      try {
        if (m.body.kind === "unit") {
          const { runId, lane } = m.body;
          await env.UNITS.getByName(laneName(runId, lane)).start(m.body);
          m.ack();
        } else {
          const delay = await deliverWebhook(env, m.body, m.attempts);
          if (delay === null) m.ack();
          else m.retry({ delaySeconds: delay });
        }
      } catch (err) {
        console.error(JSON.stringify({ level: "error", queue: batch.queue, error: String(err) }));
        m.retry({ delaySeconds: 1 });
      }
    }),
  );
}
