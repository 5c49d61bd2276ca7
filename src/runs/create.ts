import { canonicalJson } from "../engines/vrty/index.ts";
import { sha256Hex } from "../crypto.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Db } from "../db/client.ts";
import { findIdempotentRun, getRun, insertIdempotencyKey, insertRun, type RunRow } from "../db/runs.ts";
import { getWebhookSecret } from "../db/webhooks.ts";
import { encryptSecret } from "../secrets.ts";
import { webhookUrlProblem } from "../webhooks/url.ts";
import { evaluatorFor } from "../evaluators/registry.ts";
import type { EvaluatorName } from "../evaluators/types.ts";
import { LIMITS } from "../limits.ts";

export type NewRun = {
  evaluator: EvaluatorName;
  /** What the coordinator and units work from (may include large snapshots such as a suite). No secret. */
  config: object;
  /** What D1 stores and the API returns as the run's `config`. No secret. */
  publicConfig: Record<string, unknown>;
  /**
   * The run's secrets by name (`provider` for the one model key; judge: one per critic): encrypted
   * together for the coordinator, never stored in D1, dropped when the run ends.
   */
  secrets?: Record<string, string>;
  /** Or the secrets already encrypted (a follow-up run inherits its predecessor's). */
  secretEnc?: string | null;
  webhookUrl?: string;
  concurrency: number;
  leaseMs: number;
  /** The parsed request body, for Idempotency-Key comparison. */
  body: unknown;
  idempotencyKey?: string;
};

/**
 * The lease of a unit that makes one model call: the call and its two retries at the timeout, plus a
 * minute for the sample write and the report.
 */
export function singleCallLeaseMs(timeoutS: number): number {
  return (timeoutS * 3 + 60) * 1000;
}

/**
 * Creates a run and starts its coordinator. With an Idempotency-Key, the same key and body return
 * the run created first (`created: false`); the same key with another body is a 422.
 */
export async function createRun(env: Env, db: Db, tenantId: string, r: NewRun): Promise<{ run: RunRow; created: boolean }> {
  if (r.webhookUrl) {
    const problem = webhookUrlProblem(r.webhookUrl, env.ALLOW_LOOPBACK_WEBHOOKS === "true");
    if (problem) throw ApiError.validation([{ path: "webhook_url", message: problem }]);
    const secret = await getWebhookSecret(db, tenantId);
    if (!secret) {
      throw ApiError.validation([
        { path: "webhook_url", message: "create the tenant's signing secret first: POST /v1/webhooks/secret" },
      ]);
    }
  }
  const unitIds = evaluatorFor(r.evaluator).plan(r.config);
  if (unitIds.length > LIMITS.unitsPerRun) {
    throw new ApiError({
      status: 422,
      type: "limit-exceeded",
      detail: `The run would have ${unitIds.length} units; a run may have at most ${LIMITS.unitsPerRun}.`,
    });
  }

  const runId = newId("run");
  if (r.idempotencyKey) {
    const requestHash = await sha256Hex(canonicalJson({ evaluator: r.evaluator, body: r.body }));
    const fresh = await insertIdempotencyKey(db, { tenantId, key: r.idempotencyKey, requestHash, runId, createdAt: new Date() });
    if (!fresh) {
      const prior = await findIdempotentRun(db, tenantId, r.idempotencyKey);
      if (prior && prior.requestHash !== requestHash) {
        throw new ApiError({
          status: 422,
          type: "idempotency-mismatch",
          detail: "This Idempotency-Key was used with a different request body.",
        });
      }
      const run = prior && (await getRun(db, tenantId, prior.runId));
      if (run) return { run, created: false };
      throw new ApiError({ status: 409, type: "conflict", detail: "A request with this Idempotency-Key is still being processed." });
    }
  }

  const run: RunRow = {
    id: runId,
    tenantId,
    evaluator: r.evaluator,
    status: "queued",
    config: r.publicConfig,
    done: 0,
    failed: 0,
    total: unitIds.length,
    result: null,
    error: null,
    webhookUrl: r.webhookUrl ?? null,
    createdAt: new Date(),
    startedAt: null,
    finishedAt: null,
  };
  await insertRun(db, run);
  const secretEnc =
    r.secrets && Object.keys(r.secrets).length ? await encryptSecret(env.SECRETS_KEY, JSON.stringify(r.secrets)) : (r.secretEnc ?? null);
  await env.RUNS.get(env.RUNS.idFromName(runId)).start({
    runId,
    tenantId,
    evaluator: r.evaluator,
    config: r.config,
    unitIds,
    concurrency: r.concurrency,
    leaseMs: r.leaseMs,
    secretEnc,
  });
  return { run: (await getRun(db, tenantId, runId)) ?? run, created: true };
}
