/**
 * The one route that creates runs: `POST /v1/<evaluator>/runs` for any evaluator plug-in. The plug-in
 * turns the request into its run(s) (src/runs/plugin/plugin.ts); this adds what every evaluator shares:
 * the Idempotency-Key header, `concurrency` and `webhook_url`, createRun / createRunGroup (idempotency,
 * all-or-nothing creation, the start) and the 202 with the run and its links.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { bodyProblems, jsonBody, jsonResponse, problems, tenantSecurity } from "./openapi.ts";
import { RunGroupSchema, RunSchema, runWire } from "./run-schemas.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { LIMITS } from "../limits.ts";
import { createRun, createRunGroup, type NewRun } from "../runs/creation/create.ts";
import type { EvaluatorPlugin, NewRunOf } from "../runs/plugin/plugin.ts";
import { withConcurrencyBound, type RunFieldsBody } from "../runs/plugin/run-fields.ts";
import { admitRuns, releaseRuns } from "../quotas/index.ts";

const IdempotencyHeader = z.object({
  "idempotency-key": z.string().min(1).max(LIMITS.idempotencyKeyChars).optional().openapi({
    description: "The same key and body return the same run (202 again); the same key with another body is a 422",
  }),
});

/** The router that serves `POST /runs` for `plugin`; mount it at `/v1/<plugin.name>`. */
export function evaluatorRuns<Body extends RunFieldsBody>(plugin: EvaluatorPlugin<Body, unknown, unknown>) {
  const single = jsonResponse(RunSchema, "The run, queued (or, for an Idempotency-Key replay, as it is now)");
  const created = plugin.route.groups
    ? {
        description: "The run, or the group of runs when the request makes several",
        content: { "application/json": { schema: z.union([RunSchema, RunGroupSchema]) } },
      }
    : single;
  return createRouter().openapi(
    createRoute({
      method: "post",
      path: "/runs",
      operationId: plugin.route.operationId,
      tags: [plugin.name],
      summary: plugin.route.summary,
      description: plugin.route.description,
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { headers: IdempotencyHeader, body: jsonBody(plugin.schemas.request) },
      responses: { 202: created, ...problems(...bodyProblems, 409, 422, 429) },
    }),
    async (c) => {
      const valid = c.req.valid("json") as Body;
      // Without a `concurrency` the run adapts (createRun hears `bound` undefined).
      const bound = valid.concurrency;
      const body = withConcurrencyBound(valid);
      const { db, tenantId } = c.var;
      const idempotencyKey = c.req.valid("header")["idempotency-key"];
      // The tenant's quotas, asked once the request is known to make new runs (src/quotas).
      const admit = (runs: { id: string; units: number }[]) => admitRuns(c.env, tenantId, runs);
      const release = (runs: { id: string; units: number }[]) => releaseRuns(c.env, tenantId, runs);
      const creation = await plugin.create(body, { env: c.env, db, tenantId, allowLoopback: loopbackAllowed(c.env) });
      const newRun = (r: NewRunOf<unknown>, partBody: unknown): NewRun => ({
        evaluator: plugin.name,
        config: r.config as object,
        publicConfig: r.publicConfig,
        secrets: r.secrets,
        leaseMs: r.leaseMs,
        webhookUrl: body.webhook_url,
        concurrency: bound,
        body: partBody,
        admit,
        release,
      });
      if (!("group" in creation)) {
        const { run } = await createRun(c.env, db, tenantId, { ...newRun(creation, body), idempotencyKey });
        return c.json(runWire(run), 202);
      }
      // The runs of one request share a group id, kept in each run's config; a replay with the
      // Idempotency-Key returns the first request's group id and runs (see createRunGroup).
      const parts = creation.group.map((p) => ({
        name: p.name,
        run: (groupId: string) => newRun(p.run(groupId), p.body),
      }));
      const group = await createRunGroup(c.env, db, tenantId, {
        evaluator: plugin.name,
        body,
        idempotencyKey,
        admit,
        release,
        parts,
      });
      return c.json({ object: "run_group" as const, group_id: group.groupId, runs: group.runs.map(runWire) }, 202);
    },
  );
}
