import { createApp } from "./app.ts";
import { handleQueue } from "./runs/queue.ts";
import type { QueueMessage } from "./runs/messages.ts";

export { RunCoordinator } from "./durable/run-coordinator.ts";
export { UnitRunner } from "./durable/unit-runner.ts";

const app = createApp();

// `satisfies` keeps the handlers' concrete types, so tests can call them directly.
export default {
  fetch: app.fetch,
  queue: handleQueue,
} satisfies ExportedHandler<Env, QueueMessage>;
