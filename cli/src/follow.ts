// Following a run to its end: a progress bar fed by the run's event stream, Ctrl-C cancels the run
// (unless --detach), and the final run is returned to the command that started it.
import { SingleBar } from "cli-progress";
import { cancelRun, getRun, streamRunEvents, type Run } from "@assay/sdk";
import { CliError, EXIT } from "./errors.ts";
import { armForRuns, onInterrupt } from "./interrupt.ts";
import { getFullRun } from "./run-result.ts";
import { call, unreachable, type Session } from "./session.ts";

export type FollowOptions = {
  /** Print the run's id and links and return at once; the run goes on. */
  detach?: boolean;
  /** Ctrl-C cancels the run (default); false: Ctrl-C only stops following it. */
  cancelOnInterrupt?: boolean;
  /** Called for every event as it arrives: `unit`, `progress`, `final`. */
  onEvent?: (event: string, data: unknown) => void;
};

type Progress = { done: number; failed: number; total: number; status: string };

const FINAL = new Set(["succeeded", "failed", "canceled"]);

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
    if (s.json) process.stdout.write(JSON.stringify({ id: runId, status: "detached", url: `${s.server}/v1/runs/${runId}` }) + "\n");
    else process.stderr.write(`detached: follow it with \`assay runs watch ${runId}\`\n`);
    return null;
  }
  armForRuns();
  const controller = new AbortController();
  // A Ctrl-C pressed while the run was being created counts too: the run is canceled at once.
  const unsubscribe = onInterrupt(() => controller.abort());
  const cancels = opts.cancelOnInterrupt !== false;
  if (!s.json) process.stderr.write(`watching run ${runId}: Ctrl-C ${cancels ? "cancels it" : "stops watching, the run goes on"}\n`);

  const bar = !s.json && process.stderr.isTTY ? new SingleBar({
    stream: process.stderr,
    format: " {bar} {value}/{total} done, {failed} failed | {rate}/s | ETA {etaText}",
    hideCursor: true,
    clearOnComplete: true,
  }) : null;
  // The rate counts the units that ended while this command watched (a run may be half done already).
  let first: { at: number; done: number } | null = null;
  let seen = 0;
  let failures = 0;
  try {
    while (!controller.signal.aborted) {
      let progress: Progress | null;
      try {
        progress = await streamOnce(s, runId, controller.signal, seen, (p) => {
          if (!bar) return;
          first ??= { at: Date.now(), done: p.done };
          const perSecond = (p.done - first.done) / Math.max((Date.now() - first.at) / 1000, 0.001);
          // No estimate before a unit has ended under watch (a rate of 0 would promise forever).
          const etaText = perSecond > 0 ? `${Math.ceil((p.total - p.done) / perSecond)}s` : "…";
          const payload = { failed: p.failed, rate: perSecond.toFixed(1), etaText };
          if (!bar.isActive) bar.start(p.total, p.done, payload);
          bar.setTotal(p.total);
          bar.update(p.done, payload);
        }, (unit) => {
          seen = Math.max(seen, unit.seq);
        }, opts.onEvent);
        failures = 0;
      } catch (err) {
        // A dropped connection is retried with backoff; the run itself goes on meanwhile.
        if (controller.signal.aborted) break;
        // The API's own answer (401, 404: the run is not there) is final; only the connection is retried.
        if (err instanceof CliError && err.status !== undefined) throw err;
        if (++failures > 5) {
          const why = err instanceof CliError ? err.message : String(err);
          throw new CliError(`${why}; run ${runId} goes on (assay runs watch ${runId})`);
        }
        await new Promise((r) => setTimeout(r, 500 * 2 ** failures));
        continue;
      }
      if (progress && FINAL.has(progress.status)) break;
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

/**
 * One connection to the event stream (the server closes it after a while; the caller reconnects).
 * Returns the last progress seen, with the final status when the run ended.
 */
async function streamOnce(
  s: Session,
  runId: string,
  signal: AbortSignal,
  afterSeq: number,
  onProgress: (p: Progress) => void,
  onUnit: (u: { seq: number; unit_id: string; status: string }) => void,
  onEvent?: (event: string, data: unknown) => void,
): Promise<Progress | null> {
  let last: Progress | null = null;
  let failure: unknown;
  try {
    const { stream } = await streamRunEvents({
      client: s.client,
      path: { run_id: runId },
      signal,
      headers: afterSeq ? { "Last-Event-ID": String(afterSeq) } : undefined,
      sseMaxRetryAttempts: 1,
      onSseError: (err) => (failure = err),
      onSseEvent: (event) => {
        const data = event.data as unknown as Record<string, unknown>;
        const isNewUnit = event.event !== "unit" || Number(data.seq) > afterSeq;
        if (event.event && isNewUnit) onEvent?.(event.event, data);
        if (event.event === "progress") {
          last = data as unknown as Progress;
          onProgress(last);
        } else if (event.event === "unit" && Number(data.seq) > afterSeq) {
          onUnit(data as unknown as { seq: number; unit_id: string; status: string });
        } else if (event.event === "final") {
          const run = data as unknown as Run;
          last = { ...run.progress, status: run.status };
          onProgress(last);
        }
      },
    });
    for await (const _ of stream) {
      // events are handled as they arrive (onSseEvent), in order
    }
  } catch (err) {
    failure = err;
  }
  if (failure && !signal.aborted) {
    const status = /SSE failed: (\d+)/.exec(String((failure as Error)?.message ?? failure))?.[1];
    if (status) {
      // 401/404 and friends: ask for the run plainly, which gives the API's own problem+json.
      await call(s, getRun({ client: s.client, path: { run_id: runId } }));
    }
    throw unreachable(s, failure);
  }
  return last;
}

/** A run that did not succeed is a "could not run" (exit 1), with the run's own error. */
export function requireSucceeded(run: Run): Run {
  if (run.status !== "succeeded") throw new CliError(`run ${run.id} ${run.status}${run.error ? `: ${run.error}` : ""}`);
  return run;
}
