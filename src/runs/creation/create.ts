import { canonicalJson } from "../../engines/vrty/index.ts";
import { sha256Hex } from "../../crypto.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Db } from "../../db/client.ts";
import {
  deleteIdempotencyKey,
  findIdempotentRun,
  getRun,
  getRunById,
  insertIdempotencyKey,
  insertRun,
  type RunInsert,
  type RunRow,
} from "../../db/runs.ts";
import { getWebhookSecret } from "../../db/webhooks.ts";
import { encryptSecret } from "../../secrets.ts";
import { webhookUrlProblem } from "../webhooks/url.ts";
import { loopbackAllowed } from "../../net/destination.ts";
import { evaluators } from "../../evaluators/registry.ts";
import type { EvaluatorName } from "../plugin/types.ts";
import { LIMITS } from "../../limits.ts";
import { limitOf } from "../../platform/limits.ts";
import { utf8Bytes } from "../../platform/storage-guard.ts";
import { abandonStart, failUnstartedRun, settleLostStart, START_GRACE_MS } from "../recovery/recover.ts";
import type { StartRun } from "../coordinator/types.ts";

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
  /**
   * The user's bound on units in flight. Absent: the run adapts to its endpoint (the shared limiter's
   * window, src/runs/limiter/endpoint-limiter.ts) up to LIMITS.concurrency. A given bound goes through the
   * same limiter, as a bound, so runs on one key still share its backoff.
   */
  concurrency?: number;
  leaseMs: number;
  /** The parsed request body, for Idempotency-Key comparison. */
  body: unknown;
  idempotencyKey?: string;
  /**
   * The tenant's quotas (src/quotas), asked once the run is known to be new and just before it is
   * written, so a refusal leaves nothing behind and a replay is never counted twice. For the runs the
   * platform makes itself (a follow-up run), it counts without refusing (src/quotas `countRuns`).
   */
  admit?: Admit;
  /** Takes back what `admit` counted for runs that end up not written (src/quotas `releaseRuns`). */
  release?: Admit;
  /** The run's id when the caller chose it (a group admitted as a whole). */
  id?: string;
};

/** Admits the runs about to be written (their ids and units), or throws the refusal (a 429). */
export type Admit = (runs: { id: string; units: number }[]) => Promise<void>;

/** What an Idempotency-Key record stores to recognise the same request: a hash of the evaluator and body. */
function requestHash(evaluator: string, body: unknown): Promise<string> {
  return sha256Hex(canonicalJson({ evaluator, body }));
}

const idempotencyMismatch = () =>
  new ApiError({
    status: 422,
    type: "idempotency-mismatch",
    detail: "This Idempotency-Key was used with a different request body.",
  });

/**
 * The run an Idempotency-Key already created, as it is now (a lost start settled, see recover.ts), or
 * null for a key not used yet; a key used with another body is a 422.
 */
async function replayedRun(env: Env, db: Db, tenantId: string, key: string, hash: string): Promise<RunRow | null> {
  const prior = await findIdempotentRun(db, tenantId, key);
  if (!prior) return null;
  if (prior.requestHash !== hash) throw idempotencyMismatch();
  const run = await getRun(db, tenantId, prior.runId);
  // A key and its run are written in one transaction, so this is only a record older than that rule.
  if (!run)
    throw new ApiError({ status: 409, type: "conflict", detail: "This Idempotency-Key has no run; use another key." });
  return settleLostStart(env, db, run);
}

/**
 * Creates a run and starts its coordinator. With an Idempotency-Key, the same key and body return
 * the run created first (`created: false`), whatever became of it (a run whose start failed is
 * returned `failed`, the Stripe convention: the key's request is not made twice); the same key with
 * another body is a 422.
 *
 * All or nothing: the run row and its key are one D1 transaction. The coordinator cannot join it, so
 * a start that throws ends the run `failed` saying why (and this throws a 500 naming the run), and a
 * start lost with the Worker between the two writes is ended `failed` by `settleLostStart` when the
 * run is next read or swept. No run is left `queued` for ever.
 */
