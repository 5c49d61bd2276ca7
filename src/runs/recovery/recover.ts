import type { Db } from "../../db/client.ts";
import { FINAL_STATUSES, getRunById, listQueuedBefore, settleRun, type RunRow } from "../../db/runs.ts";
import type { RunStatus } from "../../db/schema.ts";
import { enqueueRunEvent } from "../webhooks/enqueue.ts";

/**
 * Runs that no coordinator owns. A run is a D1 row first and a RunCoordinator second (the two cannot
 * be written in one transaction), so a run can exist that its coordinator never heard of: its start
 * threw, or the Worker stopped between the two writes. Such a run would stay `queued` for ever and a
 * cancel sent to its coordinator would change nothing. The functions here end it in D1 instead,
 * only ever from a non-final status (conditional writes), so a final state the coordinator writes
 * itself always wins.
 */

/**
 * How long a `queued` run may wait for its coordinator's start before it is taken as lost. A start
 * reaches the coordinator within the creating request, normally in milliseconds; a minute leaves a
 * busy machine ample room, so a start still on its way is never mistaken for a lost one.
 */
export const START_GRACE_MS = 60_000;

/** The error of a run whose start never reached its coordinator. */
export const LOST_START_ERROR =
  "the run's start was lost: its coordinator never received it (the server stopped, or the start failed, after the run was stored), so it never ran; create it again";

/** The webhook-id of a run's final event, the one the coordinator uses, so a receiver drops a repeat. */
const finalMessageId = (runId: string) => `msg_final_${runId}`;

const coordinator = (env: Env, runId: string) => env.RUNS.get(env.RUNS.idFromName(runId));

/**
 * Moves a run to `status` (with `error`) if it is still in one of `from`, keeping its progress, and
 * queues its final webhook event when this call is the one that ended it. Returns the run as it is
 * now (also when something else ended it first).
 */
async function endRun(
  env: Env,
  db: Db,
  runId: string,
  from: readonly RunStatus[],
  status: RunStatus,
  error: string | null,
): Promise<RunRow | undefined> {
  const { run: after, changed } = await settleRun(db, runId, from, { status, error, finishedAt: new Date() });
  if (changed && after) {
    try {
      await enqueueRunEvent(env, after, finalMessageId(after.id));
    } catch (err) {
      // The run's state is what matters here; the event can be sent again (webhook-deliveries/resend).
      console.error(JSON.stringify({ level: "error", run_id: runId, error: `final event not queued: ${String(err)}` }));
    }
  }
  return after;
}

/**
 * Ends a run `failed` with `error` while it is still `queued`: for a start that threw and a start that
 * was lost. A run its coordinator got as far as `running` is the coordinator's to end.
 */
export function failUnstartedRun(env: Env, db: Db, runId: string, error: string): Promise<RunRow | undefined> {
  return endRun(env, db, runId, ["queued"], "failed", error);
}

/**
 * A read of a run (GET, list, events, cancel, an Idempotency-Key replay) calls this first: a run still
 * `queued` more than START_GRACE_MS after its creation whose coordinator has no record of it lost its
 * start, and is ended `failed` saying so (with its `run.failed` event). Any other run comes back
 * unchanged, at the cost of no call at all (the coordinator is asked only about such old queued runs),
 * and so does one whose coordinator cannot be asked now (the next read or sweep asks again).
 */
export async function settleLostStart(env: Env, db: Db, run: RunRow, now = Date.now()): Promise<RunRow> {
  if (run.status !== "queued" || now - run.createdAt.getTime() < START_GRACE_MS) return run;
  // Abandoned at the coordinator first, so a start still on its way cannot revive the run afterwards.
  if ((await abandonStart(env, run.id)) !== true) return run;
  return (await failUnstartedRun(env, db, run.id, LOST_START_ERROR)) ?? run;
}

/**
 * Gives up the run at its coordinator if the coordinator never held it (see RunCoordinator.abandon):
 * true when given up, false when the coordinator holds the run, null when it could not be asked.
 */
export async function abandonStart(env: Env, runId: string): Promise<boolean | null> {
  try {
    return await coordinator(env, runId).abandon("failed");
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", run_id: runId, error: `coordinator unavailable: ${String(err)}` }));
    return null;
  }
}

/**
 * For a periodic trigger (a cron's `scheduled` handler): settles, as `settleLostStart` does, up to
 * `limit` queued runs of every tenant created more than START_GRACE_MS before `now`, oldest first,
 * so a lost start ends even when nobody reads the run. Returns how many it ended.
 */
export async function sweepLostStarts(
  env: Env,
  db: Db,
  { now = Date.now(), limit = 100 }: { now?: number; limit?: number } = {},
): Promise<number> {
  const stale = await listQueuedBefore(db, new Date(now - START_GRACE_MS), limit);
  let ended = 0;
  // One at a time: a sweep is background work and need not open a hundred coordinator calls at once.
  for (const run of stale) if ((await settleLostStart(env, db, run, now)).status !== "queued") ended++;
  return ended;
}

/**
 * Cancels a run that has not ended, and returns it as it is once the cancel has taken effect: ended
 * `canceled`, or ended as it was first (a run whose finish, or whose settling as a lost start, came
 * before this cancel keeps that end; the caller answers it as a conflict). Never `running`.
 *
 * The coordinator's `cancel` stops its units and writes the final state itself, returning once it is
 * written; a run it has no record of (never started) would stay as it was, so the run is then ended
 * `canceled` here, progress as it is, with its `run.canceled` event. Throws what the coordinator's
 * cancel throws: the run is not touched then, because units may still be running.
 */
export async function cancelRun(env: Env, db: Db, run: RunRow): Promise<RunRow> {
  const stub = coordinator(env, run.id);
  // A coordinator that never held the run gives it up (a late start then does nothing), and the run is
  // ended here; one that holds it ends it itself, or is already finishing it (its own end stands).
  if (await stub.abandon("canceled"))
    return (await endRun(env, db, run.id, ["queued", "running"], "canceled", null)) ?? run;
  const status = await stub.cancel();
  const after = (await getRunById(db, run.id)) ?? run;
  // Not final in D1 only when the coordinator's finish has not written it (it failed, or an eviction cut
  // it short): the cancel stands, since the run can end no other way now, and the alarm finishes it.
  return FINAL_STATUSES.includes(after.status) ? after : { ...after, status };
}
