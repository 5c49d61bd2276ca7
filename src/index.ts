import { createApp } from "./app.ts";
import { handleQueue } from "./runs/lanes/queue.ts";
import { housekeeping } from "./runs/lifetime/housekeeping.ts";
import { openDb } from "./db/client.ts";
import type { QueueMessage } from "./runs/lanes/messages.ts";
import { invocation } from "./platform/invocation.ts";
import { countedEnv } from "./platform/counted-env.ts";

export { RunCoordinator } from "./runs/coordinator/run-coordinator.ts";
export { UnitRunner } from "./runs/lanes/unit-runner.ts";
export { WebhookSender } from "./runs/webhooks/sender.ts";
export { EndpointLimiter } from "./runs/limiter/endpoint-limiter.ts";
export { TenantQuota } from "./quotas/tenant-quota.ts";

const app = createApp();

// `satisfies` keeps the handlers' concrete types, so tests can call them directly.
export default {
  // Each handler is one invocation with its own D1 and subrequest budget, counted as production does.
  fetch: (request, env, ctx) =>
    invocation(`fetch ${request.method} ${new URL(request.url).pathname}`, () =>
      app.fetch(request, countedEnv(env), ctx),
    ),
  queue: (batch, env, ctx) => invocation(`queue ${batch.queue}`, () => handleQueue(batch, countedEnv(env), ctx)),
  // Every minute (wrangler.jsonc "triggers"): lost starts, retention and deletions (runs/lifetime/housekeeping.ts).
  scheduled: (_controller, env, ctx) =>
    invocation("scheduled", () => ctx.waitUntil(housekeeping(countedEnv(env), openDb(env.DB)))),
} satisfies ExportedHandler<Env, QueueMessage>;