export async function createRun(
  env: Env,
  db: Db,
  tenantId: string,
  r: NewRun,
): Promise<{ run: RunRow; created: boolean }> {
  return writeRun(env, db, tenantId, r, await checkNewRun(env, db, tenantId, r));
}

/** What checkNewRun found a run to be: the units it plans. */
type CheckedRun = { unitIds: string[] };

/**
 * Every check a new run must pass before anything is counted or written (its webhook destination and
 * the tenant's signing secret, its units, its stored sizes): one place, so a group can check all its
 * parts before its quotas are asked and a refused request uses up nothing.
 */
async function checkNewRun(env: Env, db: Db, tenantId: string, r: NewRun): Promise<CheckedRun> {
  if (r.webhookUrl !== undefined) {
    const problem = webhookUrlProblem(r.webhookUrl, loopbackAllowed(env));
    if (problem) throw ApiError.validation([{ path: "webhook_url", message: problem }]);
    const secret = await getWebhookSecret(db, tenantId);
    if (!secret) {
      throw ApiError.validation([
        { path: "webhook_url", message: "create the tenant's signing secret first: POST /v1/webhooks/secret" },
      ]);
    }
  }
  const unitIds = evaluators.get(r.evaluator).plan(r.config);
  if (unitIds.length > LIMITS.unitsPerRun) {
    throw new ApiError({
      status: 422,
      type: "limit-exceeded",
      detail: `The run would have ${unitIds.length} units; a run may have at most ${LIMITS.unitsPerRun}.`,
    });
  }
  checkStoredSizes(r);
  return { unitIds };
}

/** createRun once `checkNewRun` has passed: admission (unless a replay), the row, the start. */
async function writeRun(
  env: Env,
  db: Db,
  tenantId: string,
  r: NewRun,
  { unitIds }: CheckedRun,
): Promise<{ run: RunRow; created: boolean }> {
  // Everything that can fail before the start is done before the row is written.
  const secretEnc =
    r.secrets && Object.keys(r.secrets).length
      ? await encryptSecret(env.SECRETS_KEY, JSON.stringify(r.secrets))
      : (r.secretEnc ?? null);
  const runId = r.id ?? newId("run");
  const hash = r.idempotencyKey ? await requestHash(r.evaluator, r.body) : null;
  const startOf = (id: string): StartRun => ({
    runId: id,
    tenantId,
    evaluator: r.evaluator,
    config: r.config,
    unitIds,
    concurrency: r.concurrency ?? LIMITS.concurrency,
    adaptive: r.concurrency === undefined,
    leaseMs: r.leaseMs,
    secretEnc,
  });
  if (r.idempotencyKey && hash) {
    const prior = await replayedRun(env, db, tenantId, r.idempotencyKey, hash);
    if (prior) return { run: await completeStart(env, db, prior, startOf(prior.id)), created: false };
  }
  const admitted = [{ id: runId, units: unitIds.length }];
  await r.admit?.(admitted);

  const run: RunInsert = {
    id: runId,
    tenantId,
    evaluator: r.evaluator,
    status: "queued",
    config: r.publicConfig,
    done: 0,
    failed: 0,
    total: unitIds.length,
    callRequests: 0,
    callRetries: 0,
    callRateLimited: 0,
    webhookUrl: r.webhookUrl ?? null,
    createdAt: new Date(),
  };
  try {
    await insertRun(
      db,
      run,
      r.idempotencyKey && hash
        ? { tenantId, key: r.idempotencyKey, requestHash: hash, runId, createdAt: run.createdAt }
        : undefined,
    );
  } catch (err) {
    // Not written, so not counted: without this, two requests racing on one key would use up two runs.
    if (r.admit) await r.release?.(admitted);
    // A concurrent request with the same key wrote first (the batch failed whole): its run is the answer.
    const prior = r.idempotencyKey && hash ? await replayedRun(env, db, tenantId, r.idempotencyKey, hash) : null;
    if (prior) return { run: await completeStart(env, db, prior, startOf(prior.id)), created: false };
    throw err;
  }
  try {
    await env.RUNS.get(env.RUNS.idFromName(runId)).start(startOf(runId));
  } catch (err) {
    await startFailed(env, db, runId, err);
  }
  const created = await getRun(db, tenantId, runId);
  if (!created) throw new Error(`run ${runId} was written but cannot be read back`);
  return { run: created, created: true };
}

