import { createRoute, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { createRouter } from "./router.ts";
import { IdParam, jsonResponse, pageOf, PageQuery, problems, tenantSecurity } from "./openapi.ts";
import { RunPage, RunResultSchema, RunSchema, runWire, SamplePage, sampleWire, STATUSES } from "./run-schemas.ts";
import { ApiError } from "../errors.ts";
import { FINAL_STATUSES, getRun, listRuns, listSamples, type RunRow } from "../db/runs.ts";
import { deliveryToWire, firstDeliveryMessageId, listDeliveries } from "../db/webhooks.ts";
import { evaluators } from "../evaluators/registry.ts";
import { storedSample } from "../runs/plugin/types.ts";
import { enqueueRunEvent } from "../runs/webhooks/enqueue.ts";
import { cancelRun, settleLostStart } from "../runs/recovery/recover.ts";
import { resultBody } from "../runs/results/result-store.ts";
import { deleteRunData, QueryBudget, REQUEST_DELETION_QUERIES } from "../runs/lifetime/delete.ts";
import { markRunDeleting } from "../db/lifetime.ts";
import { sseSink, streamNow, writeRunEvents } from "../runs/events/events.ts";
import { parseCursor } from "../runs/events/event-cursor.ts";
import { eventStreamQueries } from "../runs/events/event-limits.ts";
import { streamCredential } from "../runs/events/stream-credential.ts";
import { openedWith } from "../middleware/auth.ts";
import type { Db } from "../db/client.ts";
import { admitHeavyRead } from "../quotas/index.ts";

const DeliverySchema = z
  .object({
    id: z.string(),
    message_id: z.string().openapi({ description: "The `webhook-id` header; shared by the attempts of one message" }),
    event: z.string(),
    url: z.string(),
    attempt: z.number().int(),
    status: z.enum(["succeeded", "failed"]),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    created_at: z.string(),
  })
  .openapi("WebhookDelivery");

const RunParam = IdParam("run_id", "run_0mhx3k2q1abcdefghij");

async function requireRun(db: Db, tenantId: string, id: string): Promise<RunRow> {
  const run = await getRun(db, tenantId, id);
  if (!run) throw ApiError.notFound("The run");
  return run;
}

/** The run as a reader should see it: a run whose start was lost is ended `failed` first (see recover.ts). */
async function readRun(env: Env, db: Db, tenantId: string, id: string): Promise<RunRow> {
  return settleLostStart(env, db, await requireRun(db, tenantId, id));
}

export const runs = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listRuns",
      tags: ["runs"],
      summary: "List runs, newest first",
      security: tenantSecurity,
      request: {
        query: PageQuery.extend({
          evaluator: z.string().optional().openapi({ example: "chain-determinism" }),
          status: z.enum(STATUSES).optional(),
        }),
      },
      responses: { 200: jsonResponse(RunPage, "Runs"), ...problems(400, 401) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listRuns(c.var.db, c.var.tenantId, query);
      // A lost start is settled here too; one that no longer matches the status filter is left out of
      // the page (the cursor is the id of the page's last row, so paging is unaffected).
      const data = (await Promise.all(page.data.map((r) => settleLostStart(c.env, c.var.db, r)))).filter(
        (r) => !query.status || r.status === query.status,
      );
      return c.json({ ...page, data: data.map(runWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{run_id}",
      operationId: "getRun",
      tags: ["runs"],
      summary: "Get a run: status, progress and, once ended, its result",
      security: tenantSecurity,
      request: { params: RunParam },
      responses: { 200: jsonResponse(RunSchema, "The run"), ...problems(401, 404) },
    }),
    async (c) => c.json(runWire(await readRun(c.env, c.var.db, c.var.tenantId, c.req.valid("param").run_id)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{run_id}/result",
      operationId: "getRunResult",
      tags: ["runs"],
      summary: "Get a run's full result",
      description:
        "The result of an ended run, whatever its size: the same JSON as `Run.result` for a run that inlines it, and the only way to a result too large to inline (`Run.result` null, `result_url` set). Streamed from storage as it is. A run that has not ended is a 409; one that ended without a result (failed, or canceled before any sample) is a 404.",
      security: tenantSecurity,
      request: { params: RunParam },
      responses: { 200: jsonResponse(RunResultSchema, "The run's result"), ...problems(401, 404, 409) },
    }),
    async (c) => {
      const run = await readRun(c.env, c.var.db, c.var.tenantId, c.req.valid("param").run_id);
      if (!FINAL_STATUSES.includes(run.status)) {
        throw new ApiError({
          status: 409,
          type: "conflict",
          detail: `The run has not ended yet (${run.status}); its result is here once it has.`,
        });
      }
      const body = await resultBody(c.env.RESULTS, run, evaluators.find(run.evaluator));
      if (body === null) throw ApiError.notFound("The run's result");
      // Streamed as stored: the typed response covers the parsed JSON, which this body is.
      return c.body(body, 200, { "Content-Type": "application/json" }) as never;
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{run_id}",
      operationId: "deleteRun",
      tags: ["runs"],
      summary: "Delete an ended run and everything stored of it",
      description:
        "Deletes a run that has ended (`succeeded`, `failed` or `canceled`) with its samples, result, webhook delivery records, per-item scores and cached comparisons, and its coordinator's storage. " +
        "From the moment this is called, no request finds the run (a read is a 404, lists leave it out). " +
        "204: everything is gone. 202: the run is gone for every read, and the rest of its data (a large run's samples) is deleted by the server within minutes, also if this request is cut short. " +
        "A run that has not ended is a 409: cancel it first. A run already deleted is a 404, like one that never existed: nothing is kept of it, and a repeated DELETE leaves the same state (RFC 9110 §9.2.2).",
      security: tenantSecurity,
      request: { params: RunParam },
      responses: {
        202: jsonResponse(
          z.object({ id: z.string(), status: z.literal("deleting") }).openapi("RunDeletion"),
          "Deletion under way: the run is no longer readable, and its remaining data goes within minutes",
        ),
        204: { description: "The run and all its data are deleted" },
        ...problems(401, 404, 409),
      },
    }),
    async (c) => {
      const { db, tenantId } = c.var;
      const run = await readRun(c.env, db, tenantId, c.req.valid("param").run_id);
      if (!FINAL_STATUSES.includes(run.status)) {
        throw new ApiError({
          status: 409,
          type: "conflict",
          detail: `The run has not ended (${run.status}); cancel it first, then delete it.`,
        });
      }
      // Marked first, in one conditional write: if this request stops anywhere after it, the cron
      // finds the mark and finishes. A concurrent DELETE that marked it first makes this one a 404.
      if (!(await markRunDeleting(db, tenantId, run.id, new Date()))) throw ApiError.notFound("The run");
      let done: "deleted" | "pending" = "pending";
      try {
        done = await deleteRunData(c.env, db, run.id, new QueryBudget(REQUEST_DELETION_QUERIES));
      } catch (err) {
        // The mark stands, so the deletion is certain: the cron finishes what this step could not.
        console.error(
          JSON.stringify({
            level: "warn",
            request_id: c.get("requestId"),
            run_id: run.id,
            error: `deletion left to the cron: ${String(err)}`,
          }),
        );
      }
      if (done === "deleted") return c.body(null, 204);
      return c.json({ id: run.id, status: "deleting" as const }, 202);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{run_id}/cancel",
      operationId: "cancelRun",
      tags: ["runs"],
      summary: "Cancel a run",
      description:
        "No model call starts after this returns. Any run that has not ended ends `canceled`, also one whose start never reached its coordinator; samples already finished are kept and its result aggregates them. " +
        "The answer is the run once the cancel has taken effect, never `running`: `canceled`, or a 409 naming the status of a run that had ended (including one whose start was lost, which this request finds `failed`), also one that ended while this request was on its way. Of concurrent cancels, those that reach the run before it has ended answer 200 `canceled` and later ones 409 `canceled`.",
      security: tenantSecurity,
      request: { params: RunParam },
      responses: { 200: jsonResponse(RunSchema, "The canceled run"), ...problems(401, 404, 409) },
    }),
    async (c) => {
      const { db, tenantId } = c.var;
      const run = await readRun(c.env, db, tenantId, c.req.valid("param").run_id);
      const ended = (status: string) =>
        new ApiError({ status: 409, type: "conflict", detail: `The run has already ended (${status}).` });
      if (FINAL_STATUSES.includes(run.status)) throw ended(run.status);
      const after = await cancelRun(c.env, db, run);
      // It ended first, on its own (a finish that came before this cancel) or by a lost start.
      if (after.status !== "canceled") throw ended(after.status);
      return c.json(runWire(after), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{run_id}/samples",
      operationId: "listSamples",
      tags: ["runs"],
      summary: "A run's samples: JSON pages, or all of them as NDJSON",
      description:
        "With `Accept: application/x-ndjson`, every sample is streamed as one line in the original tool's per-unit format (for chain-determinism, its per-replay rows). Otherwise pages of `Sample`, in write order.",
      security: tenantSecurity,
      request: { params: RunParam, query: PageQuery },
      responses: {
        200: {
          description: "Samples",
          content: {
            "application/json": { schema: SamplePage },
            "application/x-ndjson": { schema: z.string() },
          },
        },
        ...problems(400, 401, 404, 429),
      },
    }),
    async (c) => {
      const { db, tenantId } = c.var;
      const run = await requireRun(db, tenantId, c.req.valid("param").run_id);
      const { limit, after } = c.req.valid("query");
      const afterSeq = after === undefined ? undefined : Number(after);
      if (afterSeq !== undefined && !Number.isSafeInteger(afterSeq)) {
        throw ApiError.validation([{ path: "after", message: "must be a next_cursor value" }]);
      }
      if ((c.req.header("accept") ?? "").includes("application/x-ndjson")) {
        await admitHeavyRead(c.env, tenantId);
        const evaluator = evaluators.get(run.evaluator);
        const encoder = new TextEncoder();
        // One D1 page per pull: the next page is read only when the client has taken the last one, so
        // an export of any size holds one page in memory, and a slow client slows the reads.
        let seq: number | undefined = afterSeq;
        const body = new ReadableStream<Uint8Array>(
          {
            async pull(controller) {
              const page = await listSamples(db, run.id, { limit: 500, afterSeq: seq });
              if (page.length) {
                const lines = page.map((s) => JSON.stringify(evaluator.exportLine(storedSample(evaluator, s))) + "\n");
                controller.enqueue(encoder.encode(lines.join("")));
                seq = page[page.length - 1].seq;
              }
              if (page.length < 500) controller.close();
            },
          },
          { highWaterMark: 0 },
        );
        // The route's typed responses cover JSON only; the NDJSON variant is declared in its OpenAPI content.
        return c.body(body, 200, { "Content-Type": "application/x-ndjson" }) as never;
      }
      const rows = await listSamples(db, run.id, { limit: limit + 1, afterSeq });
      const has_more = rows.length > limit;
      const evaluator = evaluators.get(run.evaluator);
      const data = (has_more ? rows.slice(0, limit) : rows).map((s) =>
        sampleWire(run.evaluator, s, (t) => evaluator.parseOutput(t)),
      );
      return c.json({ data, has_more, next_cursor: has_more ? String(data[data.length - 1].seq) : null }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{run_id}/events",
      operationId: "streamRunEvents",
      tags: ["runs"],
      summary: "Server-Sent Events: progress, each unit as it ends, and the final state",
      description:
        "Events: `unit` ({seq, unit_id, status}) for each ended unit, `progress` ({done, failed, total, status}) when it changes, and `final` (the run), after which the stream closes. " +
        "Every event's `id` is the stream's position: reconnecting with it as `Last-Event-ID` resumes exactly there, without a gap or a repeat; after the final event's id the answer is 204 (nothing more). " +
        "A connection ends before any platform limit with a `reconnect` event ({reason, retry_ms, last_event_id}) and a `retry:` hint: reconnect with `Last-Event-ID` to go on. " +
        "A stream re-checks its API key or dashboard session while open and ends with an `unauthenticated` event (a problem object) once it is revoked, signed out or expired. See docs/events.md.",
      security: tenantSecurity,
      request: {
        params: RunParam,
        headers: z.object({
          "last-event-id": z
            .string()
            .optional()
            .openapi({ description: "The `id` of the last event received, to resume after it" }),
        }),
      },
      responses: {
        200: { description: "An event stream", content: { "text/event-stream": { schema: z.string() } } },
        204: {
          description:
            "The stream had already sent its final event (`Last-Event-ID` was its id): nothing more will come",
        },
        ...problems(400, 401, 404),
      },
    }),
    async (c) => {
      const { db, tenantId } = c.var;
      const run = await readRun(c.env, db, tenantId, c.req.valid("param").run_id);
      const from = parseCursor(c.req.valid("header")["last-event-id"]);
      if (!from)
        throw ApiError.validation([{ path: "Last-Event-ID", message: "must be the id of an event of this stream" }]);
      if (from.final) return c.body(null, 204);
      const credential = await streamCredential(db, openedWith(c), streamNow());
      const input = { env: c.env, db, tenantId, run, from, credential, queries: eventStreamQueries(c.env), runWire };
      return streamSSE(c, (stream) => writeRunEvents(input, sseSink(stream)));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{run_id}/webhook-deliveries",
      operationId: "listWebhookDeliveries",
      tags: ["webhooks"],
      summary: "Every attempt to deliver the run's webhook, newest first",
      security: tenantSecurity,
      request: { params: RunParam, query: PageQuery },
      responses: {
        200: jsonResponse(pageOf(DeliverySchema, "WebhookDeliveryPage"), "Attempts"),
        ...problems(400, 401, 404),
      },
    }),
    async (c) => {
      const { db, tenantId } = c.var;
      const run = await requireRun(db, tenantId, c.req.valid("param").run_id);
      const page = await listDeliveries(db, run.id, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(deliveryToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{run_id}/webhook-deliveries/resend",
      operationId: "resendWebhook",
      tags: ["webhooks"],
      summary: "Send the run's final event again",
      description:
        "Re-sends the same message (same `webhook-id`, so receivers can deduplicate); its attempts are recorded like the first ones.",
      security: tenantSecurity,
      request: { params: RunParam },
      responses: {
        202: jsonResponse(z.object({ message_id: z.string() }).openapi("WebhookResend"), "Queued"),
        ...problems(401, 404, 409),
      },
    }),
    async (c) => {
      const { db, tenantId } = c.var;
      const run = await requireRun(db, tenantId, c.req.valid("param").run_id);
      if (!run.webhookUrl) throw new ApiError({ status: 409, type: "conflict", detail: "The run has no webhook_url." });
      if (!FINAL_STATUSES.includes(run.status)) {
        throw new ApiError({
          status: 409,
          type: "conflict",
          detail: "The run has not ended yet; its event is sent when it does.",
        });
      }
      const messageId = await enqueueRunEvent(c.env, run, await firstDeliveryMessageId(db, run.id));
      return c.json({ message_id: messageId! }, 202);
    },
  );
