// Written by hand (scripts/generate-sdk.ts keeps it): following a run's events to its end, across the
// connections the server closes on purpose. A stream ends before any platform limit with a `reconnect`
// event; every event's id is the stream's position, so reconnecting with the last one as
// `Last-Event-ID` goes on without a gap or a repeat (docs/events.md).
import type { Client } from "./client/index.ts";
import { streamRunEvents } from "./sdk.gen.ts";
import type { Run } from "./types.gen.ts";

export type RunProgress = { done: number; failed: number; total: number; status: Run["status"] };
export type RunUnit = { seq: number; unit_id: string; status: string };

/** One event of a run, with its id (pass it as `lastEventId` to resume after it). */
export type RunEvent =
  | { event: "unit"; id: string; data: RunUnit }
  | { event: "progress"; id: string; data: RunProgress }
  | { event: "final"; id: string; data: Run };

/**
 * Why following stopped before the final event: the API refused (`status`, with its problem+json),
 * the stream's credential ended while it was open (`status` 401), or the server could not be reached
 * `maxFailures` times in a row (`status` undefined; `cause` is the last failure).
 */
export class RunEventsError extends Error {
  readonly status?: number;
  readonly problem?: { type?: string; title?: string; status?: number; detail?: string };
  constructor(message: string, init: { status?: number; problem?: RunEventsError["problem"]; cause?: unknown } = {}) {
    super(message, { cause: init.cause });
    this.name = "RunEventsError";
    this.status = init.status;
    this.problem = init.problem;
  }
}

export type FollowRunEventsOptions = {
  client?: Client;
  runId: string;
  signal?: AbortSignal;
  /** Resume after this event (an id this stream gave); from the start when omitted. */
  lastEventId?: string;
  /** Failed connections in a row before giving up (default 5); a close the server asked for never counts. */
  maxFailures?: number;
  /** How a pause is waited out (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** Called before each connection with the id it resumes from. */
  onConnect?: (lastEventId: string | undefined) => void;
};

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * The run's events, in order and each once, until its final event (included), reconnecting whenever
 * the server closes the stream and, with backoff, when the connection drops. Ends without the final
 * event only when `signal` aborts. A run that had already sent its final event to this `lastEventId`
 * yields nothing. Throws RunEventsError when the API refuses or the credential ends.
 */
export async function* followRunEvents(opts: FollowRunEventsOptions): AsyncGenerator<RunEvent, void> {
  const { runId, signal, maxFailures = 5 } = opts;
  const sleep = opts.sleep ?? ((ms: number) => wait(ms, signal));
  let last = opts.lastEventId;
  let failures = 0;
  while (!signal?.aborted) {
    // Aborted when the caller stops early, so an open connection does not linger.
    const connection = new AbortController();
    const stop = () => connection.abort();
    signal?.addEventListener("abort", stop, { once: true });
    let status: number | undefined;
    let problem: RunEventsError["problem"];
    let failure: unknown;
    let retryMs: number | undefined;
    let received = false;
    const pending: { event?: string; id?: string; data: unknown; retry?: number }[] = [];
    opts.onConnect?.(last);
    try {
      const base = opts.client?.getConfig().fetch;
      const { stream } = await streamRunEvents({
        client: opts.client,
        path: { run_id: runId },
        signal: connection.signal,
        headers: last ? { "last-event-id": last } : undefined,
        // One attempt per connection: this loop decides what comes next, with the right Last-Event-ID.
        sseMaxRetryAttempts: 1,
        fetch: async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
          const f = base ?? globalThis.fetch;
          const response = await f(input, init);
          status = response.status;
          if (!response.ok)
            problem = (await response
              .clone()
              .json()
              .catch(() => undefined)) as RunEventsError["problem"];
          return response;
        },
        onSseError: (err) => (failure = err),
        onSseEvent: (e) => void pending.push(e),
      });
      const drain = function* (): Generator<RunEvent> {
        for (const e of pending.splice(0)) {
          if (e.event === "unit" || e.event === "progress" || e.event === "final") {
            received = true;
            last = e.id;
            yield { event: e.event, id: e.id!, data: e.data } as RunEvent;
          } else if (e.event === "reconnect") {
            retryMs = typeof e.retry === "number" ? e.retry : 0;
          } else if (e.event === "unauthenticated") {
            const p = e.data as RunEventsError["problem"];
            throw new RunEventsError(p?.detail ?? "The credential of this stream has ended.", {
              status: 401,
              problem: p,
            });
          }
        }
      };
      // After the final event the server closes the stream at once: read to its end rather than
      // abort it, so a clean end never shows as a failed request (an aborted fetch) to the browser.
      let ended = false;
      for await (const _ of stream) {
        for (const event of drain()) {
          yield event;
          if (event.event === "final") ended = true;
        }
      }
      for (const event of drain()) {
        yield event;
        if (event.event === "final") ended = true;
      }
      if (ended) return;
    } finally {
      signal?.removeEventListener("abort", stop);
      connection.abort();
    }
    if (signal?.aborted) return;
    // 204: the final event was already sent to this id; there is nothing more.
    if (status === 204) return;
    if (status !== undefined && status >= 400) {
      throw new RunEventsError(problem?.detail ?? `GET /v1/runs/${runId}/events answered ${status}`, {
        status,
        problem,
      });
    }
    if (retryMs !== undefined) {
      failures = 0;
      await sleep(retryMs);
      continue;
    }
    // The connection dropped (or the server closed it without a word): try again, with backoff.
    if (received) failures = 0;
    if (++failures > maxFailures) {
      throw new RunEventsError(`lost the event stream of run ${runId} ${failures - 1} times in a row`, {
        cause: failure,
      });
    }
    await sleep(Math.min(500 * 2 ** (failures - 1), 8_000));
  }
}
