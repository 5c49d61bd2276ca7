import { laneName, type QueueMessage } from "./messages.ts";

/**
 * The Queue consumer: a unit message is handed to its lane's UnitRunner, which returns at once. (Webhook
 * events do not travel by Queue: each message has its own WebhookSender, see webhooks/sender.ts.)
 */
export async function handleQueue(batch: MessageBatch<QueueMessage>, env: Env, _ctx?: ExecutionContext): Promise<void> {
  await Promise.all(
    batch.messages.map(async (m) => {
      if (m.body.kind !== "unit") {
        // Nothing sends any other kind; a stray message would only come back for ever.
        console.error(
          JSON.stringify({
            level: "warn",
            queue: batch.queue,
            error: `unexpected message kind: ${String(m.body.kind)}`,
          }),
        );
        return m.ack();
      }
      try {
        const { runId, lane } = m.body;
        await env.UNITS.getByName(laneName(runId, lane)).start(m.body);
        m.ack();
      } catch (err) {
        console.error(JSON.stringify({ level: "error", queue: batch.queue, error: String(err) }));
        m.retry({ delaySeconds: 1 });
      }
    }),
  );
}
