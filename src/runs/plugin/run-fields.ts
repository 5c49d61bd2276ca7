import { z } from "@hono/zod-openapi";
import { LIMITS } from "../../limits.ts";

/**
 * The request fields every run creation takes, whatever the evaluator: read by the generic route
 * (src/routes/evaluator-runs.ts), which hands `concurrency` and `webhook_url` to createRun. Each
 * module's request schema spreads them, so the document shows them in every request.
 */
export const RunFields = {
  concurrency: z.number().int().min(1).max(LIMITS.concurrency).optional().openapi({
    description:
      "At most this many units of the run in flight at once (replays, samples, critic calls, generations); either way, calls to a model endpoint also wait for the limiter the tenant's runs share with that endpoint, which climbs while answers come back quickly and backs off on 429s and overload answers. Omitted: the run adapts its number of lanes to that limiter, up to the maximum (see `Run.endpoint`).",
  }),
  webhook_url: z.string().max(2000).optional().openapi({
    description:
      "Gets `run.succeeded`, `run.failed` or `run.canceled` (Standard Webhooks); the tenant needs a signing secret first",
  }),
};

export type RunFieldsBody = { concurrency?: number; webhook_url?: string };

/** The body as a module's `create` takes it: an omitted `concurrency` (an adaptive run) is its bound, the maximum. */
export function withConcurrencyBound<Body extends RunFieldsBody>(body: Body): Body & { concurrency: number } {
  return { ...body, concurrency: body.concurrency ?? LIMITS.concurrency };
}

/** A model's settings as a run's public config shows them (the ModelSettings of chain-determinism and rpl). */
export const ModelSettingsSchema = {
  model: z.string(),
  provider: z
    .object({
      base_url: z.string(),
      connection: z
        .string()
        .optional()
        .openapi({ description: "The saved provider connection the endpoint came from, if the request named one" }),
    })
    .nullable(),
  timeout_s: z.number(),
  seed: z.number().int().nullable(),
  simulator: z.object({ divergence: z.number().optional(), latency_ms: z.number() }).nullable(),
};

/** Token usage as the endpoints report it, summed (usage.ts). */
// Not a named component: zod-to-openapi drops the `null` of `.nullable()` on a named schema (it writes a
// bare $ref), and most uses of this one are nullable.
export const UsageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

/**
 * `schema` or null, for a named (registered) schema: `.nullable()` on one loses the null in the
 * document (zod-to-openapi 9 writes a bare $ref), so this writes `anyOf: [$ref, null]`.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}
