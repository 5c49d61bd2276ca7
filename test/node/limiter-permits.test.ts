import { describe, expect, it } from "vitest";
import { DEFAULT_WINDOW, PermitBook, type Outcome, type WindowState } from "../../src/runs/limiter/index.ts";

describe("the permit book", () => {
  it("grants up to the window, then none until a release", () => {
    const book = new PermitBook({ options: { ...DEFAULT_WINDOW, initial: 2 } });
    const a = book.tryGrant(0, 1000)!;
    const b = book.tryGrant(0, 1000)!;
    expect([a.inFlight, b.inFlight]).toEqual([1, 2]);
    expect(book.tryGrant(0, 1000)).toBe(null);
    book.release(a.id, { kind: "error" }, 10);
    expect(book.tryGrant(10, 1000)).not.toBe(null);
  });

  it("takes back a permit whose lease ended (a lane that died)", () => {
    const book = new PermitBook({ options: { ...DEFAULT_WINDOW, initial: 1 } });
    const lost = book.tryGrant(0, 1000)!;
    expect(book.tryGrant(999, 1000)).toBe(null);
    expect(book.wakeAt(999)).toBe(1000);
    const next = book.tryGrant(1000, 1000);
    expect(next).not.toBe(null);
    // The late release of the lost permit frees nothing it no longer holds.
    book.release(lost.id, { kind: "ok", latencyMs: 5 }, 1001);
    expect(book.inFlight).toBe(1);
  });

  it("grants nothing before a Retry-After has passed, to anyone", () => {
    const book = new PermitBook({ options: { ...DEFAULT_WINDOW, initial: 4 } });
    const a = book.tryGrant(0, 10_000)!;
    book.release(a.id, { kind: "overload", retryAfterMs: 1500 }, 100);
    expect(book.tryGrant(1599, 10_000)).toBe(null);
    expect(book.wakeAt(1599)).toBe(1600);
    expect(book.tryGrant(1600, 10_000)).not.toBe(null);
  });

  it("a Retry-After longer than a minute is held to a minute", () => {
    const book = new PermitBook();
    const a = book.tryGrant(0, 10_000)!;
    book.release(a.id, { kind: "overload", retryAfterMs: 3_600_000 }, 0);
    expect(book.pausedUntil).toBe(60_000);
  });

  it("ids from another book (an evicted limiter) never match", () => {
    const before = new PermitBook({ prefix: "a:" });
    const after = new PermitBook({ prefix: "b:" });
    const old = before.tryGrant(0, 1000)!;
    const mine = after.tryGrant(0, 1000)!;
    after.release(old.id, { kind: "ok", latencyMs: 1 }, 1);
    expect(after.inFlight).toBe(1);
    expect(mine.id).not.toBe(old.id);
  });

  it("a book made from a stored window (after an eviction) still cuts it on an overload", () => {
    // What an earlier book stored after granting hundreds of permits: a window of 40, last cut at its 521st.
    const stored: WindowState = {
      size: 40,
      ceiling: null,
      aboveCeiling: 0,
      cutSeq: 521,
      phase: "start",
      baseLatencyMs: null,
    };
    const restored = new PermitBook({ window: stored, prefix: "b:" });
    expect(restored.limit).toBe(40);
    const grants = Array.from({ length: 20 }, (_, i) => restored.tryGrant(i, 1000)!);
    const released = restored.release(grants[19].id, { kind: "overload" }, 100);
    // Cut to 0.7 × the 20 in flight when the refused request was sent.
    expect(restored.limit).toBe(14);
    expect(released.limit).toBe(14);
  });
});

/**
 * A discrete-event simulation, on a hand-driven clock, of `lanes` callers sharing one book against an
 * endpoint that answers in `latency` ms and refuses at once (429) a request arriving while `limit(n)`
 * are being answered (n: requests so far). A refused request is retried after `backoff` ms through
 * the book again, as the retry policy does. Returns what the endpoint saw.
 */
