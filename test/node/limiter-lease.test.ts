// Issue 23, item 5: a lane keeps its endpoint permit across calls and renews it in aggregate, so the
// limiter (a Durable Object, each request billed, ~1,000/s per object) hears from it a fraction of a
// time per model call instead of twice; the window's control law sees the same news as before.
import { describe, expect, it } from "vitest";
import { EndpointWatch, limiterGate, RENEW_EVERY, type LimiterStub } from "../../src/runs/limiter/endpoint-gate.ts";
import { DEFAULT_WINDOW, PermitBook, shardOf, shardOptions, type Outcome } from "../../src/runs/limiter/index.ts";
import { ProviderError, retrying, type CallGate } from "../../src/providers/index.ts";

/** A limiter over a real PermitBook on a hand-driven clock, counting the requests it serves (no waiting: a full window throws). */
function bookLimiter(book = new PermitBook()) {
  let now = 0;
  const served = { acquire: 0, renew: 0, release: 0 };
  const grant = (g: ReturnType<PermitBook["tryGrant"]>) => {
    if (!g) throw new Error("window full");
    return g;
  };
  const stub: LimiterStub = {
    acquire: async (leaseMs) => (served.acquire++, grant(book.tryGrant(now, leaseMs))),
    renew: async (id, latencies, leaseMs) => {
      served.renew++;
      book.report(id, latencies);
      return book.extend(id, now, leaseMs) ?? grant(book.tryGrant(now, leaseMs));
    },
    release: async (id, outcome: Outcome, latencies = []) => (
      served.release++, book.report(id, latencies), book.release(id, outcome, now)
    ),
  };
  return {
    book,
    stub,
    served,
    requests: () => served.acquire + served.renew + served.release,
    tick: (ms: number) => (now += ms),
  };
}

const ok = async () => ({ attempts: undefined as number | undefined });
/** One call through the one retry policy; its waits move the limiter's clock (`tick`). */
const call = (gate: CallGate, once: () => Promise<{ attempts?: number }> = ok, tick: (ms: number) => void = () => {}) =>
  retrying(once, { maxRetries: 2, gate, sleep: async (ms) => void tick(ms), random: () => 0, now: () => 0 });

describe("a lane's leasing gate", () => {
  it("asks the limiter about once per RENEW_EVERY.attempts calls once the window has room, not twice per call", async () => {
    const l = bookLimiter();
    const gate = limiterGate(() => l.stub, 60_000, new EndpointWatch(), { now: () => 0 });
    for (let i = 0; i < 100; i++) await call(gate);
    await gate.close();
    // 1 acquire; renewals after 1, 2, 4, 8 successes (calls 2, 4, 8, 16: the window has room each
    // time, so the count doubles), then every 10 (calls 26, 36, …, 96: 8); 1 release at close.
    expect(l.served).toEqual({ acquire: 1, renew: 12, release: 1 });
    expect(l.requests() / 100).toBeLessThanOrEqual(0.2);
    expect(l.book.inFlight).toBe(0);
  });

  it("renews after every success while the window is contested, so it grows, yields and is cut as promptly as before", async () => {
    // A window of 2: one lane alone has room; with a second lane it is full.
    const l = bookLimiter(new PermitBook({ options: { ...DEFAULT_WINDOW, initial: 2, max: 2 } }));
    const roomy = limiterGate(() => l.stub, 60_000, new EndpointWatch(), { now: () => 0 });
    for (let i = 0; i < 5; i++) await call(roomy);
    // Renewals after 1 and 2 successes (calls 2 and 4).
    expect(l.served).toEqual({ acquire: 1, renew: 2, release: 0 });
    const crowded = limiterGate(() => l.stub, 60_000, new EndpointWatch(), { now: () => 0 });
    for (let i = 0; i < 5; i++) await call(crowded);
    // Its grant and every renewal show 2 in flight of 2: it renews before each later call (4 for 5 calls).
    expect(l.served).toEqual({ acquire: 2, renew: 6, release: 0 });
  });

  it("renews after RENEW_EVERY.ms even with few calls, so its lease never runs out under it", async () => {
    let clock = 0;
    const l = bookLimiter();
    const gate = limiterGate(() => l.stub, 60_000, new EndpointWatch(), { now: () => clock });
    // 40 calls: renewed last before call 36 with the count at 10, so calls 36–40 are 5 successes since.
    for (let i = 0; i < 40; i++) await call(gate);
    const renewed = l.served.renew;
    clock += RENEW_EVERY.ms - 1;
    await call(gate);
    expect(l.served.renew).toBe(renewed);
    clock += 1;
    await call(gate);
    expect(l.served.renew).toBe(renewed + 1);
    expect(RENEW_EVERY.ms).toBeLessThan(30_000); // inside the permit's margin over the attempt's timeout
  });

  it("reports an overload at once, with the successes before it, and takes the limiter's verdict", async () => {
    const l = bookLimiter(new PermitBook({ options: { ...DEFAULT_WINDOW, initial: 4 } }));
    const gate = limiterGate(() => l.stub, 60_000, new EndpointWatch(), { now: () => 0 });
    // Two calls: the permit was renewed before the second (after 1 success), next after 2 more.
    for (let i = 0; i < 2; i++) await call(gate);
    const before = l.requests();
    const refused = new ProviderError({
      name: "RateLimitError",
      kind: "rate_limit",
      status: 429,
      message: "429",
      retryAfterMs: 1000,
    });
    let n = 0;
    await call(
      gate,
      async () => {
        if (n++ === 0) throw refused;
        return { attempts: undefined };
      },
      l.tick,
    );
    // No renewal (1 success since the last), the 429's release with that success, then, after its
    // Retry-After, a fresh acquire for the retry.
    expect(l.served.release).toBe(1);
    expect(l.requests() - before).toBe(2);
    expect(l.book.pausedUntil).toBe(1000);
  });

  it("the window learns from successes reported in aggregate exactly what a release per call taught it", async () => {
    // One lane, one request at a time: each success is sent at level 1 with 1 in flight, either way.
    const perCall = new PermitBook();
    for (let i = 0; i < 25; i++) perCall.release(perCall.tryGrant(i, 1000)!.id, { kind: "ok", latencyMs: 100 + i }, i);
    const leased = new PermitBook();
    const g = leased.tryGrant(0, 1000)!;
    leased.report(
      g.id,
      Array.from({ length: 25 }, (_, i) => 100 + i),
    );
    expect(leased.window).toEqual(perCall.window);
  });
});