/**
 * A replay that finds its run still `queued` starts it again: the first request may have stopped
 * between storing the run and starting it (a follow-up run's creator crashed, say). The start is
 * idempotent and refused once the run was given up, so this never runs a run twice or revives one;
 * if it fails, the run stays for settleLostStart.
 */
async function completeStart(env: Env, db: Db, run: RunRow, start: StartRun): Promise<RunRow> {
  if (run.status !== "queued") return run;
  try {
    await env.RUNS.get(env.RUNS.idFromName(run.id)).start(start);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", run_id: run.id, error: `restarting a replayed run failed: ${String(err)}` }),
    );
  }
  return (await getRunById(db, run.id)) ?? run;
}

/**
 * A run too large to hold is refused before anything is written: its config (the coordinator keeps it
 * in pieces, but receives and holds it whole: LIMITS.runConfigBytes) and its public config (kept in
 * its D1 row, which must also have room for an inline result, LIMITS.inlineResultBytes: a D1 row is at
most 2 MB in all). A module names the request's fields at fault
 * where it can (reasoning-quality's datasets); this is the bound for every module.
 */
function checkStoredSizes(r: NewRun): void {
  const configBytes = utf8Bytes(JSON.stringify(r.config));
  if (configBytes > LIMITS.runConfigBytes) {
    throw new ApiError({
      status: 422,
      type: "limit-exceeded",
      detail: `The run's items and settings are ${configBytes} bytes of JSON; a run may carry at most ${LIMITS.runConfigBytes}.`,
    });
  }
  // The rest of the row (ids, counts, dates, a webhook URL, an error cut to 4,000 characters) takes a few
  // kilobytes at most; a result larger than inlineResultBytes goes to R2.
  const publicLimit = limitOf("d1RowBytes") - LIMITS.inlineResultBytes - PUBLIC_CONFIG_MARGIN;
  const publicBytes = utf8Bytes(JSON.stringify(r.publicConfig));
  if (publicBytes > publicLimit) {
    throw new ApiError({
      status: 422,
      type: "limit-exceeded",
      detail: `The run's config as stored with it would be ${publicBytes} bytes, over what its row may hold beside an inline result (${publicLimit}).`,
    });
  }
}

/** Room left in a runs row for what is neither its config nor an inline result. */
const PUBLIC_CONFIG_MARGIN = 64 * 1024;

/**
 * What a start that threw says about the run, in its `error` and the 500: never the raw message,
 * which could carry anything; the one cause a request can provoke is named.
 */
function startFailureReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Our own guard (src/platform): the message names what was too large.
  const limit = /^(?:PlatformLimitError: )?(.* over what a (?:Durable Object storage value|D1 row) may hold)/.exec(
    message,
  );
  if (limit) return limit[1];
  const rpc = /limited to (\d+\s*MiB).*?was: (\d+) bytes/s.exec(message);
  if (rpc) return `its settings are ${rpc[2]} bytes serialized, over the ${rpc[1]} a call to its coordinator can carry`;
  if (/SQLITE_TOOBIG|too big/i.test(message)) return "its settings are too large for its coordinator's storage";
  return "its coordinator did not accept it (an internal error)";
}

/**
 * After `start` threw. If the coordinator has no record of the run, the run ends `failed` saying why
 * and this throws a 500 naming it (its replay returns that failed run). If the coordinator has the
 * run, it took the start (the error came after, or on the way back): the run is the coordinator's
 * to carry on, and this returns. If the coordinator cannot be asked, the run is left `queued` for
 * `settleLostStart` to decide once the grace period has passed.
 */
