/**
 * A run's event stream (`GET /v1/runs/{id}/events`): `unit` for each ended unit, `progress` when the
 * counts or the status change, `final` with the run, each with the stream's position as its SSE id
 * (event-cursor.ts).
 *
 * Why it polls D1 rather than being pushed to by the coordinator: a push needs the coordinator (one
 * single-threaded object per run, each request billed) to hold every watcher and to reach it, and
 * a stream that reconnects would still need D1 to catch up. D1 already holds everything a client
 * may need, in order, so a stream is a reader of it. What makes that affordable is how often it
 * reads and what it reads:
 * - one query per poll while nothing changes (the run's row), and the ended units only when the
 *   row's counts moved (the coordinator writes samples to D1 before the counts that include them, so
 *   the counts never get ahead of the units a listing finds);
 * - the pause between polls doubles while nothing changes (EVENT_STREAM_LIMITS);
 * - every query of the invocation is counted (src/platform/invocation.ts), and before the budget is
 *   spent, or the connection has been open `maxOpenMs`, the stream ends with a `reconnect` event
 *   and a `retry:` hint. The client reconnects with `Last-Event-ID` and a fresh invocation goes on
 *   from exactly there. docs/events.md has the figures.
 *
 * It also re-checks, in D1, the credential that opened it (stream-credential.ts), and ends with an
 * `unauthenticated` event once the key is revoked or the session ended.
 */
import type { SSEStreamingApi } from "hono/streaming";
import type { Db } from "../../db/client.ts";
import { FINAL_STATUSES, getRun, listUnitEvents, type RunRow } from "../../db/runs.ts";
import { currentUsage } from "../../platform/invocation.ts";
import { settleLostStart } from "../recovery/recover.ts";
import { formatCursor, sameProgress, type EventCursor, type Progress } from "./event-cursor.ts";
import { EVENT_STREAM_LIMITS, lowered } from "./event-limits.ts";
import type { StreamCredential } from "./stream-credential.ts";

/** An SSE message as written. */
export type EventMessage = { event: string; data: string; id?: string; retry?: number };

/** Where the stream writes: events, and comments (lines a client ignores: a keep-alive); `aborted` once the client has gone. */
export type EventSink = {
  write(message: EventMessage): Promise<void>;
  comment(text: string): Promise<void>;
  readonly aborted: boolean;
};

/** The time a stream reads and waits on. */
export type StreamClock = { now(): number; sleep(ms: number): Promise<void> };

export const systemClock: StreamClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

let clock: StreamClock = systemClock;
let testQueries: number | undefined;

/**
 * A test seam, independent of any request: the clock every stream of this isolate reads and waits on
 * (so a test follows a run for an hour in moments), and a lower query budget (never a higher one:
 * see `lowered`). `undefined` puts the system clock and the configured budget back.
 */
export function setEventStreamSeams(seams: { clock?: StreamClock; queries?: number } | undefined): void {
  clock = seams?.clock ?? systemClock;
  testQueries = seams?.queries;
}

export type EventStreamInput = {
  env: Env;
  db: Db;
  tenantId: string;
  run: RunRow;
  /** Where the client is: from its `Last-Event-ID`. */
  from: EventCursor;
  credential: StreamCredential;
  /** D1 queries the whole invocation may make (eventStreamQueries). */
  queries: number;
  /** The wire form of a run, for the final event. */
  runWire: (run: RunRow) => unknown;
};

/** Why a stream ended before the run did, as the `reconnect` event says. */
type CloseReason = "query_budget" | "max_duration";

function progressOf(run: RunRow): Progress {
  return { done: run.done, failed: run.failed, total: run.total, status: run.status };
}

