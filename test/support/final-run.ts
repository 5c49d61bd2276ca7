// Waiting for a run's end from an end-to-end test (in a test or a hook): reads the run until its status
// is final. A run that never ends fails the wait with its last status, progress and error, where a held
// event stream would only show as the test's timeout.
import { setTimeout as sleep } from "node:timers/promises";

const FINAL = ["succeeded", "failed", "canceled"];

/** Longer than any run here takes on a loaded machine, shorter than the e2e tests' and hooks' own timeouts. */
const GIVE_UP_MS = 100_000;

type RunState = { status: string; progress?: unknown; error?: string | null };

/** The run once it has ended, as `GET /v1/runs/{id}` returns it. */
export async function finalRun<T extends RunState = RunState>(
  base: string,
  id: string,
  headers: Record<string, string>,
): Promise<T> {
  const giveUp = Date.now() + GIVE_UP_MS;
  for (;;) {
    const res = await fetch(`${base}/v1/runs/${id}`, { headers });
    const run = (await res.json()) as T;
    if (FINAL.includes(run.status)) return run;
    if (Date.now() > giveUp) {
      throw new Error(
        `run ${id} had not ended after ${GIVE_UP_MS / 1000} s; last seen: ${JSON.stringify({ status: run.status, progress: run.progress, error: run.error })}`,
      );
    }
    await sleep(250);
  }
}
