// What the cron does every minute (wrangler.jsonc "triggers"), in one invocation: ends runs whose
// start was lost, marks the runs past their tenant's retention for deletion, continues every
// deletion under way, and deletes expired dashboard sessions. Each part is bounded so they fit one
// invocation's D1 budget together, and one that fails does not stop the others: what it left is found
// again at the next tick.
import type { Db } from "../../db/client.ts";
import { markExpiredRuns } from "../../db/lifetime.ts";
import { deleteExpiredSessions } from "../../db/sessions.ts";
import { sweepDeletions } from "./delete.ts";
import { sweepLostStarts } from "../recovery/recover.ts";

/**
 * Runs past retention marked per tick: marking hides them at once, and their data then goes within the
 * deletions' budget, so a backlog (a tenant that shortened its retention) drains over a few ticks.
 */
export const EXPIRED_RUNS_PER_TICK = 50;

export async function housekeeping(env: Env, db: Db, now = Date.now()): Promise<void> {
  await logged("lost starts", () => sweepLostStarts(env, db, { now }));
  await logged("retention", () => markExpiredRuns(db, new Date(now), EXPIRED_RUNS_PER_TICK));
  await logged("deletions", () => sweepDeletions(env, db));
  await logged("expired sessions", () => deleteExpiredSessions(db, new Date(now)));
}

async function logged(what: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    console.error(
      JSON.stringify({ level: "error", error: `cron: ${what} failed, tried again at the next tick: ${String(err)}` }),
    );
  }
}
