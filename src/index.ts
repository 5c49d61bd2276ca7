import { createApp } from "./app.ts";
import { handleQueue } from "./runs/queue.ts";
import { sweepLostStarts } from "./runs/recover.ts";
import { openDb } from "./db/client.ts";
import type { QueueMessage } from "./runs/messages.ts";

export { RunCoordinator } from "./durable/run-coordinator.ts";
export { UnitRunner } from "./durable/unit-runner.ts";
export { WebhookSender } from "./webhooks/sender.ts";
export { EndpointLimiter } from "./durable/endpoint-limiter.ts";

const app = createApp();

// `satisfies` keeps the handlers' concrete types, so tests can call them directly.
export default {
  fetch: app.fetch,
  queue: handleQueue,
  // Every minute (wrangler.jsonc "triggers"): ends runs whose start was lost, even when nobody reads them.
  scheduled: (_controller, env, ctx) => ctx.waitUntil(sweepLostStarts(env, openDb(env.DB))),
} satisfies ExportedHandler<Env, QueueMessage>;
