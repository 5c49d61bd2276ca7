// Following a run to its end: a progress bar fed by the run's event stream, Ctrl-C cancels the run
// (unless --detach), and the final run is returned to the command that started it.
import { SingleBar } from "cli-progress";
import { cancelRun, getRun, type Run } from "@assay/sdk";
import { followRunEvents, RunEventsError, type RunProgress } from "@assay/sdk/run-events";
import { CliError, EXIT, problemLine } from "./errors.ts";
import { armForRuns, onInterrupt } from "./interrupt.ts";
import { getFullRun } from "./run-result.ts";
import { call, unreachable, type Session } from "./session.ts";

export type FollowOptions = {
  /** Print the run's id and links and return at once; the run goes on. */
  detach?: boolean;
  /** Ctrl-C cancels the run (default); false: Ctrl-C only stops following it. */
  cancelOnInterrupt?: boolean;
  /** Called for every event as it arrives, once each: `unit`, `progress`, `final`, with its id. */
  onEvent?: (event: string, data: unknown, id: string) => void;
};

type Progress = RunProgress;

/** Announces a run that was just created, on stderr (stdout stays for results). */
export function announce(s: Session, run: { id: string }): void {
  if (!s.json) process.stderr.write(`run ${run.id} started: ${s.server}/v1/runs/${run.id}\n`);
}

/**
 * Follows the run until it is final and returns it. Ctrl-C cancels it (and exits 130) unless detached.
 * The bar is drawn only on a terminal and never with --json.
 */
export async function followRun(s: Session, runId: string, opts: FollowOptions = {}): Promise<Run | null> {
  if (opts.detach) {
    if (s.json)
      process.stdout.write(
        JSON.stringify({ id: runId, status: "detached", url: `${s.server}/v1/runs/${runId}` }) + "\n",
      );
    else process.stderr.write(`detached: follow it with \`assay runs watch ${runId}\`\n`);
    return null;
  }
  armForRuns();
  const controller = new AbortController();
  // A Ctrl-C pressed while the run was being created counts too: the run is canceled at once.
  const unsubscribe = onInterrupt(() => controller.abort());
  const cancels = opts.cancelOnInterrupt !== false;
  if (!s.json)
    process.stderr.write(
      `watching run ${runId}: Ctrl-C ${cancels ? "cancels it" : "stops watching, the run goes on"}\n`,
    );

  const bar =
    !s.json && process.stderr.isTTY
      ? new SingleBar({
          stream: process.stderr,
          format: " {bar} {value}/{total} done, {failed} failed | {rate}/s | ETA {etaText}",
          hideCursor: true,
          clearOnComplete: true,
        })
      : null;
  // The rate counts the units that ended while this command watched (a run may be half done already).
  let first: { at: number; done: number } | null = null;
  const draw = (p: Progress) => {
    if (!bar) return;
    first ??= { at: Date.now(), done: p.done };
    const perSecond = (p.done - first.done) / Math.max((Date.now() - first.at) / 1000, 0.001);
    // No estimate before a unit has ended under watch (a rate of 0 would promise forever).
    const etaText = perSecond > 0 ? `${Math.ceil((p.total - p.done) / perSecond)}s` : "…";
    const payload = { failed: p.failed, rate: perSecond.toFixed(1), etaText };
    if (!bar.isActive) bar.start(p.total, p.done, payload);
    bar.setTotal(p.total);
    bar.update(p.done, payload);
  };
  try {
    // The server closes a stream now and then (before its query budget); followRunEvents reconnects
    // with the last event's id, so every event comes once, and retries a dropped connection.
    for await (const e of followRunEvents({ client: s.client, runId, signal: controller.signal })) {
      opts.onEvent?.(e.event, e.data, e.id);
      if (e.event === "progress") draw(e.data);
      else if (e.event === "final") draw({ ...e.data.progress, status: e.data.status });
    }
  } catch (err) {
    if (!controller.signal.aborted) {
      if (!(err instanceof RunEventsError)) throw err;
      // The API's own answer (401, 404: the run is not there) or the stream's credential ending.
      if (err.status !== undefined)
        throw new CliError(problemLine(err.problem, err.status), EXIT.couldNotRun, err.status);
      throw new CliError(`${unreachable(s, err.cause).message}; run ${runId} goes on (assay runs watch ${runId})`);
    }
  } finally {
    bar?.stop();
  }
  const wasInterrupted = controller.signal.aborted;
  unsubscribe();
  if (wasInterrupted && !cancels) {
    throw new CliError(`stopped following run ${runId}; it goes on (assay runs watch ${runId})`, EXIT.interrupted);
  }
  if (wasInterrupted) {
    process.stderr.write(`interrupted: canceling run ${runId}\n`);
    try {
      const run = await call(s, cancelRun({ client: s.client, path: { run_id: runId } }));
      process.stderr.write(`run ${runId} ${run.status}\n`);
    } catch (err) {
      // 409: the run ended while Ctrl-C was on its way; say how it ended.
      if (!(err instanceof CliError && err.status === 409)) throw err;
      const run = await call(s, getRun({ client: s.client, path: { run_id: runId } }));
      process.stderr.write(`run ${runId} had already ended (${run.status}) when Ctrl-C came\n`);
    }
    throw new CliError(`canceled run ${runId} on Ctrl-C`, EXIT.interrupted);
  }
  return getFullRun(s, runId);
}

/** A run that did not succeed is a "could not run" (exit 1), with the run's own error. */
export function requireSucceeded(run: Run): Run {
  if (run.status !== "succeeded") throw new CliError(`run ${run.id} ${run.status}${run.error ? `: ${run.error}` : ""}`);
  return run;
}
