/**
 * What one connection to a run's event stream may use, in one place (docs/events.md explains the
 * choice). A stream is one invocation for as long as it is open, so it lives on one budget of D1
 * queries (production ends the invocation at PLATFORM_LIMITS.d1QueriesPerInvocation). It spends at
 * most a quarter of it and then ends cleanly, telling the client to reconnect with `Last-Event-ID`:
 * a reconnect is a new invocation with a fresh budget, and the cursor in the event ids makes it
 * resume exactly.
 */
import { limitOf } from "../../platform/limits.ts";
import { KEY_CACHE_LIMITS } from "../../auth/key-cache-limits.ts";

export const EVENT_STREAM_LIMITS = {
  /** D1 queries one connection makes at most (its whole invocation's, the request's own auth and run reads included). */
  queries: limitOf("d1QueriesPerInvocation") / 4,
  /** The fewest a deployment (or a test) may lower it to: a connection's own reads plus one full poll. */
  minQueries: 8,
  /** How long one connection stays open at most, whatever its budget. */
  maxOpenMs: 15 * 60_000,
  /** Pause between two polls while the run changes; it doubles while nothing changes, up to `maxPollMs`. */
  minPollMs: 500,
  maxPollMs: 5_000,
  /** Ended units read per query. Only ids and statuses are read, so a page is small. */
  unitPage: 500,
  /**
   * How often an open stream asks D1 (not a cache) whether its API key is still active or its session
   * still live. Equal to how long an isolate trusts a verified key, so a stream is trusted no longer
   * than a request would be, and it ends well within KEY_CACHE_LIMITS.revocationBoundSeconds.
   */
  credentialRecheckMs: KEY_CACHE_LIMITS.isolateTtlMs,
  /** The `retry:` hint sent with a close before a limit: how soon the client should reconnect. */
  reconnectMs: 250,
} as const;

/**
 * The query budget of one connection: EVENT_STREAM_LIMITS.queries, or a smaller EVENT_STREAM_QUERY_BUDGET
 * where a deployment (or a test that wants many reconnects) sets one. It can only lower the figure.
 */
export function eventStreamQueries(env: Env): number {
  return lowered(Number((env as { EVENT_STREAM_QUERY_BUDGET?: string }).EVENT_STREAM_QUERY_BUDGET));
}

/** `set` within [minQueries, queries]; the production figure when `set` is not a positive number. */
export function lowered(set: number | undefined): number {
  if (set === undefined || !Number.isFinite(set) || set <= 0) return EVENT_STREAM_LIMITS.queries;
  return Math.max(EVENT_STREAM_LIMITS.minQueries, Math.min(Math.floor(set), EVENT_STREAM_LIMITS.queries));
}
