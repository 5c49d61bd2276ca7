/**
 * The control law of an endpoint's concurrency window: how many model requests may be in flight at
 * once, learned from how the endpoint answers. Pure (no clock, no I/O): the permit book (permits.ts)
 * feeds it each attempt's outcome.
 *
 * It works like TCP congestion control, with the endpoint's 429 / overload answers as the loss signal:
 *
 * - **start**: +1 per success while the window is in use, so it doubles every round trip, until
 *   the first overload.
 * - **overload** (429, 503, 529, "overloaded"): the window becomes ⌊β × in-flight⌋ (β = `backoff`),
 *   where in-flight is the level the failed request was sent at (what the endpoint refused, not the
 *   window, which may have run ahead). That level is remembered as the `ceiling`. Only one cut per
 *   round trip: an overload of a request granted before the last cut was sent under the old window
 *   and says nothing new (TCP's one reduction per window).
 * - **recover**: +1 per success back to `ceiling − 1`, the last level known to work, so a cut costs
 *   about one round trip; from there it probes above only slowly (+1 per `probe` round trips), which
 *   keeps the 429s it costs to stay at an endpoint's limit rare.
 * - **avoid**: once a whole window's worth of requests succeeded at or above the ceiling, the
 *   endpoint's limit has risen: the ceiling is forgotten and the window grows by +1 per round trip.
 *
 * The window only grows while it is used (at least half of it in flight when a request ends) and
 * while answers stay quick: a success slower than `slowFactor` × the quickest recent answer plus
 * `slowSlackMs` means the endpoint is queueing, so the window holds.
 */
export type WindowOptions = {
  /** The window of a new endpoint. */
  initial: number;
  min: number;
  max: number;
  /** The multiplicative cut on an overload, in (0, 1). */
  backoff: number;
  /** Round trips per +1 when probing above the ceiling. */
  probe: number;
  slowFactor: number;
  slowSlackMs: number;
};

// 16 to start: measured against an endpoint that takes 50 at once, the climb 16 → 32 → 64 overshoots less
// (about half the refusals) and arrives a round trip sooner than 10 → 20 → 40 → 80; one that takes
// fewer absorbs the first wave's extra requests as free retries.
export const DEFAULT_WINDOW: WindowOptions = {
  initial: 16,
  min: 1,
  max: 100,
  backoff: 0.7,
  probe: 4,
  slowFactor: 2,
  slowSlackMs: 100,
};

/** What the window keeps between outcomes; plain data, so its owner can store it as is. */
export type WindowState = {
  /** The window, fractional while it grows by fractions of a request. */
  size: number;
  /** The in-flight level of the last overload, while the window is below or near it. */
  ceiling: number | null;
  /** Successes at or above the ceiling since it was set. */
  aboveCeiling: number;
  /** Grants numbered below this were sent before the last cut. */
  cutSeq: number;
  phase: "start" | "recover" | "avoid";
  /** The quickest recent answer (ms), rising slowly toward what is seen so it follows a slower model. */
  baseLatencyMs: number | null;
};

export function newWindow(o: WindowOptions = DEFAULT_WINDOW): WindowState {
  checkWindowOptions(o);
  return { size: o.initial, ceiling: null, aboveCeiling: 0, cutSeq: 0, phase: "start", baseLatencyMs: null };
}

export function checkWindowOptions(o: WindowOptions): void {
  if (!(o.min >= 1 && o.max >= o.min && o.initial >= o.min && o.initial <= o.max)) {
    throw new RangeError(`newWindow: need 1 ≤ min ≤ initial ≤ max, got ${o.min}, ${o.initial}, ${o.max}`);
  }
  if (!(o.backoff > 0 && o.backoff < 1)) throw new RangeError(`newWindow: backoff must be in (0, 1), got ${o.backoff}`);
  if (!(o.probe >= 1)) throw new RangeError(`newWindow: probe must be ≥ 1, got ${o.probe}`);
}

/** The whole number of requests the window allows now. */
export function windowLimit(w: WindowState, o: WindowOptions = DEFAULT_WINDOW): number {
  return Math.min(o.max, Math.max(o.min, Math.floor(w.size)));
}

/**
 * A window still in its start (it has met no refusal) opens to `n` requests at once: a run whose
 * request gave its concurrency said the endpoint takes that many, and doubling from `initial` would
 * only hold its first requests back for a round trip or two. A window past its start keeps what the
 * endpoint showed over what a request said. Never past `max`.
 */
export function openTo(w: WindowState, n: number, o: WindowOptions = DEFAULT_WINDOW): void {
  if (w.phase === "start" && w.size < n) w.size = Math.min(o.max, n);
}

/**
 * A request ended well. `sentAt`: the in-flight count when it was granted, itself included;
 * `inFlight`: the count now, itself included (how much of the window is in use).
 */
export function onSuccess(
  w: WindowState,
  s: { sentAt: number; inFlight: number; latencyMs: number },
  o: WindowOptions = DEFAULT_WINDOW,
): void {
  const base = w.baseLatencyMs;
  const slow = base !== null && s.latencyMs > o.slowFactor * base + o.slowSlackMs;
  w.baseLatencyMs = base === null ? s.latencyMs : Math.min(s.latencyMs, base + (s.latencyMs - base) * 0.002);
  if (w.ceiling !== null && s.sentAt >= w.ceiling && ++w.aboveCeiling >= w.ceiling) {
    w.ceiling = null;
    w.phase = "avoid";
  }
  const limit = windowLimit(w, o);
  if (slow || s.inFlight * 2 < limit) return;
  let step: number;
  if (w.phase === "start") step = 1;
  else if (w.ceiling !== null && w.size + 1 <= w.ceiling - 1) step = 1;
  else step = 1 / (limit * (w.ceiling !== null ? o.probe : 1));
  w.size = Math.min(o.max, w.size + step);
}

/**
 * The endpoint refused a request as overloaded. `seq`: the request's grant number; `nextSeq`: the
 * number the next grant gets. Returns whether the refusal is the window's doing: the request was sent
 * at a level the window no longer allows, so its retry need not count as the request's own failure.
 * A request sent within the window (at the smallest window, always) was refused for itself.
 */
export function onOverload(
  w: WindowState,
  s: { seq: number; sentAt: number },
  nextSeq: number,
  o: WindowOptions = DEFAULT_WINDOW,
): boolean {
  if (s.seq >= w.cutSeq) {
    const level = Math.max(1, Math.min(s.sentAt, Math.floor(w.size)));
    w.size = Math.min(w.size, Math.max(o.min, Math.floor(level * o.backoff)));
    w.cutSeq = nextSeq;
    w.ceiling = s.sentAt;
    w.aboveCeiling = 0;
    w.phase = "recover";
  }
  return s.sentAt > windowLimit(w, o);
}