function simulate({
  lanes,
  calls,
  limit,
  latency = 200,
  backoff = 500,
  retryAfterMs,
}: {
  lanes: number;
  calls: number;
  limit: (n: number) => number;
  latency?: number;
  backoff?: number;
  retryAfterMs?: number;
}) {
  const book = new PermitBook();
  type Ev = { at: number; order: number; run: () => void };
  const events: Ev[] = [];
  let order = 0;
  const at = (t: number, run: () => void) => {
    events.push({ at: t, order: order++, run });
  };
  let now = 0;
  let admitted = 0;
  let maxAdmitted = 0;
  let refused = 0;
  let received = 0;
  let started = 0;
  let done = 0;
  let early = 0;
  const waiting: ((id: string) => void)[] = [];
  const limits: [number, number][] = [];
  const serve = () => {
    while (waiting.length) {
      const g = book.tryGrant(now, 60_000);
      if (!g) break;
      const go = waiting.shift()!;
      go(g.id);
    }
    const wake = waiting.length ? book.wakeAt(now) : null;
    if (wake !== null && wake > now) at(wake, serve);
  };
  const release = (id: string, o: Outcome) => {
    book.release(id, o, now);
    limits.push([now, book.limit]);
    serve();
  };
  const call = () => {
    // The Retry-After this call was told, counted from the refusal (the endpoint's clock).
    let told = 0;
    const send = (id: string) => {
      received++;
      if (now < told) early++;
      if (admitted >= limit(received)) {
        refused++;
        if (retryAfterMs) told = now + retryAfterMs;
        // The refusal reaches the caller (and the book) 1 ms later.
        at(now + 1, () => {
          release(id, retryAfterMs ? { kind: "overload", retryAfterMs } : { kind: "overload" });
          at(now + (retryAfterMs ?? backoff), () => acquire(send));
        });
        return;
      }
      admitted++;
      maxAdmitted = Math.max(maxAdmitted, admitted);
      at(now + latency, () => {
        admitted--;
        done++;
        release(id, { kind: "ok", latencyMs: latency });
        if (started < calls) {
          started++;
          acquire(send);
        }
      });
    };
    acquire(send);
  };
  const acquire = (send: (id: string) => void) => {
    waiting.push(send);
    serve();
  };
  for (let i = 0; i < lanes && started < calls; i++) {
    started++;
    call();
  }
  while (events.length && done < calls) {
    events.sort((a, b) => a.at - b.at || a.order - b.order);
    const e = events.shift()!;
    now = e.at;
    e.run();
  }
  return { wall: now, done, refused, maxAdmitted, early, limits, finalLimit: book.limit };
}

/** The time-weighted mean of the window over [from, to]. */
function meanLimit(limits: [number, number][], from: number, to: number): number {
  let area = 0;
  let last = limits.find(([t]) => t >= from)?.[1] ?? 0;
  let t0 = from;
  for (const [t, l] of limits) {
    if (t < from) {
      last = l;
      continue;
    }
    if (t > to) break;
    area += last * (t - t0);
    t0 = t;
    last = l;
  }
  area += last * (to - t0);
  return area / (to - from);
}

describe("the window against a simulated endpoint", () => {
  it("with a steady limit of 8: every call succeeds, near the limit, with few refusals", () => {
    const r = simulate({ lanes: 100, calls: 2500, limit: () => 8 });
    expect(r.done).toBe(2500);
    expect(r.maxAdmitted).toBe(8);
    // Ideal: 2500 × 0.2 s / 8 = 62.5 s; within 1.25× of it.
    expect(r.wall / 62_500).toBeLessThan(1.25);
    expect(meanLimit(r.limits, 10_000, r.wall)).toBeGreaterThan(6.5);
    expect(r.refused).toBeLessThan(250);
  });

  it("with a steady limit of 50: close to 50 in flight", () => {
    const r = simulate({ lanes: 100, calls: 2500, limit: () => 50 });
    expect(r.done).toBe(2500);
    // Ideal 10 s; the start and the probes cost little.
    expect(r.wall / 10_000).toBeLessThan(1.13);
  });

  it("follows a limit that drops mid-run", () => {
    const r = simulate({ lanes: 100, calls: 3000, limit: (n) => (n > 1000 ? 6 : 30) });
    expect(r.done).toBe(3000);
    const dropAt = r.limits[Math.floor(r.limits.length / 2)][0];
    expect(r.finalLimit).toBeLessThanOrEqual(7);
    expect(meanLimit(r.limits, r.wall - 20_000, r.wall)).toBeLessThan(7.5);
    expect(dropAt).toBeGreaterThan(0);
  });

  it("sends no refused call again before its Retry-After has passed", () => {
    const r = simulate({ lanes: 40, calls: 800, limit: () => 10, retryAfterMs: 1000 });
    expect(r.done).toBe(800);
    expect(r.refused).toBeGreaterThan(0);
    expect(r.early).toBe(0);
  });
});