/** Writes the run's events to `sink` until the run is final, the client goes, a limit nears, or the credential ends. */
export async function writeRunEvents(input: EventStreamInput, sink: EventSink): Promise<void> {
  const { env, db, tenantId, run, credential } = input;
  const queries = testQueries === undefined ? input.queries : Math.min(input.queries, lowered(testQueries));
  const L = EVENT_STREAM_LIMITS;
  const cursor: EventCursor = { ...input.from, progress: input.from.progress && { ...input.from.progress } };
  // Outside an invocation (never in the Worker) nothing counts queries; this stream counts its own.
  let own = 0;
  const used = () => currentUsage()?.d1Queries ?? own;
  const left = () => queries - used();
  const opened = clock.now();
  let nextCheck = credential.checkedAt === undefined ? opened : credential.checkedAt + L.credentialRecheckMs;
  if (credential.expiresAt !== undefined) nextCheck = Math.min(nextCheck, credential.expiresAt);
  let pause: number = L.minPollMs;
  // The counts at the last complete listing of units; null: list on the first poll.
  let listedAt: Progress | null = null;

  const close = (reason: CloseReason) =>
    sink.write({
      event: "reconnect",
      retry: L.reconnectMs,
      data: JSON.stringify({ reason, retry_ms: L.reconnectMs, last_event_id: formatCursor(cursor) }),
    });

  while (!sink.aborted) {
    const now = clock.now();
    if (now - opened >= L.maxOpenMs) return close("max_duration");
    if (now >= nextCheck) {
      if (left() < 1) return close("query_budget");
      own++;
      const ended = await credential.check(now);
      if (ended) {
        await sink.write({
          event: "unauthenticated",
          data: JSON.stringify({
            type: "/problems/unauthenticated",
            title: "Unauthenticated",
            status: 401,
            detail: ended,
          }),
        });
        return;
      }
      nextCheck = now + L.credentialRecheckMs;
      if (credential.expiresAt !== undefined) nextCheck = Math.min(nextCheck, credential.expiresAt);
      // A line now and then keeps proxies from taking a quiet stream for a dead one.
      await sink.comment("still following");
    }
    // A poll reads the run and, at least, one page of units.
    if (left() < 2) return close("query_budget");
    own++;
    const row = await getRun(db, tenantId, run.id);
    // Deleted meanwhile: the stream just ends, and a reconnect gets the 404.
    if (!row) return;
    // A run still queued is settled when its start turns out lost, so the stream ends with it.
    const current = await settleLostStart(env, db, row);
    const progress = progressOf(current);
    const final = FINAL_STATUSES.includes(current.status);
    let wrote = false;
    if (final || !sameProgress(progress, listedAt)) {
      for (;;) {
        if (left() < 1) return close("query_budget");
        own++;
        const page = await listUnitEvents(db, run.id, cursor.seq, L.unitPage);
        for (const u of page) {
          cursor.seq = u.seq;
          await sink.write({
            event: "unit",
            id: formatCursor(cursor),
            data: JSON.stringify({ seq: u.seq, unit_id: u.unitId, status: u.status }),
          });
          wrote = true;
        }
        if (page.length < L.unitPage) break;
      }
      listedAt = progress;
    }
    if (!sameProgress(progress, cursor.progress)) {
      cursor.progress = progress;
      await sink.write({ event: "progress", id: formatCursor(cursor), data: JSON.stringify(progress) });
      wrote = true;
    }
    if (final) {
      cursor.final = true;
      await sink.write({ event: "final", id: formatCursor(cursor), data: JSON.stringify(input.runWire(current)) });
      return;
    }
    pause = wrote ? L.minPollMs : Math.min(pause * 2, L.maxPollMs);
    await clock.sleep(Math.max(0, Math.min(pause, nextCheck - clock.now())));
  }
}

/** The sink of a Hono SSE stream. */
export function sseSink(stream: SSEStreamingApi): EventSink {
  return {
    write: (message) => stream.writeSSE(message),
    comment: async (text) => {
      await stream.write(`: ${text}\n\n`);
    },
    get aborted() {
      return stream.aborted;
    },
  };
}

/** The stream clock's now: when a request opening a stream starts. */
export function streamNow(): number {
  return clock.now();
}