async function startFailed(env: Env, db: Db, runId: string, err: unknown): Promise<void> {
  console.error(JSON.stringify({ level: "error", run_id: runId, error: `the run's start failed: ${String(err)}` }));
  // Given up at the coordinator if it never got the run, so a start retried on the way cannot revive it.
  const abandoned = await abandonStart(env, runId);
  const held = abandoned === null ? null : !abandoned;
  if (held) return;
  const lookup = "GET it, or replay this request with its Idempotency-Key, to see it";
  if (held === null) {
    throw new ApiError({
      status: 500,
      type: "internal",
      detail: `The run ${runId} could not be started; if its coordinator never got it, it is ended failed when read ${START_GRACE_MS / 1000} s after its creation. ${lookup}.`,
      cause: err,
    });
  }
  const ended = await failUnstartedRun(env, db, runId, `the run could not be started: ${startFailureReason(err)}`);
  throw new ApiError({
    status: 500,
    type: "internal",
    detail: `The run ${runId} could not be started and has ended ${ended?.status ?? "failed"}: ${ended?.error ?? "no error recorded"}. ${lookup}.`,
    cause: err,
  });
}

/**
 * Creates the runs of one request that makes several (an rpl A/B: one per prompt version), sharing a
 * group id that `part` puts in each run's public config. Without a key, a new group id. With an
 * Idempotency-Key, the key is claimed for the whole request first (its record's `run_id` holds the
 * group id) and each run takes `<key>:<part name>`, so a replay, or any number of concurrent identical
 * requests, get the first request's group id and runs, and a request interrupted half-way is
 * completed by its replay; the same key with another body is a 422. A claim whose request is refused
 * (4xx) before any run was made is released, as a refused request with one run stores no key either.
 */
export async function createRunGroup(
  env: Env,
  db: Db,
  tenantId: string,
  g: {
    evaluator: EvaluatorName;
    body: unknown;
    idempotencyKey?: string;
    admit?: Admit;
    release?: Admit;
    parts: { name: string; run: (groupId: string) => NewRun }[];
  },
): Promise<{ groupId: string; runs: RunRow[] }> {
  let groupId = newId("grp");
  let claimed = false;
  if (g.idempotencyKey) {
    const hash = await requestHash(g.evaluator, g.body);
    claimed = await insertIdempotencyKey(db, {
      tenantId,
      key: g.idempotencyKey,
      requestHash: hash,
      runId: groupId,
      createdAt: new Date(),
    });
    if (!claimed) {
      const prior = await findIdempotentRun(db, tenantId, g.idempotencyKey);
      if (!prior || prior.requestHash !== hash) throw idempotencyMismatch();
      groupId = prior.runId;
    }
  }
  const runs: RunRow[] = [];
  let admitted: { id: string; units: number }[] = [];
  try {
    const made = g.parts.map((part) => ({ name: part.name, run: { ...part.run(groupId), id: newId("run") } }));
    // Every part is checked before the quotas are asked: a request refused for any part counts nothing.
    const checked: CheckedRun[] = [];
    for (const m of made) checked.push(await checkNewRun(env, db, tenantId, m.run));
    // A new request is admitted whole, so a refusal leaves none of its runs; a replay was admitted already.
    const replay = g.idempotencyKey !== undefined && !claimed;
    if (g.admit && !replay) {
      const counted = made.map((m, i) => ({ id: m.run.id, units: checked[i].unitIds.length }));
      await g.admit(counted);
      admitted = counted;
    }
    for (const [i, { name, run: r }] of made.entries()) {
      const { run } = await writeRun(
        env,
        db,
        tenantId,
        {
          ...r,
          admit: undefined,
          release: undefined,
          idempotencyKey: g.idempotencyKey && `${g.idempotencyKey}:${name}`,
        },
        checked[i],
      );
      runs.push(run);
    }
  } catch (err) {
    const unwritten = admitted.filter((a) => !runs.some((run) => run.id === a.id));
    if (unwritten.length) await g.release?.(unwritten);
    if (claimed && runs.length === 0 && err instanceof ApiError && err.status < 500) {
      await deleteIdempotencyKey(db, tenantId, g.idempotencyKey!, groupId);
    }
    throw err;
  }
  return { groupId, runs };
}