describe("PermitBook.extend", () => {
  it("keeps a permit while the window has it, with a new grant number (its next overload is news)", () => {
    const book = new PermitBook({ options: { ...DEFAULT_WINDOW, initial: 4 } });
    const held = Array.from({ length: 4 }, () => book.tryGrant(0, 1000)!);
    // A cut to ⌊0.7 × 4⌋ = 2 through the last permit: 3 still in flight, over the window.
    book.release(held[3].id, { kind: "overload" }, 10);
    expect(book.limit).toBe(2);
    expect(book.extend(held[0].id, 20, 1000)).toBe(null);
    expect(book.inFlight).toBe(2);
    expect(book.extend(held[1].id, 20, 1000)).toMatchObject({ id: held[1].id, limit: 2, inFlight: 2 });
    // Extended after the cut: its overload cuts again (a permit granted before the cut would not).
    book.release(held[1].id, { kind: "overload" }, 30);
    expect(book.limit).toBe(1);
  });

  it("gives the permit back during a Retry-After pause, and one whose lease ran out is not held", () => {
    const book = new PermitBook();
    const a = book.tryGrant(0, 1000)!;
    const b = book.tryGrant(0, 1000)!;
    book.release(b.id, { kind: "overload", retryAfterMs: 500 }, 0);
    expect(book.extend(a.id, 100, 1000)).toBe(null);
    expect(book.inFlight).toBe(0);
    const c = book.tryGrant(600, 1000)!;
    expect(book.extend(c.id, 1600, 1000)).toBe(null);
  });
});

describe("limiter shards", () => {
  it("split the window: shares that start and end where the whole window does", () => {
    const o = { ...DEFAULT_WINDOW, initial: 16, max: 100 };
    expect(shardOptions(o, 1)).toBe(o);
    expect(shardOptions(o, 4)).toMatchObject({ initial: 4, max: 25, min: 1 });
    // 100 / 3 rounds up to 34 per shard (102 in all), 16 / 3 to 5 (15 in all).
    expect(shardOptions(o, 3)).toMatchObject({ initial: 5, max: 34 });
    expect(shardOptions({ ...o, initial: 1 }, 8)).toMatchObject({ initial: 1, max: 13 });
    expect(() => shardOptions(o, 0)).toThrow(RangeError);
  });

  it("spread a run's lanes over the shards, each lane always to the same one", () => {
    const counts = [0, 0, 0, 0];
    for (let lane = 0; lane < 400; lane++) counts[shardOf(`run_abc:${lane}`, 4)]++;
    for (const c of counts) expect(c).toBeGreaterThan(60);
    expect(shardOf("run_abc:7", 4)).toBe(shardOf("run_abc:7", 4));
    expect(shardOf("run_abc:7", 1)).toBe(0);
  });
});
